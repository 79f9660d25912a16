import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import type { CoreClient } from '../core/client';
import type { AnyOperation } from '../core/operation';
import { bulkLookup, lookupKey, type BulkLookupItem } from '../core/bulk-lookup';
import { ValidationError } from '../core/errors';
import type { CompanySummary } from '../core/schemas/company';
import type { Lang } from '../core/schemas/common';
import { lookupQueryProblem } from '../core/validation';
import { toNodeError } from './errors';
import { n8nClock } from './transport';

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
export function fieldValue(json: IDataObject, name: string): unknown {
  if (name in json) return json[name];
  let v: unknown = json;
  for (const k of name.split('.')) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[k];
  }
  return v;
}

function resultFields(r: BulkLookupItem, limit: number, lookedUpAt: string): IDataObject {
  const matches = (r.result?.matches ?? []) as CompanySummary[];
  const out: IDataObject = {
    [`${OUT}status`]: r.status,
    [`${OUT}query`]: r.query,
    [`${OUT}query_type`]: r.type ?? null,
    [`${OUT}reason`]: r.reason ?? (r.error ? r.error.message : null),
    [`${OUT}vat_holders`]: r.result?.vat_holders ?? null,
    [`${OUT}match_count`]: matches.length,
    [`${OUT}match`]: matches[0] ? flatCompany(matches[0]) : null,
    [`${OUT}enriched_at`]: lookedUpAt,
  };
  // More than one match only when asked for (VAT groups, ambiguous names): the first stays in _match.
  if (limit > 1) out[`${OUT}matches`] = matches.map(flatCompany);
  return out;
}

/** Statuses that settle a query for good; an item with one of them need not be looked up again. */
export const FINAL_STATUSES: ReadonlySet<string> = new Set(['matched', 'no_match', 'vat_group', 'skipped', 'invalid']);

/** Two queries are the same when the service would answer them alike (" 12417834 " and 12417834, ee… and EE…). */
function sameQuery(a: string, b: string): boolean {
  if (a === b) return true;
  const norm = (q: string) => (lookupQueryProblem(q) ? q.trim() : lookupKey(q).key);
  return norm(a) === norm(b);
}

/**
 * Whether an item already carries this node's final answer for the query it holds now: the output of
 * an earlier run that came back through a sheet (read → Lookup → update, run again). A changed query
 * cell, an error status or, with maxAgeMs, an answer older than that (or without a readable time) all
 * mean: look up again.
 */
export function alreadyLookedUp(json: IDataObject, query: string, maxAgeMs: number | undefined, nowMs: number): boolean {
  const status = json[`${OUT}status`];
  if (typeof status !== 'string' || !FINAL_STATUSES.has(status)) return false;
  const recorded = json[`${OUT}query`];
  if (recorded === undefined || recorded === null || !sameQuery(String(recorded), query)) return false;
  if (maxAgeMs === undefined) return true;
  const at = Date.parse(String(json[`${OUT}enriched_at`] ?? ''));
  return at + maxAgeMs > nowMs;
}

interface RunOptions {
  limit: number;
  lang?: Lang;
  skipLookedUp: boolean;
  /** Answers older than this are looked up again; undefined: never. */
  maxAgeMs?: number;
}

/** Options that apply to the whole batch, read once from the first item. */
function runOptions(ctx: IExecuteFunctions, op: AnyOperation): RunOptions {
  const options = ctx.getNodeParameter('options', 0, {}) as IDataObject;
  const limit = options.limit === undefined ? 1 : Number(options.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 10) {
    throw toNodeError(ctx.getNode(), new ValidationError({ field: 'limit', rule: 'must be from 1 to 10' }), op, 0);
  }
  const skipLookedUp = ctx.getNodeParameter('skipLookedUp', 0, true) !== false;
  // Version 2 asks "never" or "after some days" outright; version 1 has only the days, 0 meaning never.
  const again = ctx.getNodeParameter('lookUpAgain', 0, 'afterDays');
  const days = skipLookedUp && again !== 'never' ? Number(ctx.getNodeParameter('lookUpAgainAfterDays', 0, 0)) : 0;
  if (!Number.isFinite(days) || days < 0) {
    throw toNodeError(ctx.getNode(), new ValidationError({ field: 'look_up_again_after_days', rule: 'must be 0 or more' }), op, 0);
  }
  return { limit, lang: (options.lang as Lang | undefined) || undefined, skipLookedUp, maxAgeMs: days > 0 ? days * 86_400_000 : undefined };
}

/**
 * Companies → Lookup over all input items: identical queries are sent once, 100 per request, and
 * each answer goes back to every item that asked it, in order. A sheet row with an unusable value
 * (empty, bad check digit, a name too short to search) gets its status and reason instead of failing
 * the run; a request that fails fails only its items. Items that already carry a final answer for
 * their current query pass through unchanged and cost nothing (Skip Items Already Looked Up).
 */
export async function executeLookup(ctx: IExecuteFunctions, client: CoreClient, op: AnyOperation, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
  const run = runOptions(ctx, op);
  const nowMs = n8nClock.now();
  const queries: string[] = [];
  /** Input positions of the queries sent, in the same order. */
  const positions: number[] = [];
  /** Items without the query field, with the field name they were read by. */
  const missing = new Map<number, string>();
  const out: INodeExecutionData[] = new Array(items.length);
  for (let i = 0; i < items.length; i++) {
    const json = items[i]!.json;
    const source = ctx.getNodeParameter('querySource', i, 'field') as string;
    let raw: unknown;
    if (source === 'value') raw = ctx.getNodeParameter('query', i, '');
    else {
      const field = String(ctx.getNodeParameter('queryField', i, '')).trim();
      raw = fieldValue(json, field);
      if (raw === undefined) missing.set(i, field);
    }
    const query = raw === undefined || raw === null ? '' : String(raw);
    if (run.skipLookedUp && alreadyLookedUp(json, query, run.maxAgeMs, nowMs)) {
      out[i] = { json: { ...json }, pairedItem: { item: i } };
      continue;
    }
    queries.push(query);
    positions.push(i);
  }
  if (!queries.length) return out;

  const { results } = await bulkLookup(client, queries, { limit: run.limit, lang: run.lang });
  const lookedUpAt = new Date(nowMs).toISOString();
  results.forEach((r, j) => {
    const i = positions[j]!;
    if (missing.has(i)) r.reason = `the item has no field "${missing.get(i)}"`;
    const json: IDataObject = { ...items[i]!.json, ...resultFields(r, run.limit, lookedUpAt) };
    // The error text of an earlier failed run would otherwise stick to an item that now has its answer.
    if (items[i]!.json[`${OUT}status`] === 'error') delete json.error;
    if (r.status === 'error' && r.error) {
      const nodeError = toNodeError(ctx.getNode(), r.error, op, i);
      if (!ctx.continueOnFail()) throw nodeError;
      json.error = nodeError.message;
    }
    out[i] = { json, pairedItem: { item: i } };
  });
  return out;
}
