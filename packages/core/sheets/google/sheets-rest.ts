import { parseRetryAfter } from '../../errors';
import { RateLimiter } from '../../limiter';
import type { HttpMethod } from '../../operation';
import { defaultRetryOptions, withRetries, type AttemptOutcome, type RetryOptions } from '../../retry';
import { TransportError, type TransportResponse } from '../../transport';
import { queryString } from '../../web-free';
import type { SheetsRestTableOptions } from './options';
import { googleErrorOf, sheetsError } from './sheets-errors';

/** Google's cap on one back-off wait. */
const MAX_BACKOFF_MS = 64_000;

/** One request to a spreadsheet: the path after v4/spreadsheets/{id}, its query and JSON body. */
export interface SheetsCall {
  kind: 'read' | 'write';
  method: HttpMethod;
  /** After the spreadsheet id: '', ':batchUpdate', '/values/<range, encoded>', '/values:batchGet' … */
  path: string;
  query?: readonly (readonly [string, string])[];
  body?: string;
  /** Retried after 5xx and broken connections too (the request gives the same result twice); appends are not. */
  idempotent?: boolean;
}

/**
 * Sheets REST v4 over the core's Transport: the URL as Google's discovery document names it, the
 * token from the token source (renewed once on a 401), Google's per-minute quotas kept by the client's
 * limiter, and 429 and 5xx retried by the core's one retry loop with Google's back-off (doubling, 64 s
 * at most, Retry-After when longer). Answers are parsed JSON; a refusal is a SheetsError saying what to do.
 */
export class SheetsRest {
  readonly calls = { read: 0, write: 0, retries: 0 };
  private readonly root: string;
  /**
   * Google's per-minute quotas, kept by the client's limiter: it counts each call from its start plus
   * how late it may have reached Google, so calls whose trips differ cannot bunch up in Google's minute.
   */
  private readonly quota: Record<'read' | 'write', RateLimiter>;
  private readonly retry: RetryOptions;

  constructor(private readonly o: SheetsRestTableOptions) {
    const root = o.rootUrl ?? 'https://sheets.googleapis.com/';
    this.root = root.endsWith('/') ? root : `${root}/`;
    this.quota = {
      read: new RateLimiter(o.clock, { requests: o.readsPerMinute ?? 60, perMs: 60_000 }),
      write: new RateLimiter(o.clock, { requests: o.writesPerMinute ?? 60, perMs: 60_000 }),
    };
    const max = o.maxRetries ?? 6;
    this.retry = {
      ...defaultRetryOptions,
      retries: max,
      rateLimitRetries: max,
      baseDelayMs: o.backoffBaseMs ?? 1000,
      maxDelayMs: MAX_BACKOFF_MS,
      maxRetryAfterMs: Number.POSITIVE_INFINITY,
      random: o.random ?? Math.random,
      rateLimitBackoff: true,
    };
  }

  /** For messages: the service account to share with, and what a 401 means. */
  private get context() {
    return { spreadsheetId: this.o.spreadsheetId, account: this.o.tokens?.account, on401: this.o.tokens?.on401 };
  }

  private url(c: SheetsCall): string {
    const q = queryString(c.query ?? []);
    const search = q ? `?${q}` : '';
    return `${this.root}v4/spreadsheets/${encodeURIComponent(this.o.spreadsheetId)}${c.path}${search}`;
  }

  /** Sends one call within the quota, with the retries; resolves with Google's parsed answer. */
  async send<T>(c: SheetsCall): Promise<T> {
    const url = this.url(c);
    const res = await withRetries(() => this.attempt(c, url), {
      policy: c.idempotent === false ? 'unprocessed-only' : 'safe',
      options: this.retry,
      sleep: (ms, signal) => this.o.clock.sleep(ms, signal),
      onRetry: () => void this.calls.retries++,
      ...(this.o.signal ? { signal: this.o.signal } : {}),
    });
    return (res.body ? JSON.parse(res.body) : {}) as T;
  }

  private async attempt(c: SheetsCall, url: string): Promise<AttemptOutcome<TransportResponse>> {
    const release = await this.quota[c.kind].acquire();
    this.calls[c.kind]++;
    let res: TransportResponse;
    try {
      res = await this.request(c, url);
    } catch (e) {
      // Not an answer: the token source's own errors (worded for the user) go as they are.
      // eslint-disable-next-line @n8n/community-nodes/require-node-api-error -- shared with the CLI; the node converts errors at its entry points
      if (!(e instanceof TransportError)) throw e;
      const error = sheetsError(undefined, undefined, `no answer (${e.kind}): ${e.message}`, this.context);
      return { ok: false, failure: { kind: 'transport', transportKind: e.kind }, error };
    } finally {
      release();
    }
    if (res.status < 400) return { ok: true, value: res };
    const error = sheetsError(res.status, googleErrorOf(res.body), `HTTP ${res.status}`, this.context);
    const retryAfterMs = parseRetryAfter(res.headers['retry-after'], this.o.clock.now());
    return { ok: false, failure: { kind: 'http', status: res.status, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) }, error };
  }

  /** One request; a 401 renews the token once and sends again (Google did not take the request, so that is safe). */
  private async request(c: SheetsCall, url: string): Promise<TransportResponse> {
    const tokens = this.o.tokens;
    for (let renewed = false; ; renewed = true) {
      const headers: Record<string, string> = { accept: 'application/json', ...(tokens ? await tokens.authorize() : {}) };
      if (c.body !== undefined) headers['content-type'] = 'application/json';
      const res = await this.o.transport.request({
        method: c.method,
        url,
        headers,
        ...(c.body !== undefined ? { body: c.body } : {}),
        timeoutMs: this.o.timeoutMs ?? 120_000,
      });
      if (res.status !== 401 || renewed || !tokens || !(await tokens.renew())) return res;
    }
  }
}
