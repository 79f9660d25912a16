import { AuthenticationError, CompanyDataError, NotSentError, PlanRequiredError, ValidationError } from './errors';
import { answerStatus, readQuery, type LookupStatus, type QueryReading } from './lookup';
import { lookup } from './operations/companies';
import type { Lang } from './schemas/common';
import type { LookupResult } from './schemas/company';
import type { LookupQueryType } from './validation';

/** Most queries the service takes in one lookup request: the operation table's bulk limit. */
export const LOOKUP_BATCH_SIZE = lookup.bulk!.max;

/**
 * Lookup requests kept in flight at most. The client's rate limiter decides when each starts; this
 * only bounds memory: 32 requests cover 10 requests/s with round trips of up to 3 seconds.
 */
export const DEFAULT_MAX_IN_FLIGHT = 32;

/** One billed lookup request: what the client's companies.lookup does. */
export type LookupSender = (
  input: { queries: string[]; limit?: number; lang?: Lang },
  opts?: { shouldStart?: () => boolean; signal?: AbortSignal },
) => Promise<{ data: unknown; requestId: string }>;

export interface BulkLookupItem {
  /** The input exactly as given. */
  query: string;
  /** Dedupe and cache key (see lookupKey); absent for invalid queries. */
  key?: string;
  type?: LookupQueryType;
  status: LookupStatus;
  /** The service's answer (shared by every input with the same key). */
  result?: LookupResult;
  /** Why invalid or skipped, in plain words. */
  reason?: string;
  /** More about the status: the number of VAT holders of a VAT group, "last VAT holder". */
  detail?: string;
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

/**
 * Anything Map-like; a Map<string, LookupResult> works. Valid for one (limit, lang) combination.
 * The optional members let a cache on disk (the Sheets enrich's journal and answer cache) take part
 * in the same pipeline without reading every answer into memory first.
 */
export interface LookupCache {
  get(key: string): LookupResult | undefined;
  set(key: string, result: LookupResult): unknown;
  /** Whether get would answer, without reading the answer (the dry run). Defaults to get(key) !== undefined. */
  has?(key: string): boolean;
  /** Told every key of the run once, before any get: the place to index a file for just those keys. */
  prepare?(keys: readonly string[]): void;
  /**
   * Records the answers of one request in one go, as it arrives and before its queries are settled;
   * when present it replaces set (one write and one fsync per request instead of per answer).
   */
  record?(answers: readonly { key: string; answer: LookupResult }[]): void;
}

export interface BulkLookupProgress {
  /** Distinct queries resolved so far (answered, cached or failed). */
  done: number;
  total: number;
  requests: number;
}

export interface BatchOptions {
  /** Matches per name or VAT query, 1-10 (service default 1). */
  limit?: number;
  lang?: Lang;
  /** Queries per request, 1-100. Default 100. */
  batchSize?: number;
  /** Lookup requests in flight at most (default 32); the rate limiter paces them. */
  maxInFlight?: number;
}

export interface BulkLookupOptions extends BatchOptions {
  /**
   * Already-resolved answers by key. Hits are not sent; new answers are written into it, so a run
   * stopped half-way can resume with the same cache and pay only for what is missing.
   */
  cache?: LookupCache;
  onProgress?: (p: BulkLookupProgress) => void;
  /**
   * Most queries this call may bill. When the unique queries not in the cache are more, nothing is
   * sent and a ValidationError says how many it would bill.
   */
  maxBilledQueries?: number;
}

/** A query to send: its dedupe key and the text sent. */
export interface SendQuery {
  key: string;
  send: string;
}

/** The outcome of one request, for the queries it carried (in the order sent). */
export type BatchOutcome =
  | { index: number; queries: readonly SendQuery[]; answers: LookupResult[]; requestId: string }
  /** sent: whether the request reached the service (false after a 401/403 stopped sending). */
  | { index: number; queries: readonly SendQuery[]; error: CompanyDataError; sent: boolean; answers?: undefined };

export type QuerySettled = { answer: LookupResult; error?: undefined } | { answer?: undefined; error: CompanyDataError };

export interface LookupBatchesOptions extends BatchOptions {
  /**
   * Called as each request is answered, in the order the answers ARRIVE (not the order sent): the
   * place to record what was paid for, before anything else can go wrong.
   */
  onAnswered?: (outcome: BatchOutcome & { answers: LookupResult[] }) => void;
  /**
   * Called once per query in the order sent, whatever order the answers came in: its answer, or the
   * error it has instead (its request failed or was not sent, or the answer had no entry for it).
   */
  onQuerySettled?: (query: SendQuery, settled: QuerySettled) => void;
  /** After each request's queries are settled: queries settled so far, and requests settled that reached the service. */
  onProgress?: (progress: { settled: number; requests: number }) => void;
  /** Checked before each request is started: true stops sending (requests in flight still finish). */
  shouldStop?: () => boolean;
  /**
   * Stops sending as shouldStop does, and also ends the retrying of a request waiting to be sent again
   * (a 429's Retry-After): that request is settled as not sent, since the service processed none of it.
   */
  signal?: AbortSignal;
}

export interface LookupBatchesResult {
  requests: number;
  billedQueries: number;
  /** Some queries were not sent because shouldStop said so. */
  stopped: boolean;
}

class Signal {
  private waiters: (() => void)[] = [];
  wait(): Promise<void> {
    return new Promise((r) => this.waiters.push(r));
  }
  notify(): void {
    for (const w of this.waiters.splice(0)) w();
  }
}

/**
 * Sends queries `batchSize` per request with up to `maxInFlight` requests in flight: the client's
 * rate limiter, not the round trip, sets the pace. Requests queue at the limiter in order, so they
 * start in order; answers may arrive in any order and are handed to onAnswered at once, then each
 * query to onQuerySettled in the order sent. A request never starts more than maxInFlight batches ahead of the
 * oldest unsettled one, so a slow answer cannot make the waiting results grow without bound.
 * A failed request settles only its own queries as error; a 401 or 403 stops sending (every later
 * request would fail alike) and settles the rest with that error. Nothing is retried here: the
 * client retries what the service cannot have processed (429, refused connections) and nothing else.
 */
export async function lookupInBatches(
  send: LookupSender,
  queries: readonly SendQuery[],
  opts: LookupBatchesOptions = {},
): Promise<LookupBatchesResult> {
  const batchSize = opts.batchSize ?? LOOKUP_BATCH_SIZE;
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > LOOKUP_BATCH_SIZE)
    throw new RangeError(`batchSize must be from 1 to ${LOOKUP_BATCH_SIZE}`);
  const maxInFlight = opts.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
  if (!Number.isInteger(maxInFlight) || maxInFlight < 1) throw new RangeError('maxInFlight must be a whole number of 1 or more');
  return new BatchRun(send, queries, opts, batchSize, maxInFlight).run();
}

