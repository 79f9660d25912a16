import type { INode } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import type { SheetsError } from '@company-data/core/sheets/google/sheets-errors';
import { toNodeError } from '../errors';
import { ServiceAccountError } from './transport/service-account';
import { SheetsFieldError } from './transport/sheets-api';

/** A refusal of Google Sheets as the core's Sheets client words it ("Google Sheets 403 …: … (what to do)"). */
const isSheetsError = (e: unknown): e is SheetsError & { status: number } =>
  e instanceof Error && typeof (e as SheetsError).status === 'number' && e.message.startsWith('Google Sheets');

/**
 * Errors of Company Data: Google Sheets as n8n errors: what the user set up wrong (the key, a field)
 * is a NodeOperationError saying what to do; what Google answered is a NodeApiError with its status;
 * the Company Data service's errors go through the one mapping of every node.
 */
export function toSheetsNodeError(node: INode, error: unknown, itemIndex = 0): NodeApiError | NodeOperationError {
  if (error instanceof ServiceAccountError || error instanceof SheetsFieldError)
    return new NodeOperationError(node, error.message, { itemIndex, description: error.hint });
  if (isSheetsError(error))
    return new NodeApiError(
      node,
      { message: error.message, status: error.status },
      { itemIndex, httpCode: String(error.status), message: error.message },
    );
  return toNodeError(node, error, undefined, itemIndex);
}
