/**
 * Runs one tool call through the client and shapes the answer for a model: rows in `items`, compact
 * by default (the n8n nodes' Simplify shape where there is one, empty fields left out elsewhere),
 * paging told as what to ask next, and errors as tool errors that say what to do.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { BulkLookupItem, LookupCache } from '@company-data/core/bulk-lookup';
import { validationErrorFromIssues, type CoreClient } from '@company-data/core/client';
import { CompanyDataError, ValidationError, redact } from '@company-data/core/errors';
import { inputSchema, type AnyOperation } from '@company-data/core/operation';
import { isJsonObject } from '@company-data/core/json';
import { runOperation, type OperationRows } from '@company-data/core/runner';
import type { LookupResult } from '@company-data/core/schemas/company';
import type { Lang, Meta } from '@company-data/core/schemas/common';
import { flatCompany, simplified, simplifies } from '@company-data/core/simplify';
import { statusText } from '@company-data/core/lookup';
import { DEFAULT_MAX_BILLED_QUERIES, DEFAULT_TOOL_PAGE_SIZE, MAX_LOOKUP_QUERIES, type CompanyDataTool } from './tools';

type Row = Record<string, unknown>;
export type Structured = Row & { items: Row[]; count: number };

export interface CallContext {
  client: CoreClient;
  /** Answers of earlier lookups of this server, by matches-per-query and language: paid once. */
  lookupCache(limit: number, lang: string): LookupCache;
  /** Set when the assistant cancels the call: requests not yet sent are not sent. */
  signal?: AbortSignal;
}

const asRow = (v: unknown): Row => (isJsonObject(v) ? v : { value: v });

/** Empty values say nothing to a model and cost tokens: null, '', [] and {} are left out, deeply. */
function compact(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(compact).filter((x) => !isEmpty(x));
  if (!isJsonObject(v)) return v;
  const out: Row = {};
  for (const [k, x] of Object.entries(v)) {
    const c = compact(x);
    if (!isEmpty(c)) out[k] = c;
  }
  return out;
}
const isEmpty = (v: unknown) =>
  v === null || v === undefined || v === '' || (Array.isArray(v) && v.length === 0) || (isJsonObject(v) && Object.keys(v).length === 0);

/** Rows as the model reads them: whole with full, else the Simplify shape where there is one, empty fields left out. */
function shaped(op: AnyOperation, rows: unknown[], full: boolean): Row[] {
  if (full) return rows.map(asRow);
  if (simplifies(op)) return rows.flatMap((r) => simplified(op, r)).map((r) => asRow(compact(r)));
  return rows.map((r) => asRow(compact(r)));
}

/** What the service said beyond the rows (VAT holders, lookup counts), without the paging already told. */
function metaExtras(meta: Meta): Row | undefined {
  const rest: Row = {};
  for (const [k, v] of Object.entries(meta)) if (!['request_id', 'pagination', 'next_cursor', 'has_more'].includes(k)) rest[k] = v;
  return Object.keys(rest).length ? rest : undefined;
}

function envelope(rows: Row[], extra: Row, requestId: string): Structured {
  const out: Structured = { items: rows, count: rows.length, ...extra };
  if (requestId) out.request_id = requestId;
  return out;
}

/** Beside the rows: a page's place and what to ask for next, or a single answer's total and other meta. */
function facts(tool: CompanyDataTool, r: OperationRows): Row {
  const n = r.next;
  if (!n) {
    const meta = r.meta && metaExtras(r.meta);
    return { ...(r.total !== undefined ? { total: r.total } : {}), ...(meta ? { meta } : {}) };
  }
  if (n.page === undefined) {
    const extra: Row = { more_available: n.hasMore };
    if (n.after) extra.next_after = n.after;
    if (n.hasMore) extra.how_to_get_more = `Call ${tool.name} again with after="${n.after}".`;
    return extra;
  }
  const extra: Row = { page: n.page, limit: n.limit, more_available: n.hasMore };
  if (r.total !== undefined) extra.total = r.total;
  if (n.hasMore) {
    extra.next_page = n.page + 1;
    extra.how_to_get_more = `Call ${tool.name} again with the same arguments and page=${n.page + 1}.`;
  }
  if (n.capped) {
    extra.capped = true;
    extra.how_to_get_more =
      'The service returns at most 200 results for a text search: narrow the search (more words, a filter) to see others.';
  }
  return extra;
}

function lookupRow(r: BulkLookupItem, full: boolean): Row {
  const matches = (r.result?.matches ?? []) as NonNullable<LookupResult['matches']>;
  const note = r.reason ?? (r.error ? `${r.error.message}. ${r.error.hint}` : r.detail ? statusText(r.status, r.detail) : undefined);
  const head: Row = { query: r.query, status: r.status, ...(note ? { note } : {}), match_count: matches.length };
  if (r.cached) head.from_earlier_call = true;
  if (full) return { ...head, matches, ...(r.result?.vat_holders !== undefined ? { vat_holders: r.result.vat_holders } : {}) };
  return matches[0] ? { ...head, match: compact(flatCompany(matches[0])) } : head;
}