/** One lookupInBatches call: the requests it starts, the answers waiting for their turn, and how it ends. */
class BatchRun {
  private readonly result: LookupBatchesResult = { requests: 0, billedQueries: 0, stopped: false };
  private readonly batches: number;
  private readonly waiting = new Map<number, BatchOutcome>();
  private readonly advanced = new Signal();
  private nextToStart = 0;
  private nextToSettle = 0;
  private settledQueries = 0;
  private settledRequests = 0;
  private fatal: CompanyDataError | undefined;
  private thrown: { error: unknown } | undefined;

  constructor(
    private readonly send: LookupSender,
    private readonly queries: readonly SendQuery[],
    private readonly opts: LookupBatchesOptions,
    private readonly batchSize: number,
    private readonly maxInFlight: number,
  ) {
    this.batches = Math.ceil(queries.length / batchSize);
  }

  async run(): Promise<LookupBatchesResult> {
    await Promise.all(Array.from({ length: Math.min(this.maxInFlight, this.batches) }, () => this.worker()));
    if (this.thrown) throw this.thrown.error;
    return this.result;
  }

  private async worker(): Promise<void> {
    while (!this.thrown) {
      // The window: do not run further ahead of the oldest unsettled request than maxInFlight.
      while (this.nextToStart < this.batches && this.nextToStart - this.nextToSettle >= this.maxInFlight && !this.thrown)
        await this.advanced.wait();
      if (this.thrown || this.nextToStart >= this.batches || (!this.fatal && this.stopping())) return;
      const index = this.nextToStart++;
      // What runOne throws is a bug or a callback's error (onAnswered, onQuerySettled): it ends the run too.
      await this.runOne(index).catch((e: unknown) => this.abort(e));
    }
  }

