import type { RetryPolicy } from './operation';
import { sleepUnlessAborted } from './sleep';
import type { TransportErrorKind } from './transport';

/**
 * Retry policy of the client.
 *
 * Every operation is marked in the operation table with `retry: 'safe'` or `retry: 'unprocessed-only'`.
 *
 * - 429 rate_limited is retried for every operation: the service refused the request before doing
 *   any work. The wait is the Retry-After header (seconds or an HTTP date; 1 second when missing), and
 *   the whole client queue pauses for it, not only the request that got the 429.
 * - Connection refused and host-name failures are retried for every operation: nothing reached the
 *   service.
 * - 'safe' operations (all reads, and writes that give the same result when repeated) are also retried
 *   after 500, 502, 503 and 504 answers, time-outs and broken (reset) connections.
 * - 'unprocessed-only' operations (the billed bulk lookup, and creating things) are NOT retried after
 *   5xx, time-outs or resets: the service may already have processed, and billed, the request.
 *   The caller gets the error and decides.
 * - Other answers (400, 401, 403, 404, 501 ...) are never retried.
 *
 * Waits grow exponentially with jitter: attempt n waits between half and all of
 * min(maxDelayMs, baseDelayMs * 2^(n-1)) (defaults 500 ms and 20 s). A 503 with Retry-After waits as
 * told. At most `retries` retries after errors (default 4) and `rateLimitRetries` after 429 (default 8);
 * a Retry-After longer than `maxRetryAfterMs` (default 60 s) is not waited for but returned as a
 * RateLimitError with retryAfterMs.
 */
export interface RetryOptions {
  retries: number;
  rateLimitRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  maxRetryAfterMs: number;
  /** Wait after a 429 without Retry-After. */
  defaultRetryAfterMs: number;
  /** Random source in [0, 1), injectable for tests. */
  random: () => number;
  /**
   * A 429 also backs off exponentially (the wait is the longer of Retry-After and the back-off step), as
   * Google advises for its quotas; the service's 429 waits for Retry-After alone. Default false.
   */
  rateLimitBackoff?: boolean;
}

export const defaultRetryOptions: RetryOptions = {
  retries: 4,
  rateLimitRetries: 8,
  baseDelayMs: 500,
  maxDelayMs: 20_000,
  maxRetryAfterMs: 60_000,
  defaultRetryAfterMs: 1000,
  random: Math.random,
};

export type Failure = { kind: 'http'; status: number; retryAfterMs?: number } | { kind: 'transport'; transportKind: TransportErrorKind };

export interface RetryState {
  /** Retries already made after errors other than 429. */
  errorRetries: number;
  /** Retries already made after 429. */
  rateLimitRetries: number;
}

export type RetryDecision =
  | { retry: false }
  /** delayMs: wait before this request only; pauseMs: pause the whole client queue. */
  | { retry: true; delayMs: number; pauseMs: number; rateLimited: boolean };

const RETRIABLE_STATUS = new Set([500, 502, 503, 504]);

export function backoffDelay(retryNumber: number, opts: Pick<RetryOptions, 'baseDelayMs' | 'maxDelayMs' | 'random'>): number {
  const cap = Math.min(opts.maxDelayMs, opts.baseDelayMs * 2 ** Math.max(0, retryNumber - 1));
  return Math.round(cap / 2 + (opts.random() * cap) / 2);
}

export function decideRetry(
  policy: RetryPolicy,
  failure: Failure,
  state: RetryState,
  opts: RetryOptions = defaultRetryOptions,
): RetryDecision {
  if (failure.kind === 'http' && failure.status === 429) {
    if (state.rateLimitRetries >= opts.rateLimitRetries) return { retry: false };
    const told = failure.retryAfterMs ?? (opts.rateLimitBackoff ? 0 : opts.defaultRetryAfterMs);
    if (told > opts.maxRetryAfterMs) return { retry: false };
    const wait = opts.rateLimitBackoff ? Math.max(told, backoffDelay(state.rateLimitRetries + 1, opts)) : told;
    return { retry: true, delayMs: 0, pauseMs: wait, rateLimited: true };
  }
  if (state.errorRetries >= opts.retries) return { retry: false };
  const n = state.errorRetries + 1;
  if (failure.kind === 'transport') {
    const k = failure.transportKind;
    const nothingSent = k === 'refused' || k === 'dns';
    const maybeProcessed = k === 'reset' || k === 'timeout';
    if (nothingSent || (policy === 'safe' && maybeProcessed))
      return { retry: true, delayMs: backoffDelay(n, opts), pauseMs: 0, rateLimited: false };
    return { retry: false };
  }
  if (policy === 'safe' && RETRIABLE_STATUS.has(failure.status)) {
    const told = failure.retryAfterMs;
    const delayMs = told !== undefined && told <= opts.maxRetryAfterMs ? told : backoffDelay(n, opts);
    return { retry: true, delayMs, pauseMs: 0, rateLimited: false };
  }
  return { retry: false };
}

/** One attempt's outcome: its value, or the failure (for the decision) and the error to throw when it is not retried. */
export type AttemptOutcome<T> = { ok: true; value: T } | { ok: false; failure: Failure; error: unknown };

export interface RetryLoopOptions {
  policy: RetryPolicy;
  options?: RetryOptions;
  /** The wait before the next attempt; a clock that takes the signal ends it early (the loop does not wait on it after an abort either way). */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** Holds every caller's requests for ms (a 429 pauses a whole queue); without it, this call sleeps. */
  pause?(ms: number): void;
  /** Told before each wait: which attempt failed, why, and how long the wait is. */
  onRetry?(info: { attempt: number; error: unknown; delayMs: number }): void;
  /**
   * Ends the retrying (n8n's Stop, the CLI's Ctrl-C): once it aborts, no further attempt is sent and a
   * wait under way is cut short; the call rejects with the signal's reason. The first attempt is the
   * caller's to decide (the Sheets engine still saves, once, what was paid for after Stop).
   */
  signal?: AbortSignal;
}

/** What an aborted signal rejects with: its reason, or an AbortError when it gave none. */
export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? Object.assign(new Error('The operation was aborted'), { name: 'AbortError' });
}

/**
 * The one retry loop: the client's requests to the service and the Google Sheets table's requests to
 * Google both go through it, each with its own policy and options (decideRetry says when to retry).
 */
export async function withRetries<T>(attempt: (n: number) => Promise<AttemptOutcome<T>>, o: RetryLoopOptions): Promise<T> {
  const state: RetryState = { errorRetries: 0, rateLimitRetries: 0 };
  const stopped = () => o.signal?.aborted === true;
  for (let n = 1; ; n++) {
    const out = await attempt(n);
    if (out.ok) return out.value;
    const decision = decideRetry(o.policy, out.failure, state, o.options);
    if (!decision.retry) throw out.error;
    if (stopped()) throw abortReason(o.signal!);
    if (decision.rateLimited) state.rateLimitRetries++;
    else state.errorRetries++;
    o.onRetry?.({ attempt: n, error: out.error, delayMs: decision.delayMs || decision.pauseMs });
    if (decision.pauseMs > 0) {
      o.pause?.(decision.pauseMs);
      // The paused queue's wait cannot be called off: with a signal, this call waits out the pause itself.
      if (!o.pause || o.signal) await sleepUnlessAborted((ms, s) => o.sleep(ms, s), decision.pauseMs, o.signal);
    }
    if (decision.delayMs > 0 && !stopped()) await sleepUnlessAborted((ms, s) => o.sleep(ms, s), decision.delayMs, o.signal);
    if (stopped()) throw abortReason(o.signal!);
  }
}
