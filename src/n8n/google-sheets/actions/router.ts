import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import type { SheetOperation } from '../descriptions';
import { toSheetsNodeError } from '../errors';
import { executeEnrich } from './enrich';
import { executeWatch } from './watch';
import { executeWriteEvents } from './write-events';

/** Each operation's handler: its output items (enrich: one, the run's report; writeEvents: one digest, or none). */
const handlers: Record<SheetOperation, (ctx: IExecuteFunctions) => Promise<INodeExecutionData | INodeExecutionData[]>> = {
  enrich: executeEnrich,
  watch: executeWatch,
  writeEvents: executeWriteEvents,
};

/**
 * Runs the chosen operation once per execution, whatever the number of input items: it works on the
 * whole sheet. With Continue On Fail a refusal is the output item ({ error }) instead of a failed run.
 */
export async function executeGoogleSheets(ctx: IExecuteFunctions): Promise<INodeExecutionData[][]> {
  const operation = ctx.getNodeParameter('operation', 0) as string;
  const handler = (handlers as Record<string, (typeof handlers)[SheetOperation] | undefined>)[operation];
  try {
    if (!handler)
      throw new NodeOperationError(ctx.getNode(), `Unknown operation "${operation}"`, { description: 'Pick an operation from the list.' });
    const out = await handler(ctx);
    return [Array.isArray(out) ? out : [out]];
  } catch (error) {
    const nodeError = toSheetsNodeError(ctx.getNode(), error, { manual: ctx.getMode() === 'manual' });
    if (!ctx.continueOnFail()) throw nodeError;
    return [
      [
        {
          json: { error: nodeError.message, ...(nodeError.description ? { description: nodeError.description } : {}) },
          pairedItem: { item: 0 },
        },
      ],
    ];
  }
}