  private async runOne(index: number): Promise<void> {
    const batch = this.queries.slice(index * this.batchSize, (index + 1) * this.batchSize);
    if (this.fatal) return this.settle({ index, queries: batch, error: this.fatal, sent: false });
    let res: { data: unknown; requestId: string };
    try {
      res = await this.send(
        { queries: batch.map((q) => q.send), limit: this.opts.limit, lang: this.opts.lang },
        { shouldStart: () => !this.stopping(), ...(this.opts.signal ? { signal: this.opts.signal } : {}) },
      );
    } catch (e) {
      return this.failed(index, batch, e);
    }
    this.result.requests++;
    this.result.billedQueries += batch.length;
    const answers = alignAnswers(batch, res);
    const outcome = { index, queries: batch, answers, requestId: res.requestId };
    this.opts.onAnswered?.(outcome);
    this.settle(outcome);
  }

  /** A request that threw: its queries settled with the error, or the whole run ended by it. */
  private failed(index: number, batch: readonly SendQuery[], e: unknown): void {
    // Queued when a 401 arrived: fails alike. Queued when stopped: settled as not sent, for a later run.
    if (e instanceof NotSentError) return this.settle({ index, queries: batch, error: this.fatal ?? e, sent: false });
    // Its retry given up by the signal (the client retries only what the service did not process): likewise.
    if (this.opts.signal?.aborted && !(e instanceof CompanyDataError)) {
      this.stopping();
      return this.settle({ index, queries: batch, error: this.fatal ?? new NotSentError(), sent: false });
    }
    // A client-side ValidationError (bad limit or lang) is the caller's mistake, the same for every batch:
    // it ends the run, and lookupInBatches rejects with it.
    if (!(e instanceof CompanyDataError) || (e instanceof ValidationError && e.status === undefined)) return this.abort(e);
    if (e.status !== undefined) this.result.requests++;
    if (e instanceof AuthenticationError || e instanceof PlanRequiredError) this.fatal ??= e;
    return this.settle({ index, queries: batch, error: e, sent: e.status !== undefined });
  }

  /** Keeps an outcome until every request sent before it is settled, then settles each query in the order sent. */
  private settle(o: BatchOutcome): void {
    this.waiting.set(o.index, o);
    while (this.waiting.has(this.nextToSettle)) {
      const ready = this.waiting.get(this.nextToSettle)!;
      this.waiting.delete(this.nextToSettle);
      this.nextToSettle++;
      if (ready.answers || ready.sent) this.settledRequests++;
      ready.queries.forEach((q, j) => {
        const answer = ready.answers?.[j];
        this.opts.onQuerySettled?.(q, answer ? { answer } : { error: ready.answers ? missingAnswer(ready.requestId) : ready.error });
      });
      this.settledQueries += ready.queries.length;
      this.opts.onProgress?.({ settled: this.settledQueries, requests: this.settledRequests });
    }
    this.advanced.notify();
  }

  // Asked when the rate limiter lets a request go: one queued before a 401 or a stop is not sent.
  private stopping(): boolean {
    if (!this.fatal && !this.result.stopped && (this.opts.shouldStop?.() || this.opts.signal?.aborted)) this.result.stopped = true;
    return !!this.fatal || this.result.stopped;
  }

  /** Ends the run: no request starts after it, those in flight finish, then lookupInBatches rejects with the first error. */
  private abort(error: unknown): void {
    this.thrown ??= { error };
    this.advanced.notify();
  }
}

/** Answers in the order sent (guaranteed); matching the query echo is the fallback when one is missing. */
function alignAnswers(batch: readonly SendQuery[], res: { data: unknown; requestId: string }): LookupResult[] {
  const answers: LookupResult[] = Array.isArray(res.data) ? res.data : [];
  if (answers.length === batch.length) return answers;
  const byQuery = new Map(answers.map((a) => [a?.query, a]));
  return batch.map((q) => byQuery.get(q.send)!);
}

