import type { INode } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import { PreflightError, reportOfFailedRun, SheetsError, wordSheetsError, type SheetsFieldNames } from '@company-data/core/sheets';
import { toNodeError } from '../errors';
import { ServiceAccountError } from './transport/service-account';
import { SheetsFieldError } from './transport/sheets-api';

/** Each setting of the Sheets engine as this node's parameter is shown. */
export const NODE_FIELDS: SheetsFieldNames = {
  spreadsheet: 'Spreadsheet',
  sheet: 'Sheet',
  column: 'Key Column',
  fields: 'Fields',
  maxBilledQueries: 'Max Billed Queries',
  eventsSheet: 'Events Sheet',
};

export interface SheetsNodeErrorOptions {
  itemIndex?: number;
  /** A manual execution: n8n keeps none of its static data, so paid answers not yet in the sheet are not kept. */
  manual?: boolean;
}

/**
 * Errors of Company Data: Google Sheets as n8n errors, the one mapping of this node: what the user set up
 * wrong (the key, a field) is a NodeOperationError naming the parameter and saying what to do; what Google
 * answered is a NodeApiError with its status; the Company Data service's errors go through the one mapping of
 * every node. A run that failed after it paid for answers says how many and what is kept.
 */
export function toSheetsNodeError(node: INode, error: unknown, o: SheetsNodeErrorOptions = {}): NodeApiError | NodeOperationError {
  const nodeError = asNodeError(node, error, o.itemIndex ?? 0);
  const report = reportOfFailedRun(error);
  // Refused before anything was billed (the cap, a check): the error's own words say what to do.
  if (!report?.failed || !report.billedQueries) return nodeError;
  // n8n saves static data at the end of production executions only (docs/decisions/lookup-and-billing.md, "Where paid answers are kept elsewhere").
  const kept = o.manual
    ? 'Answers already in the sheet are free on the next run; n8n keeps nothing of a manual run for the others, so run the workflow from its trigger to keep them next time.'
    : `Answers not yet in the sheet are kept in ${report.failed.stateDir}, so running again bills nothing for them.`;
  const paid = report.billedQueries === 1 ? 'query' : 'queries';
  return new NodeOperationError(node, nodeError.message, {
    itemIndex: o.itemIndex ?? 0,
    description: `This run paid for ${report.billedQueries} unique ${paid} before it stopped. ${kept}`,
  });
}

function asNodeError(node: INode, error: unknown, itemIndex: number): NodeApiError | NodeOperationError {
  if (error instanceof ServiceAccountError || error instanceof SheetsFieldError)
    return new NodeOperationError(node, error.message, { itemIndex, description: error.hint });
  if (error instanceof PreflightError) {
    const failed = error.checks.filter((c) => c.ok === false);
    return new NodeOperationError(node, `The sheet cannot take the answers: ${failed.map((c) => c.text).join(' ')}`, {
      itemIndex,
      description: `${failed.map((c) => `${c.check}: ${c.text}`).join('\n')}\nNothing was sent and nothing was billed.`,
    });
  }
  if (error instanceof SheetsError) {
    const { message, hint } = wordSheetsError(error, NODE_FIELDS);
    if (error.status === undefined) return new NodeOperationError(node, message, { itemIndex, ...(hint ? { description: hint } : {}) });
    return new NodeApiError(node, { message, status: error.status }, { itemIndex, httpCode: String(error.status), message });
  }
  return toNodeError(node, error, undefined, itemIndex);
}
