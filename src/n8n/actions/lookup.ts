import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import type { CoreClient } from '@company-data/core/client';
import type { AnyOperation } from '@company-data/core/operation';
import type { BulkLookupCounters, BulkLookupItem } from '@company-data/core/bulk-lookup';
import { ValidationError } from '@company-data/core/errors';
import { alreadyLookedUp as coreAlreadyLookedUp, lookupColumns as col, matchColumn } from '@company-data/core/lookup';
import type { CompanySummary } from '@company-data/core/schemas/company';
import { flatCompany, flatCompanyFields } from '@company-data/core/simplify';
import type { Lang } from '@company-data/core/schemas/common';
import { toNodeError } from '../errors';
import { n8nClock } from '../transport/clock';

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

/** The best match as company_data_match_<field> columns; every one present (null) without a match, so sheet columns line up. */
function matchColumns(match: CompanySummary | undefined): IDataObject {
  const flat = match ? flatCompany(match) : undefined;
  return Object.fromEntries(flatCompanyFields.map((k) => [matchColumn(k), flat?.[k] ?? null]));
}

/** Every match in one cell: "Name (registry code); …". */
const matchList = (matches: CompanySummary[]) => (matches.length ? matches.map((m) => `${m.name} (${m.registry_code})`).join('; ') : null);

/**
 * The fields the lookup adds to an item. `flat` (version 3's Simplify): the best match as columns of
 * their own and the matches as one text, so a table row stays one line; otherwise (version 1 and 2,
 * Simplify off) the best match as the object company_data_match and the matches as a list of them.
 */
function resultFields(r: BulkLookupItem, limit: number, lookedUpAt: string, flat: boolean): IDataObject {
  const matches = (r.result?.matches ?? []) as CompanySummary[];
  const out: IDataObject = {
    [col.status]: r.status,
    [col.query]: r.query,
    [col.queryType]: r.type ?? null,
    [col.reason]: r.reason ?? r.detail ?? (r.error ? r.error.message : null),
    [col.vatHolders]: r.result?.vat_holders ?? null,
    [col.matchCount]: matches.length,
    ...(flat ? matchColumns(matches[0]) : { [col.match]: matches[0] ? flatCompany(matches[0]) : null }),
    [col.enrichedAt]: lookedUpAt,
  };
  // More than one match only when asked for (VAT groups, ambiguous names): the first stays in _match.
  if (limit > 1) out[col.matches] = flat ? matchList(matches) : matches.map(flatCompany);
  return out;
}

/**
 * Whether an item already carries this node's final answer for the query it holds now: the output of
 * an earlier run that came back through a sheet (read → Lookup → update, run again). A changed query
 * cell, an error status or, with maxAgeMs, an answer older than that (or without a readable time) all
 * mean: look up again.
 */
export function alreadyLookedUp(json: IDataObject, query: string, maxAgeMs: number | undefined, nowMs: number): boolean {
  // The rule itself is the core's, shared with enrich; the item only says where status, query and time are.
  return coreAlreadyLookedUp({ status: json[col.status], query: json[col.query], at: json[col.enrichedAt] }, query, maxAgeMs, nowMs);
}

interface RunOptions {
  limit: number;
  /** Best match as flat columns (version 3's Simplify). */
  flat: boolean;
  lang?: Lang;
  skipLookedUp: boolean;
  /** Answers older than this are looked up again; undefined: never. */
  maxAgeMs?: number;
  /** Most unique queries this execution may bill; undefined: no cap. */
  maxBilled?: number;
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
  const maxBilled = options.maxBilledQueries === undefined ? 0 : Number(options.maxBilledQueries);
  if (!Number.isInteger(maxBilled) || maxBilled < 0) {
    throw toNodeError(
      ctx.getNode(),
      new ValidationError({ field: 'max_billed_queries', rule: 'must be a whole number of 0 or more (0: no cap)' }),
      op,
      0,
    );
  }
  return {
    limit,
    flat: ctx.getNode().typeVersion >= 3 && ctx.getNodeParameter('simplify', 0, true) !== false,
    lang: (options.lang as Lang | undefined) || undefined,
    skipLookedUp,
    maxAgeMs: days > 0 ? days * 86_400_000 : undefined,
    maxBilled: maxBilled > 0 ? maxBilled : undefined,
  };
}

/** What the run cost, shown under the node's output (n8n 1.x execute contexts have addExecutionHints; older ones do not). */
function addCostHint(ctx: IExecuteFunctions, c: BulkLookupCounters, sent: number, passedThrough: number): void {
  const add = (ctx as Partial<Pick<IExecuteFunctions, 'addExecutionHints'>>).addExecutionHints;
  if (typeof add !== 'function') return;
  const duplicates = sent - c.invalid - c.skipped - c.uniqueQueries;
  const parts = [
    `Billed ${c.billedQueries} unique ${c.billedQueries === 1 ? 'query' : 'queries'} in ${c.requests} ${c.requests === 1 ? 'request' : 'requests'}`,
    `${duplicates} duplicate ${duplicates === 1 ? 'item' : 'items'} not billed again`,
    `${c.invalid + c.skipped} invalid or too short ${c.invalid + c.skipped === 1 ? 'item' : 'items'} not sent`,
  ];
  if (passedThrough) parts.push(`${passedThrough} already looked up, passed through`);
  add.call(ctx, { message: `${parts.join('; ')}.`, type: 'info', location: 'outputPane' });
}

/**
 * Companies → Lookup over all input items: identical queries are sent once, 100 per request, and
 * each answer goes back to every item that asked it, in order. A sheet row with an unusable value
 * (empty, bad check digit, a name too short to search) gets its status and reason instead of failing
 * the run; a request that fails fails only its items. Items that already carry a final answer for
 * their current query pass through unchanged and cost nothing (Skip Items Already Looked Up).
 */
export async function executeLookup(
  ctx: IExecuteFunctions,
  client: CoreClient,
  op: AnyOperation,
  items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
  const run = runOptions(ctx, op);
  const nowMs = n8nClock().now();
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
  const { results, counters } = await client
    .bulkLookup(queries, { limit: run.limit, lang: run.lang, maxBilledQueries: run.maxBilled })
    .catch((e: unknown) => {
      throw toNodeError(ctx.getNode(), e, op, 0);
    });
  addCostHint(ctx, counters, queries.length, items.length - queries.length);
  const lookedUpAt = new Date(nowMs).toISOString();
  results.forEach((r, j) => {
    const i = positions[j]!;
    if (missing.has(i)) r.reason = `the item has no field "${missing.get(i)}"`;
    const json: IDataObject = { ...items[i]!.json, ...resultFields(r, run.limit, lookedUpAt, run.flat) };
    // The error text of an earlier failed run would otherwise stick to an item that now has its answer.
    if (items[i]!.json[col.status] === 'error') delete json.error;
    if (r.status === 'error' && r.error) {
      const nodeError = toNodeError(ctx.getNode(), r.error, op, i);
      if (!ctx.continueOnFail()) throw nodeError;
      json.error = nodeError.message;
    }
    out[i] = { json, pairedItem: { item: i } };
  });
  return out;
}