async function lookup(ctx: CallContext, tool: CompanyDataTool, input: Row, full: boolean): Promise<Structured> {
  const { param, max: perRequest } = tool.op.bulk!;
  const queries = input[param];
  if (!Array.isArray(queries) || queries.length === 0) throw new ValidationError({ field: param, rule: 'needs 1 to 1000 queries' });
  if (queries.length > MAX_LOOKUP_QUERIES)
    throw new ValidationError({ field: param, rule: `has ${queries.length} queries; at most ${MAX_LOOKUP_QUERIES} a call` });
  const max = maxBilled(input.max_billed_queries);
  // The operation's own rules check every argument (one request's worth stands for the whole call)
  // before anything is billed, with the same messages as every other tool.
  const { max_billed_queries: _cap, ...params } = input;
  const first = { ...params, [param]: queries.slice(0, perRequest) };
  const parsed = inputSchema(tool.op).safeParse(first);
  if (!parsed.success) throw validationErrorFromIssues(parsed.error.issues, first);
  const limit = (params.limit as number | undefined) ?? 1;
  // Answers differ by language: the call's, else the client's default (the server's --lang).
  const lang = (params.lang as Lang | undefined) ?? ctx.client.lang;
  const { results, counters } = await ctx.client.bulkLookup(queries as string[], {
    limit,
    lang,
    cache: ctx.lookupCache(limit, lang ?? ''),
    maxBilledQueries: max,
  });
  const summary =
    `Billed ${counters.billedQueries} ${counters.billedQueries === 1 ? 'query' : 'queries'} in ${counters.requests} ${counters.requests === 1 ? 'request' : 'requests'}: ` +
    `${queries.length} given, ${counters.uniqueQueries} distinct, ${counters.fromCache} answered from earlier calls, ${counters.invalid} invalid and ${counters.skipped} too short (not sent, free)` +
    (counters.failed ? `, ${counters.failed} failed (see note)` : '') +
    '.';
  return envelope(
    results.map((r) => lookupRow(r, full)),
    { billed_queries: counters.billedQueries, summary },
    '',
  );
}

function maxBilled(v: unknown): number {
  if (v === undefined) return DEFAULT_MAX_BILLED_QUERIES;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > MAX_LOOKUP_QUERIES) {
    throw new ValidationError({ field: 'max_billed_queries', rule: `must be a whole number from 1 to ${MAX_LOOKUP_QUERIES}` });
  }
  return v;
}

export async function runTool(ctx: CallContext, tool: CompanyDataTool, args: Row): Promise<Structured> {
  const { full, ...input } = args;
  if (full !== undefined && typeof full !== 'boolean') throw new ValidationError({ field: 'full', rule: 'must be true or false' });
  // Models and tools such as the MCP Inspector send 13545698 for "13545698": a whole number given for a text
  // parameter is its digits (registry codes, VAT digits and ids have no leading zero to lose). Anything else
  // is left to the operation's rules and their messages.
  for (const name of tool.textParams) {
    const v = input[name];
    if (Number.isSafeInteger(v) && (v as number) >= 0) input[name] = String(v);
    else if (Array.isArray(v)) input[name] = v.map((x: unknown) => (Number.isSafeInteger(x) && (x as number) >= 0 ? String(x) : x));
  }
  const whole = full === true;
  if (tool.kind === 'lookup') return lookup(ctx, tool, input, whole);
  // One answer, or the first page of a list: an assistant asks for the next page itself.
  const signal = ctx.signal;
  const r = await runOperation(ctx.client, tool.op, input, {
    firstPage: { limit: DEFAULT_TOOL_PAGE_SIZE },
    ...(signal ? { call: { shouldStart: () => !signal.aborted } } : {}),
  });
  // An answer of nothing is no row.
  const rows = r.one && (r.rows[0] === null || r.rows[0] === undefined) ? [] : r.rows;
  return envelope(shaped(tool.op, rows, whole), facts(tool, r), r.requestId);
}

/** A result the model reads: the JSON text (every client shows it) and the same as structured content. */
export function toolResult(structured: Structured): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
}

/**
 * A tool error (isError: the model sees it and can correct itself, rather than a protocol error):
 * what went wrong, what to do, and the service's code, status and request id. Messages of the client's
 * errors never carry the API key; anything else is reduced to its message with the key scrubbed.
 */
export function errorResult(err: unknown, secrets: readonly string[]): CallToolResult {
  let text: string;
  if (err instanceof CompanyDataError) {
    const facts = [`code: ${err.code}`];
    if (err.status !== undefined) facts.push(`status: ${err.status}`);
    if (err.requestId) facts.push(`request id: ${err.requestId}`);
    text = `${err.message}. What to do: ${err.hint} (${facts.join(', ')})`;
    if (err instanceof ValidationError && err.issues.length > 1)
      text += `\nAll problems: ${err.issues.map((i) => `${i.field} ${i.rule}`).join('; ')}`;
  } else text = `Unexpected error: ${err instanceof Error ? err.message : String(err)}. What to do: try again; if it persists, report it.`;
  return { content: [{ type: 'text', text: redact(text, secrets) }], isError: true };
}
