import type { CoreClient } from './client';
import { AuthenticationError, CompanyDataError, PlanRequiredError, ValidationError } from './errors';
import type { Lang } from './schemas/common';
import type { LookupResult } from './schemas/company';
import { classifyLookupQuery, lookupQueryProblem, type LookupQueryType } from './validation';

/** Most queries the service takes in one lookup request. */
export const LOOKUP_BATCH_SIZE = 100;

export type BulkLookupStatus = 'matched' | 'no_match' | 'skipped' | 'invalid' | 'error';

export interface BulkLookupItem {
  /** The input exactly as given. */
  query: string;
  /** Dedupe and cache key (see lookupKey); absent for invalid queries. */
  key?: string;
  type?: LookupQueryType;
  status: BulkLookupStatus;
  /** The service's answer (shared by every input with the same key). */
  result?: LookupResult;
  /** Why invalid or skipped, in plain words. */
  reason?: string;
  /** Why the request carrying this query failed. */
  error?: CompanyDataError;
  /** Answered from the cache given in the options rather than a request. */
  cached?: boolean;
}

export interface BulkLookupCounters {
  /** Lookup requests made (each billed per query sent). */
  requests: number;
  /** Queries sent in requests that were answered: what the service bills. */
  billedQueries: number;
  /** Distinct valid, searchable queries after dedupe (cached ones included). */
  uniqueQueries: number;
  invalid: number;
  /** Name queries without a word of 3+ characters: never sent (the service would not search them). */
  skipped: number;
  /** Distinct queries answered from the cache. */
  fromCache: number;
  /** Distinct queries whose request failed. */
  failed: number;
}

export interface BulkLookupResult {
  results: BulkLookupItem[];
  counters: BulkLookupCounters;
}

/** Anything Map-like; a Map<string, LookupResult> works. Valid for one (limit, lang) combination. */
export interface LookupCache {
  get(key: string): LookupResult | undefined;
  set(key: string, result: LookupResult): unknown;
}

export interface BulkLookupProgress {
  /** Distinct queries resolved so far (answered, cached or failed). */
  done: number;
  total: number;
  requests: number;
}

export interface BulkLookupOptions {
  /** Matches per name or VAT query, 1-10 (service default 1). */
  limit?: number;
  lang?: Lang;
  /**
   * Already-resolved answers by key. Hits are not sent; new answers are written into it, so a run
   * stopped half-way can resume with the same cache and pay only for what is missing.
   */
  cache?: LookupCache;
  onProgress?: (p: BulkLookupProgress) => void;
  /** Queries per request, 1-100. Default 100. */
  batchSize?: number;
}

/**
 * The dedupe key: the registry code, the normalised VAT number (EE + 9 digits), or the name trimmed,
 * with white space collapsed and case folded. Two inputs with the same key get the same answer.
 */
export function lookupKey(query: string): { key: string; type: LookupQueryType; send: string; skipped?: 'query_too_short' } {
  const c = classifyLookupQuery(query);
  if (c.type !== 'name') return { key: `${c.type}:${c.normalised}`, type: c.type, send: c.normalised };
  const send = c.normalised.replace(/\s+/g, ' ');
  return { key: `name:${send.normalize('NFC').toLocaleLowerCase('et')}`, type: 'name', send, skipped: c.skipped };
}

interface Unique {
  key: string;
  send: string;
  positions: number[];
}

/**
 * Resolves any number of queries with the fewest billed queries: invalid ones (bad check digit,
 * empty) and too-short names are never sent, duplicates are sent once, the rest go 100 per request
 * in input order, and every answer is mapped back to every input position.
 * A failed request marks only its own queries as error; a 401 or 403 stops the run (every later
 * request would fail the same way) and marks the remaining queries as error too.
 */
