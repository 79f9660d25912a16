import { describe, expect, it } from 'vitest';
import { resolveLookups } from '@company-data/core/bulk-lookup';
import { CoreClient } from '@company-data/core/client';
import { lookupKey } from '@company-data/core/lookup';
import {
  backoffDelay,
  decideRetry,
  defaultRetryOptions,
  withRetries,
  type AttemptOutcome,
  type RetryOptions,
} from '@company-data/core/retry';
import { SheetsRest } from '@company-data/core/sheets/google/sheets-rest';
import type { SheetsClock } from '@company-data/core/sheets/ports';
import { FakeClock, flush } from '../support/fake-clock';
import { ScriptedTransport, fail, ok } from '../support/scripted-transport';

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

/** A promise's state without waiting for it: what it settled with by now, or 'pending'. */
function watch<T>(p: Promise<T>) {
  const state: { settled: 'pending' | 'resolved' | 'rejected'; value?: T; error?: unknown } = { settled: 'pending' };
  p.then(
    (value) => Object.assign(state, { settled: 'resolved', value }),
    (error: unknown) => Object.assign(state, { settled: 'rejected', error }),
  );
  return state;
}

const unavailable: AttemptOutcome<string> = { ok: false, failure: { kind: 'http', status: 503 }, error: new Error('503 unavailable') };

/** An attempt that fails with 503 the first `failures` times, then answers 'done'; counts what it sent. */
function flaky(failures: number) {
  const sent: number[] = [];
  const attempt = async (n: number): Promise<AttemptOutcome<string>> => {
    sent.push(n);
    return n <= failures ? unavailable : { ok: true, value: 'done' };
  };
  return { sent, attempt };
}

describe('withRetries with an abort signal', () => {
  it('an abort during the back-off ends the wait at once: one request only, rejected with the abort reason', async () => {
    const clock = new FakeClock();
    const stop = new AbortController();
    const { sent, attempt } = flaky(10);
    const run = watch(withRetries(attempt, { policy: 'safe', options: opts(), sleep: (ms) => clock.sleep(ms), signal: stop.signal }));
    await flush();
    expect(clock.sleeps).toEqual([375]);
    expect(run.settled).toBe('pending');
    const reason = new Error('stopped by the user');
    stop.abort(reason);
    await flush();
    // Not a millisecond of the back-off has passed on the clock.
    expect(run).toMatchObject({ settled: 'rejected', error: reason });
    await clock.runAll();
    expect(sent).toEqual([1]);
  });

  it('an abort without a reason rejects with an AbortError', async () => {
    const clock = new FakeClock();
    const stop = new AbortController();
    const run = watch(
      withRetries(flaky(10).attempt, { policy: 'safe', options: opts(), sleep: (ms) => clock.sleep(ms), signal: stop.signal }),
    );
    await flush();
    stop.abort();
    await flush();
    expect(run.settled).toBe('rejected');
    expect((run.error as Error).name).toBe('AbortError');
  });

  it('hands the signal to a clock that can end its own wait', async () => {
    const stop = new AbortController();
    const given: (AbortSignal | undefined)[] = [];
    const sleep = (_ms: number, signal?: AbortSignal) => {
      given.push(signal);
      return new Promise<void>((r) => signal?.addEventListener('abort', () => r()));
    };
    const run = watch(withRetries(flaky(10).attempt, { policy: 'safe', options: opts(), sleep, signal: stop.signal }));
    await flush();
    stop.abort();
    await flush();
    expect(given).toEqual([stop.signal]);
    expect(run.settled).toBe('rejected');
  });

  it('a signal aborted before a retry: no wait and no further request', async () => {
    const clock = new FakeClock();
    const stop = new AbortController();
    const sent: number[] = [];
    const attempt = async (n: number): Promise<AttemptOutcome<string>> => {
      sent.push(n);
      stop.abort(); // Stop pressed while the first request was out
      return unavailable;
    };
    await expect(
      withRetries(attempt, { policy: 'safe', options: opts(), sleep: (ms) => clock.sleep(ms), signal: stop.signal }),
    ).rejects.toThrow(/aborted/);
    expect(sent).toEqual([1]);
    expect(clock.sleeps).toEqual([]);
  });

  it('a failure that is not retried keeps its own error, aborted or not', async () => {
    const stop = new AbortController();
    stop.abort();
    const refused = new Error('400 bad request');
    const attempt = async (): Promise<AttemptOutcome<string>> => ({ ok: false, failure: { kind: 'http', status: 400 }, error: refused });
    await expect(withRetries(attempt, { policy: 'safe', options: opts(), sleep: async () => {}, signal: stop.signal })).rejects.toBe(
      refused,
    );
  });

  it('a 429 pause of a shared queue is waited out by the call itself when it has a signal, and ends with it', async () => {
    const clock = new FakeClock();
    const stop = new AbortController();
    const paused: number[] = [];
    const sent: number[] = [];
    const attempt = async (n: number): Promise<AttemptOutcome<string>> => {
      sent.push(n);
      return { ok: false, failure: { kind: 'http', status: 429, retryAfterMs: 30_000 }, error: new Error('429') };
    };
    const run = watch(
      withRetries(attempt, {
        policy: 'safe',
        options: opts(),
        sleep: (ms) => clock.sleep(ms),
        pause: (ms) => paused.push(ms),
        signal: stop.signal,
      }),
    );
    await clock.advance(10_000);
    expect(run.settled).toBe('pending');
    stop.abort();
    await flush();
    expect(run.settled).toBe('rejected');
    expect(paused).toEqual([30_000]);
    expect(sent).toEqual([1]);
  });

  it('without a signal, as before: waits each back-off, then answers', async () => {
    const clock = new FakeClock();
    const { sent, attempt } = flaky(2);
    const run = watch(withRetries(attempt, { policy: 'safe', options: opts(), sleep: (ms) => clock.sleep(ms) }));
    await clock.advance(374);
    expect(sent).toEqual([1]);
    await clock.advance(1);
    expect(sent).toEqual([1, 2]);
    await clock.advance(750);
    expect(run).toMatchObject({ settled: 'resolved', value: 'done' });
    expect(sent).toEqual([1, 2, 3]);
    expect(clock.sleeps).toEqual([375, 750]);
  });

  it('with a signal never aborted, as without one', async () => {
    const clock = new FakeClock();
    const { sent, attempt } = flaky(2);
    const run = watch(
      withRetries(attempt, { policy: 'safe', options: opts(), sleep: (ms) => clock.sleep(ms), signal: new AbortController().signal }),
    );
    await clock.advance(1125);
    expect(run).toMatchObject({ settled: 'resolved', value: 'done' });
    expect(sent).toEqual([1, 2, 3]);
  });
});

