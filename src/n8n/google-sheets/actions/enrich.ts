import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

/** Enrich Rows: the Sheets engine (packages/core/sheets) over n8n's helpers. Wired once the engine's ports land. */
export async function executeEnrich(ctx: IExecuteFunctions): Promise<INodeExecutionData> {
  throw new NodeOperationError(ctx.getNode(), 'Enrich Rows is not available in this build yet');
}
