import { describe, expect, it } from 'vitest';
import { backoffDelay, decideRetry, defaultRetryOptions, type RetryOptions } from '@company-data/core/retry';

const opts = (random = 0.5, over: Partial<RetryOptions> = {}): RetryOptions => ({ ...defaultRetryOptions, random: () => random, ...over });
const fresh = { errorRetries: 0, rateLimitRetries: 0 };

describe('decideRetry', () => {
  it('retries 5xx, time-outs, resets and refused connections of safe operations', () => {
    for (const status of [500, 502, 503, 504]) expect(decideRetry('safe', { kind: 'http', status }, fresh, opts()).retry).toBe(true);
    for (const k of ['timeout', 'reset', 'refused', 'dns'] as const)
      expect(decideRetry('safe', { kind: 'transport', transportKind: k }, fresh, opts()).retry).toBe(true);
  });

  it('retries the billed lookup only when nothing can have been processed', () => {
    for (const status of [500, 502, 503, 504])
      expect(decideRetry('unprocessed-only', { kind: 'http', status }, fresh, opts()).retry).toBe(false);
    expect(decideRetry('unprocessed-only', { kind: 'transport', transportKind: 'timeout' }, fresh, opts()).retry).toBe(false);
    expect(decideRetry('unprocessed-only', { kind: 'transport', transportKind: 'reset' }, fresh, opts()).retry).toBe(false);
    expect(decideRetry('unprocessed-only', { kind: 'transport', transportKind: 'refused' }, fresh, opts()).retry).toBe(true);
    expect(decideRetry('unprocessed-only', { kind: 'http', status: 429, retryAfterMs: 2000 }, fresh, opts()).retry).toBe(true);
  });

  it('never retries client errors, 501 or unknown transport failures', () => {
    for (const status of [400, 401, 403, 404, 409, 501, 505])
      expect(decideRetry('safe', { kind: 'http', status }, fresh, opts()).retry).toBe(false);
    expect(decideRetry('safe', { kind: 'transport', transportKind: 'other' }, fresh, opts()).retry).toBe(false);
  });

  it('honours Retry-After of a 429 by pausing the queue, 1 s when missing', () => {
    expect(decideRetry('safe', { kind: 'http', status: 429, retryAfterMs: 3000 }, fresh, opts())).toEqual({
      retry: true,
      delayMs: 0,
      pauseMs: 3000,
      rateLimited: true,
    });
    expect(decideRetry('safe', { kind: 'http', status: 429 }, fresh, opts())).toMatchObject({ pauseMs: 1000 });
  });

  it('gives up on a Retry-After beyond the maximum and after the 429 budget', () => {
    expect(decideRetry('safe', { kind: 'http', status: 429, retryAfterMs: 61_000 }, fresh, opts()).retry).toBe(false);
    expect(decideRetry('safe', { kind: 'http', status: 429 }, { errorRetries: 0, rateLimitRetries: 8 }, opts()).retry).toBe(false);
    // 429 retries do not use up the error budget and vice versa.
    expect(decideRetry('safe', { kind: 'http', status: 429 }, { errorRetries: 4, rateLimitRetries: 0 }, opts()).retry).toBe(true);
  });

  it('bounds error retries', () => {
    expect(decideRetry('safe', { kind: 'http', status: 503 }, { errorRetries: 3, rateLimitRetries: 0 }, opts()).retry).toBe(true);
    expect(decideRetry('safe', { kind: 'http', status: 503 }, { errorRetries: 4, rateLimitRetries: 0 }, opts()).retry).toBe(false);
    expect(decideRetry('safe', { kind: 'http', status: 503 }, fresh, opts(0.5, { retries: 0 })).retry).toBe(false);
  });

  it('waits as a 503 Retry-After says', () => {
    expect(decideRetry('safe', { kind: 'http', status: 503, retryAfterMs: 4000 }, fresh, opts())).toMatchObject({
      delayMs: 4000,
      pauseMs: 0,
    });
  });
});

describe('backoffDelay', () => {
  it('grows exponentially between half and all of the cap, bounded by maxDelayMs', () => {
    const o = { baseDelayMs: 500, maxDelayMs: 20_000 };
    expect([1, 2, 3, 4].map((n) => backoffDelay(n, { ...o, random: () => 0 }))).toEqual([250, 500, 1000, 2000]);
    expect([1, 2, 3, 4].map((n) => backoffDelay(n, { ...o, random: () => 0.999999 }))).toEqual([500, 1000, 2000, 4000]);
    expect(backoffDelay(20, { ...o, random: () => 0.999999 })).toBe(20_000);
    expect(backoffDelay(20, { ...o, random: () => 0 })).toBe(10_000);
  });
  it('is jittered by the injected random source', () => {
    const a = backoffDelay(3, { baseDelayMs: 500, maxDelayMs: 20_000, random: () => 0.1 });
    const b = backoffDelay(3, { baseDelayMs: 500, maxDelayMs: 20_000, random: () => 0.9 });
    expect(a).toBe(1100);
    expect(b).toBe(1900);
  });
});
