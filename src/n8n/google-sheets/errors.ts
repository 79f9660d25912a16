import type { INode } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import { toNodeError } from '../errors';
import { ServiceAccountError } from './transport/service-account';
import { SheetsApiError } from './transport/sheets-api';

/**
 * Errors of Company Data: Google Sheets as n8n errors: what the user set up wrong (the key, the
 * spreadsheet field) is a NodeOperationError saying what to do; what Google answered is a NodeApiError
 * with its status; the Company Data service's errors go through the one mapping of every node.
 */
export function toSheetsNodeError(node: INode, error: unknown, itemIndex = 0): NodeApiError | NodeOperationError {
  if (error instanceof ServiceAccountError) return new NodeOperationError(node, error.message, { itemIndex, description: error.hint });
  if (error instanceof SheetsApiError) {
    if (!error.status) return new NodeOperationError(node, error.message, { itemIndex, description: error.hint });
    return new NodeApiError(
      node,
      { message: error.message, status: error.status },
      { itemIndex, httpCode: String(error.status), message: error.message, description: error.hint },
    );
  }
  return toNodeError(node, error, undefined, itemIndex);
}
