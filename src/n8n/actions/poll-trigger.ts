import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { clientFor } from '../transport/client';
import { toNodeError } from '../errors';
import { pollApi } from '../trigger/api';
import { pollOnce, pollSources, type PollState } from '../trigger/poll';
import { digestItems } from '../trigger/items';
import { readTriggerOptions } from '../descriptions/trigger-properties';

/**
 * The Company Data Poll Trigger's poll(): read new events and saved-search matches since the cursors
 * kept in static data (n8n saves it after each poll). The node file only delegates.
 */
export async function pollTrigger(ctx: IPollFunctions): Promise<INodeExecutionData[][] | null> {
  const options = readTriggerOptions((name, fallback) => ctx.getNodeParameter(name, fallback));
  const extra = ctx.getNodeParameter('options', {}) as IDataObject;
  if (options.events.includes('search.matches') && options.searchIds.length === 0 && options.events.length === 1) {
    throw new NodeOperationError(ctx.getNode(), 'Saved Searches: choose at least one saved search whose matches to read');
  }
  const client = await clientFor(ctx);
  const state = ctx.getWorkflowStaticData('node') as PollState;
  try {
    const polled = await pollOnce(pollSources(pollApi(client), { options }), state, {
      options,
      startFrom: extra.startFrom === 'oldest' ? 'oldest' : 'now',
      manual: ctx.getMode() === 'manual',
    });
    const items = digestItems(polled, options);
    return items.length ? [ctx.helpers.returnJsonArray(items as IDataObject[])] : null;
  } catch (error) {
    // The same mapping as the action nodes: the service's answers with their code and request id.
    throw toNodeError(ctx.getNode(), error, undefined);
  }
}
