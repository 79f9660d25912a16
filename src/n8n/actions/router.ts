import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import type { CoreClient } from '@company-data/core/client';
import type { AnyOperation } from '@company-data/core/operation';
import { ValidationError } from '@company-data/core/errors';
import { isJsonObject } from '@company-data/core/json';
import { pagingOf, runOperation } from '@company-data/core/runner';
import { clientFor } from '../transport/client';
import { toNodeError } from '../errors';
import { readInput } from './input';
import { executeLookup } from './lookup';
import { nodeOperations } from '../descriptions/properties';
import { simplified, simplifies } from '@company-data/core/simplify';
import { addsFromItems } from '../descriptions/add-companies';
import { executeAddFromItems } from './add-companies';
import type { NodeSpec } from '../descriptions/nodes';

const asJson = (v: unknown): IDataObject => (isJsonObject(v) ? (v as IDataObject) : { value: v as IDataObject[keyof IDataObject] });

/** The operation chosen in the node's Resource/Operation fields. */
export function chosenOperation(ctx: IExecuteFunctions, spec: NodeSpec): AnyOperation {
  const ops = nodeOperations(spec);
  const resource = ops.length && spec.groups.length > 1 ? (ctx.getNodeParameter('resource', 0) as string) : undefined;
  const name = ctx.getNodeParameter('operation', 0) as string;
  const found = ops.find((o) => o.op.name === name && (resource === undefined || o.resource === resource));
  if (!found) throw toNodeError(ctx.getNode(), new Error(`Unknown operation "${name}"`), undefined, 0);
  return found.op;
}

/** The rows of one item's request: every page up to the node's Limit (Return All: every row). */
function rowsOf(ctx: IExecuteFunctions, client: CoreClient, op: AnyOperation, input: Record<string, unknown>, i: number) {
  if (!pagingOf(op)) return runOperation(client, op, input);
  const returnAll = ctx.getNodeParameter('returnAll', i, false) as boolean;
  const maxItems = returnAll ? undefined : (ctx.getNodeParameter('limit', i, 50) as number);
  // The field's minimum holds only for typed values; an expression giving 0 would return nothing, silently.
  if (maxItems !== undefined && !(Number.isInteger(maxItems) && maxItems >= 1))
    throw new ValidationError({ field: 'limit', rule: 'must be a whole number of 1 or more' });
  return runOperation(client, op, input, { maxItems });
}

/**
 * The shared execute() of every Company Data node: one client for the whole run, one request (or
 * one paged read) per item, one output item per row, pairedItem on everything, and errors either
 * thrown as n8n errors or, with Continue On Fail, returned as an item holding json.error.
 */
export async function executeNode(ctx: IExecuteFunctions, spec: NodeSpec): Promise<INodeExecutionData[][]> {
  const items = ctx.getInputData();
  const op = chosenOperation(ctx, spec);
  const version = ctx.getNode().typeVersion;
  // The README's promise, kept from version 3: English unless the Language option says otherwise.
  // Older versions send no lang when it is unset, so saved workflows keep the service's Estonian labels.
  const client = await clientFor(ctx, version >= 3 ? { lang: 'en' } : {});
  if (op.bulk) return [await executeLookup(ctx, client, op, items)];
  if (version >= 2 && addsFromItems(op) && ctx.getNodeParameter('companiesFrom', 0, 'items') === 'items')
    return [await executeAddFromItems(ctx, client, op, items)];

  const out: INodeExecutionData[] = [];
  // Version 1 had no Simplify and returned every answer whole; it still does.
  const canSimplify = version >= 2 && simplifies(op);
  for (let i = 0; i < items.length; i++) {
    try {
      const input = readInput(ctx, op, i);
      const { rows: answers } = await rowsOf(ctx, client, op, input, i);
      const flat = canSimplify && (ctx.getNodeParameter('simplify', i, true) as boolean);
      for (const answer of answers) {
        for (const json of flat ? simplified(op, answer) : [asJson(answer)]) out.push({ json, pairedItem: { item: i } });
      }
    } catch (error) {
      const nodeError = toNodeError(ctx.getNode(), error, op, i);
      if (ctx.continueOnFail()) {
        out.push({
          json: { error: nodeError.message, ...(nodeError.description ? { error_description: nodeError.description } : {}) },
          pairedItem: { item: i },
        });
        continue;
      }
      throw nodeError;
    }
  }
  return [out];
}
