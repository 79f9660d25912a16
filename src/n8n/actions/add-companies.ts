import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import type { CoreClient } from '@company-data/core/client';
import type { AnyOperation } from '@company-data/core/operation';
import { toNodeError } from '../errors';
import { readInput } from './input';
import { fieldValue } from './lookup';
import { ADD_BATCH } from '../descriptions/add-companies';

const text = (v: unknown) => (v === undefined || v === null ? '' : String(v).trim());

/**
 * Every input item's company in one request (2000 per request beyond that): one output item per
 * request, paired with the items it added. Replace Whole List needs them in one request, so more than
 * 2000 with it on is refused before anything is sent.
 */
export async function executeAddFromItems(
  ctx: IExecuteFunctions,
  client: CoreClient,
  op: AnyOperation,
  items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
  const node = ctx.getNode();
  const codeField = text(ctx.getNodeParameter('registryCodeField', 0, 'registry_code'));
  const refField = text(ctx.getNodeParameter('externalRefField', 0, ''));
  // The entered-companies field is hidden in this mode; the companies come from the items.
  const base = readInput(ctx, op, 0, ['add']);
  const add = items.map((item, i) => {
    const code = text(fieldValue(item.json, codeField));
    if (!code)
      throw new NodeOperationError(node, `Item ${i + 1} has no registry code in the field "${codeField}"`, {
        itemIndex: i,
        description: 'Check Registry Code Field, or remove items without a code first.',
      });
    const ref = refField ? text(fieldValue(item.json, refField)) : '';
    return { registry_code: code, ...(ref ? { external_ref: ref } : {}) };
  });
  if (base.replace === true && add.length > ADD_BATCH) {
    throw new NodeOperationError(node, `Replace Whole List takes at most ${ADD_BATCH} companies in one step; ${add.length} came in`, {
      description: 'Turn Replace Whole List off, or split the items.',
    });
  }
  const out: INodeExecutionData[] = [];
  for (let start = 0; start < add.length; start += ADD_BATCH) {
    const chunk = add.slice(start, start + ADD_BATCH);
    try {
      const res = await client.call(op, { ...base, add: chunk } as never);
      out.push({ json: res.data as IDataObject, pairedItem: chunk.map((_, k) => ({ item: start + k })) });
    } catch (error) {
      // The field path "add.5.registry_code" counts within the request; the item number is what the user sees.
      throw toNodeError(node, error, op, start);
    }
  }
  return out;
}