export async function bulkLookup(client: CoreClient, queries: readonly string[], opts: BulkLookupOptions = {}): Promise<BulkLookupResult> {
  const batchSize = opts.batchSize ?? LOOKUP_BATCH_SIZE;
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > LOOKUP_BATCH_SIZE) throw new RangeError('batchSize must be from 1 to 100');
  const results: BulkLookupItem[] = new Array(queries.length);
  const counters: BulkLookupCounters = { requests: 0, billedQueries: 0, uniqueQueries: 0, invalid: 0, skipped: 0, fromCache: 0, failed: 0 };
  const byKey = new Map<string, Unique>();
  const toSend: Unique[] = [];

  queries.forEach((query, i) => {
    if (typeof query !== 'string') {
      results[i] = { query: String(query), status: 'invalid', reason: 'is not text' };
      counters.invalid++;
      return;
    }
    const problem = lookupQueryProblem(query);
    if (problem) {
      results[i] = { query, status: 'invalid', reason: problem };
      counters.invalid++;
      return;
    }
    const k = lookupKey(query);
    if (k.skipped) {
      results[i] = { query, key: k.key, type: k.type, status: 'skipped', reason: 'needs a word of 3 or more characters' };
      counters.skipped++;
      return;
    }
    results[i] = { query, key: k.key, type: k.type, status: 'error' };
    const seen = byKey.get(k.key);
    if (seen) {
      seen.positions.push(i);
      return;
    }
    const u: Unique = { key: k.key, send: k.send, positions: [i] };
    byKey.set(k.key, u);
    counters.uniqueQueries++;
    const hit = opts.cache?.get(k.key);
    if (hit) {
      counters.fromCache++;
      settle(results, u, hit, true);
    } else toSend.push(u);
  });

  const total = counters.uniqueQueries;
  let done = counters.fromCache;
  let fatal: CompanyDataError | undefined;
  for (let start = 0; start < toSend.length; start += batchSize) {
    const batch = toSend.slice(start, start + batchSize);
    if (fatal) {
      fail(results, batch, fatal, counters);
    } else {
      try {
        const res = await client.companies.lookup({ queries: batch.map((u) => u.send), limit: opts.limit, lang: opts.lang });
        counters.requests++;
        counters.billedQueries += batch.length;
        const answers: LookupResult[] = Array.isArray(res.data) ? res.data : [];
        const byQuery = new Map(answers.map((a) => [a?.query, a]));
        batch.forEach((u, j) => {
          // The order is guaranteed; matching the query echo is the fallback when an entry is missing.
          const a = answers.length === batch.length ? answers[j] : byQuery.get(u.send);
          if (!a) {
            const err = new CompanyDataError('The lookup answer had no entry for this query', { code: 'missing_answer', requestId: res.requestId, hint: 'Try the query again.' });
            fail(results, [u], err, counters);
            return;
          }
          opts.cache?.set(u.key, a);
          settle(results, u, a, false);
        });
      } catch (e) {
        // A client-side ValidationError (bad limit or lang) is the caller's mistake, the same for every batch.
        if (!(e instanceof CompanyDataError) || (e instanceof ValidationError && e.status === undefined)) throw e;
        if (e.status !== undefined) counters.requests++;
        if (e instanceof AuthenticationError || e instanceof PlanRequiredError) fatal = e;
        fail(results, batch, e, counters);
      }
    }
    done += batch.length;
    opts.onProgress?.({ done, total, requests: counters.requests });
  }
  return { results, counters };
}

function settle(results: BulkLookupItem[], u: Unique, a: LookupResult, cached: boolean): void {
  const status: BulkLookupStatus = a.skipped ? 'skipped' : Array.isArray(a.matches) && a.matches.length > 0 ? 'matched' : 'no_match';
  for (const i of u.positions) {
    const r = results[i]!;
    r.status = status;
    r.result = a;
    if (a.skipped) r.reason = String(a.skipped);
    if (cached) r.cached = true;
  }
}

function fail(results: BulkLookupItem[], batch: Unique[], error: CompanyDataError, counters: BulkLookupCounters): void {
  for (const u of batch) {
    counters.failed++;
    for (const i of u.positions) {
      results[i]!.status = 'error';
      results[i]!.error = error;
    }
  }
}