/** A client on virtual time whose service answers 429 with Retry-After 30 s (the first `limited` times, else always). */
function slowService(limited = Infinity) {
  const clock = new FakeClock();
  const transport = new ScriptedTransport(
    (_r, n) => (n <= limited ? fail(429, 'rate_limited', 'slow', { 'retry-after': '30' }) : ok({ rated: true })),
    () => clock.now(),
  );
  const client = new CoreClient({ apiKey: 'k_test', baseUrl: 'https://api.example.test/', transport, clock });
  return { clock, transport, client };
}

describe('the callers pass their signal on', () => {
  it("the client: Stop during a 429's Retry-After sends nothing more and rejects at once", async () => {
    const { clock, transport, client } = slowService();
    const stop = new AbortController();
    const run = watch(client.risk.creditScore({ registry_code: '12417834' }, { signal: stop.signal }));
    await clock.advance(5_000);
    expect(run.settled).toBe('pending');
    stop.abort(new Error('stopped'));
    await flush();
    expect(run.settled).toBe('rejected');
    expect((run.error as Error).message).toBe('stopped');
    await clock.runAll();
    expect(transport.seen).toHaveLength(1);
  });

  it('the client without a signal retries after the Retry-After as before', async () => {
    const { clock, transport, client } = slowService(1);
    const run = watch(client.risk.creditScore({ registry_code: '12417834' }));
    await clock.advance(30_000);
    expect(run.settled).toBe('resolved');
    expect(transport.seen).toHaveLength(2);
  });

  it('the lookups of a run: Stop during a 429 settles the waiting request as not sent, nothing more is sent, nothing is lost', async () => {
    const { clock, transport, client } = slowService();
    const stop = new AbortController();
    const settled: string[] = [];
    const queries = ['12417834', '10421629'].map((q) => lookupKey(q) as { key: string; send: string });
    const run = watch(resolveLookups(client.lookupSender(), queries, { signal: stop.signal, onSettled: (key) => settled.push(key) }));
    await clock.advance(5_000);
    expect(run.settled).toBe('pending');
    stop.abort();
    await flush();
    // Stopped, not failed: the queries stay for the next run (nothing was billed for them).
    expect(run).toMatchObject({ settled: 'resolved', value: { stopped: true, billedQueries: 0, failed: 0 } });
    expect(settled).toEqual([]);
    await clock.runAll();
    expect(transport.seen).toHaveLength(1);
  });

  it("the Google table's Sheets client: Stop during Google's back-off after a 503 sends nothing more", async () => {
    const clock = new FakeClock();
    const sheetsClock: SheetsClock = { now: () => clock.now(), sleep: (ms) => clock.sleep(ms) };
    const transport = new ScriptedTransport(
      () => ({
        status: 503,
        headers: {},
        body: JSON.stringify({ error: { code: 503, status: 'UNAVAILABLE', message: 'The service is currently unavailable.' } }),
      }),
      () => clock.now(),
    );
    const stop = new AbortController();
    const rest = new SheetsRest({
      spreadsheetId: 'abc',
      transport,
      clock: sheetsClock,
      rootUrl: 'https://sheets.example.test/',
      random: () => 0.5,
      signal: stop.signal,
    });
    const run = watch(rest.send({ kind: 'read', method: 'GET', path: '' }));
    await clock.advance(100);
    expect(run.settled).toBe('pending');
    stop.abort();
    await flush();
    expect(run.settled).toBe('rejected');
    expect((run.error as Error).name).toBe('AbortError');
    await clock.runAll();
    expect(transport.seen).toHaveLength(1);
    expect(rest.calls).toMatchObject({ read: 1, retries: 1 });
  });
});