function missingAnswer(requestId: string): CompanyDataError {
  return new CompanyDataError('The lookup answer had no entry for this query', {
    code: 'missing_answer',
    requestId,
    hint: 'Try the query again.',
  });
}

/**
 * The distinct queries of a run in first-seen order: each input is read once (readQuery), invalid and
 * too-short ones are settled there for free, duplicates share one key. The one dedupe of bulkLookup,
 * the Sheets enrich and the n8n Lookup.
 */
export class QueryDedupe {
  /** Key → text sent, in first-seen order. */
  readonly unique = new Map<string, string>();

  /** `reading`: readQuery(query) when the caller has it already (enrich memoises it for repeated cells). */
  read(query: unknown, reading?: QueryReading): QueryReading {
    const q = reading ?? readQuery(query);
    if (q.status === 'send' && !this.unique.has(q.key)) this.unique.set(q.key, q.send);
    return q;
  }

  queries(): SendQuery[] {
    return Array.from(this.unique, ([key, send]) => ({ key, send }));
  }
}

/**
 * How one distinct query was settled, decided once (answerStatus) for every input that shares it:
 * an answer (from the cache or paid) or the error its request ended with.
 */
export type LookupSettled =
  | { status: Exclude<LookupStatus, 'invalid' | 'error'>; detail?: string; answer: LookupResult; cached: boolean; error?: undefined }
  | { status: 'error'; error: CompanyDataError; answer?: undefined; detail?: undefined; cached?: undefined };

export interface ResolveOptions extends BatchOptions {
  cache?: LookupCache;
  /**
   * Most queries this run may bill. When the distinct queries the cache cannot answer are more,
   * nothing is sent and a ValidationError says how many it would bill ("check before paying").
   */
  maxBilledQueries?: number;
  /** The refusal over the cap in the caller's words (default: a ValidationError naming max_billed_queries). */
  overCap?: (max: number, wouldBill: number) => Error;
  /** Count what would be billed without sending anything or reading any answer. */
  dryRun?: boolean;
  /** Each distinct query once: cached ones first, then the rest in the order sent. Not called for queries left unsent by a stop. */
  onSettled?: (key: string, settled: LookupSettled) => void;
  onProgress?: (p: BulkLookupProgress) => void;
  shouldStop?: () => boolean;
  /** See LookupBatchesOptions.signal. */
  signal?: AbortSignal;
  /** Once the spending cap is passed, before the first request: from here on the run is not refused. */
  onSending?: () => void;
}

export interface ResolveResult {
  requests: number;
  billedQueries: number;
  uniqueQueries: number;
  fromCache: number;
  failed: number;
  /** Some queries were not sent because shouldStop said so. */
  stopped: boolean;
}

/**
 * The back half of the one lookup pipeline: answers what the cache holds, refuses above the spending
 * cap before anything is sent, pays for the rest (lookupInBatches: 100 per request, in flight up to the
 * rate limit), records each answer in the cache as its request arrives, and settles each query once.
 */
