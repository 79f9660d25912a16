import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import type { CoreClient } from '../core/client';
import type { AnyOperation } from '../core/operation';
import { bulkLookup, type BulkLookupItem } from '../core/bulk-lookup';
import { ValidationError } from '../core/errors';
import type { CompanySummary } from '../core/schemas/company';
import type { Lang } from '../core/schemas/common';
import { toNodeError } from './errors';

/** Prefix of the fields the lookup adds to each item, so they sit together in a sheet. */
export const OUT = 'company_data_';

/** A company summary as one level of plain values: each becomes a sheet column when mapped. */
export function flatCompany(c: CompanySummary): IDataObject {
  const obj = (v: unknown) => (v && typeof v === 'object' ? (v as Record<string, unknown>) : {});
  const legal = obj(c.legal_form);
  const status = obj(c.status);
  const address = obj(c.address);
  return {
    registry_code: c.registry_code,
    name: c.name,
    legal_form: (legal.label ?? legal.name ?? null) as string | null,
    status: (status.code ?? null) as string | null,
    status_label: (status.label ?? null) as string | null,
    registered_on: c.registered_on ?? null,
    deleted_on: c.deleted_on ?? null,
    vat_number: c.vat_number ?? null,
    address: (address.full ?? null) as string | null,
    postal_code: (address.postal_code ?? null) as string | null,
    url: c.url ?? null,
  };
}

/** Reads a field by name, or by a dotted path when no field has that exact name. */
function fieldValue(json: IDataObject, name: string): unknown {
  if (name in json) return json[name];
  let v: unknown = json;
  for (const k of name.split('.')) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[k];
  }
  return v;
}

function resultFields(r: BulkLookupItem, limit: number): IDataObject {
  const matches = (r.result?.matches ?? []) as CompanySummary[];
  const out: IDataObject = {
    [`${OUT}status`]: r.status,
    [`${OUT}query`]: r.query,
    [`${OUT}query_type`]: r.type ?? null,
    [`${OUT}reason`]: r.reason ?? (r.error ? r.error.message : null),
    [`${OUT}vat_holders`]: r.result?.vat_holders ?? null,
    [`${OUT}match_count`]: matches.length,
    [`${OUT}match`]: matches[0] ? flatCompany(matches[0]) : null,
  };
  // More than one match only when asked for (VAT groups, ambiguous names): the first stays in _match.
  if (limit > 1) out[`${OUT}matches`] = matches.map(flatCompany);
  return out;
}

/**
 * Companies → Lookup over all input items: identical queries are sent once, 100 per request, and
 * each answer goes back to every item that asked it, in order. A sheet row with an unusable value
 * (empty, bad check digit, a name too short to search) gets its status and reason instead of failing
 * the run; a request that fails fails only its items.
 */
export async function executeLookup(ctx: IExecuteFunctions, client: CoreClient, op: AnyOperation, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
  const queries: string[] = [];
  const missing = new Set<number>();
  let limit = 1;
  let lang: Lang | undefined;
  for (let i = 0; i < items.length; i++) {
    const source = ctx.getNodeParameter('querySource', i, 'field') as string;
    let raw: unknown;
    if (source === 'value') raw = ctx.getNodeParameter('query', i, '');
    else {
      const field = String(ctx.getNodeParameter('queryField', i, '')).trim();
      raw = fieldValue(items[i]!.json, field);
      if (raw === undefined) missing.add(i);
    }
    queries.push(raw === undefined || raw === null ? '' : String(raw));
    // Matches per query and language apply to the whole batch, so they are read once.
    if (i === 0) {
      const options = ctx.getNodeParameter('options', 0, {}) as IDataObject;
      if (options.limit !== undefined) limit = Number(options.limit);
      lang = (options.lang as Lang | undefined) || undefined;
    }
  }
  if (!Number.isInteger(limit) || limit < 1 || limit > 10) {
    throw toNodeError(ctx.getNode(), new ValidationError({ field: 'limit', rule: 'must be from 1 to 10' }), op, 0);
  }

  const { results } = await bulkLookup(client, queries, { limit, lang });
  const field = String(ctx.getNodeParameter('queryField', 0, ''));
  return results.map((r, i) => {
    if (missing.has(i)) r.reason = `the item has no field "${field}"`;
    const json: IDataObject = { ...items[i]!.json, ...resultFields(r, limit) };
    if (r.status === 'error' && r.error) {
      const nodeError = toNodeError(ctx.getNode(), r.error, op, i);
      if (!ctx.continueOnFail()) throw nodeError;
      json.error = nodeError.message;
    }
    return { json, pairedItem: { item: i } };
  });
}