export async function resolveLookups(send: LookupSender, queries: readonly SendQuery[], opts: ResolveOptions = {}): Promise<ResolveResult> {
  const cache = opts.cache;
  const res: ResolveResult = { requests: 0, billedQueries: 0, uniqueQueries: queries.length, fromCache: 0, failed: 0, stopped: false };
  cache?.prepare?.(queries.map((q) => q.key));
  const toSend: SendQuery[] = [];
  for (const q of queries) {
    if (opts.dryRun) {
      if (cache && (cache.has ? cache.has(q.key) : cache.get(q.key) !== undefined)) res.fromCache++;
      else toSend.push(q);
      continue;
    }
    const hit = cache?.get(q.key);
    if (!hit) {
      // Not cached, or a cached line damaged on disk: paid for.
      toSend.push(q);
      continue;
    }
    res.fromCache++;
    opts.onSettled?.(q.key, { ...answerStatus(hit), answer: hit, cached: true });
  }
  const max = opts.maxBilledQueries;
  if (max !== undefined && toSend.length > max) {
    if (opts.overCap) throw opts.overCap(max, toSend.length);
    throw new ValidationError({
      field: 'max_billed_queries',
      rule: `is ${max}, but this run would bill ${toSend.length} unique queries; raise it or send fewer items`,
      hint: 'Nothing was sent and nothing was billed.',
    });
  }
  if (opts.dryRun) {
    const size = opts.batchSize ?? LOOKUP_BATCH_SIZE;
    return { ...res, requests: Math.ceil(toSend.length / size), billedQueries: toSend.length };
  }
  opts.onSending?.();
  const r = await lookupInBatches(send, toSend, {
    limit: opts.limit,
    lang: opts.lang,
    batchSize: opts.batchSize,
    maxInFlight: opts.maxInFlight,
    shouldStop: opts.shouldStop,
    ...(opts.signal ? { signal: opts.signal } : {}),
    onAnswered: (o) => {
      if (!cache) return;
      const paid = o.queries.flatMap((q, j) => (o.answers[j] ? [{ key: q.key, answer: o.answers[j] }] : []));
      if (cache.record) cache.record(paid);
      else for (const p of paid) cache.set(p.key, p.answer);
    },
    onQuerySettled: (q, s) => {
      // A query left unsent by a stop is not settled: it stays for the next run.
      if (s.error instanceof NotSentError) return;
      if (s.error) res.failed++;
      opts.onSettled?.(
        q.key,
        s.answer ? { ...answerStatus(s.answer), answer: s.answer, cached: false } : { status: 'error', error: s.error },
      );
    },
    onProgress: (p) => opts.onProgress?.({ done: res.fromCache + p.settled, total: queries.length, requests: p.requests }),
  });
  return { ...res, requests: r.requests, billedQueries: r.billedQueries, stopped: r.stopped };
}

/**
 * Resolves any number of queries with the fewest billed queries: invalid ones (bad check digit,
 * empty) and too-short names are never sent, duplicates are sent once, the rest go 100 per request
 * in input order with requests in flight up to the rate limit, and every answer is mapped back to
 * every input position.
 */
export async function bulkLookup(send: LookupSender, queries: readonly string[], opts: BulkLookupOptions = {}): Promise<BulkLookupResult> {
  const results: BulkLookupItem[] = new Array(queries.length);
  const counters: BulkLookupCounters = { requests: 0, billedQueries: 0, uniqueQueries: 0, invalid: 0, skipped: 0, fromCache: 0, failed: 0 };
  const dedupe = new QueryDedupe();
  const positions = new Map<string, number[]>();

  queries.forEach((query, i) => {
    const q = dedupe.read(query);
    if (q.status === 'invalid') {
      results[i] = { query: String(query), status: 'invalid', reason: q.reason };
      counters.invalid++;
      return;
    }
    if (q.status === 'skipped') {
      results[i] = { query, key: q.key, type: q.type, status: 'skipped', reason: q.reason };
      counters.skipped++;
      return;
    }
    results[i] = { query, key: q.key, type: q.type, status: 'error' };
    const seen = positions.get(q.key);
    if (seen) seen.push(i);
    else positions.set(q.key, [i]);
  });

  const r = await resolveLookups(send, dedupe.queries(), {
    limit: opts.limit,
    lang: opts.lang,
    batchSize: opts.batchSize,
    maxInFlight: opts.maxInFlight,
    cache: opts.cache,
    maxBilledQueries: opts.maxBilledQueries,
    onSettled: (key, s) => {
      for (const i of positions.get(key)!) {
        const item = results[i]!;
        item.status = s.status;
        if (s.status === 'error') item.error = s.error;
        else {
          item.result = s.answer;
          // One skip reason, whoever skipped: the sentence of SKIPPED_REASON (lookup.ts).
          if (s.status === 'skipped') item.reason = s.detail;
          else if (s.detail) item.detail = s.detail;
          if (s.cached) item.cached = true;
        }
      }
    },
    onProgress: opts.onProgress,
  });
  Object.assign(counters, {
    requests: r.requests,
    billedQueries: r.billedQueries,
    uniqueQueries: r.uniqueQueries,
    fromCache: r.fromCache,
    failed: r.failed,
  });
  return { results, counters };
}
