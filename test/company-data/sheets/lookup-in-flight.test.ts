/**
 * The lookup engine against a distant service: the sandbox's latency model (round trip + per-query
 * service time with jitter) over real HTTP. Requests overlap, answers come back out of order, results
 * stay in row order; a 429 pauses the whole queue; a lookup that may have been processed is not sent again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompanyDataClient } from '../../../packages/company-data/src/index';
import { startSandbox, type Sandbox } from '../../../packages/company-data/src/sandbox';
import { UndiciTransport } from '../../../packages/company-data/src/transport/undici';
import type { Transport } from '@company-data/core/transport';

interface Seen {
  start: number;
  end: number;
  status: number | string;
  first: string;
}

/** The real transport, recording when each lookup started and ended, and how. */
function recording(seen: Seen[]): Transport & { close(): Promise<void> } {
  const inner = new UndiciTransport();
  return {
    async request(req) {
      const first = req.body ? ((JSON.parse(req.body) as { queries?: string[] }).queries?.[0] ?? '') : '';
      const s: Seen = { start: Date.now(), end: 0, status: 'pending', first };
      seen.push(s);
      try {
        const res = await inner.request(req);
        s.status = res.status;
        return res;
      } catch (e) {
        s.status = (e as { kind?: string }).kind ?? 'error';
        throw e;
      } finally {
        s.end = Date.now();
      }
    },
    close: () => inner.close(),
  };
}

const MAIN_KEY = 'sk_in_flight_main_000000000000000000';
const KEY_429 = 'sk_in_flight_429_0000000000000000001';
const KEY_RESET = 'sk_in_flight_reset_00000000000000002';
let sb: Sandbox;
let codes: string[];
beforeAll(async () => {
  // Three accounts: each test has its own usage counter and fault queue.
  const keys = [MAIN_KEY, KEY_429, KEY_RESET].map((key) => ({ key, plan: 'api' as const }));
  sb = await startSandbox({ port: 0, seed: 1, companies: 4000, keys, latency: { latencyMs: 400, perQueryMs: 2, jitter: 1 } });
  codes = sb.dataset.companies.slice(0, 3000).map((c) => c.code);
});
afterAll(async () => sb.close());

const fault = (key: string, body: unknown) =>
  fetch(`${sb.url}/sandbox/faults`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  }).then((r) => expect(r.status).toBe(201));

describe('bulk lookup against a distant service', () => {
  it('keeps several requests in flight, takes answers in any order, returns results in row order, bills each unique query once', async () => {
    const seen: Seen[] = [];
    const transport = recording(seen);
    const client = new CompanyDataClient({ baseUrl: sb.url, apiKey: sb.apiKey, transport });
    // Every code twice, the second time with spaces: 6,000 rows, 3,000 unique, 30 requests.
    const rows = [...codes, ...codes.map((c) => ` ${c} `)];
    const billed0 = sb.usage(sb.apiKey).billed_lookup_queries;
    const progress: number[] = [];
    const { results, counters } = await client.bulkLookup(rows, { onProgress: (p) => progress.push(p.done) });
    await client.close();

    expect(sb.usage(sb.apiKey).billed_lookup_queries - billed0).toBe(3000);
    expect(counters).toMatchObject({ requests: 30, billedQueries: 3000, uniqueQueries: 3000, failed: 0 });
    // Row order: every row carries the answer to its own code.
    results.forEach((r, i) => {
      expect(r.status).toBe('matched');
      expect(r.result!.query).toBe(codes[i % 3000]);
      expect(r.query).toBe(rows[i]);
    });
    // Overlap: some request started before an earlier one had its answer.
    const maxInFlight = Math.max(...seen.map((s) => seen.filter((o) => o.start <= s.start && o.end > s.start).length));
    expect(maxInFlight).toBeGreaterThan(1);
    // Out of order: with the service time's spread, answers did not arrive in the order sent.
    const byEnd = [...seen].sort((a, b) => a.end - b.end).map((s) => s.first);
    expect(byEnd).not.toEqual(seen.map((s) => s.first));
    // Yet progress (and the results) were settled in the order sent: one request at a time, never backwards.
    expect(progress).toEqual(Array.from({ length: 30 }, (_, i) => (i + 1) * 100));
  });

  it('a 429 pauses the whole queue for its Retry-After, and the refused request is sent again', async () => {
    const key = KEY_429;
    await fault(key, { kind: 'rate_limited', count: 1, retry_after: 1 });
    const seen: Seen[] = [];
    const transport = recording(seen);
    const client = new CompanyDataClient({ baseUrl: sb.url, apiKey: key, transport });
    const { results, counters } = await client.bulkLookup(codes.slice(0, 2000));
    await client.close();

    const refused = seen.find((s) => s.status === 429)!;
    expect(refused).toBeDefined();
    // Nothing started during the pause (requests already in flight then may still finish).
    expect(seen.filter((s) => s.start >= refused.end && s.start < refused.end + 1000)).toEqual([]);
    expect(seen.filter((s) => s.first === refused.first && s.status === 200)).toHaveLength(1);
    expect(results.every((r) => r.status === 'matched')).toBe(true);
    expect(counters.billedQueries).toBe(2000);
    expect(sb.usage(key).billed_lookup_queries).toBe(2000);
  });

  it('a lookup whose connection broke is not sent again (it may have been processed); the others are answered', async () => {
    const key = KEY_RESET;
    await fault(key, { kind: 'server_error', count: 1, status: 502 });
    await fault(key, { kind: 'reset', count: 1 });
    const seen: Seen[] = [];
    const transport = recording(seen);
    const client = new CompanyDataClient({ baseUrl: sb.url, apiKey: key, transport });
    const { results, counters } = await client.bulkLookup(codes.slice(0, 2000));
    await client.close();

    expect(seen).toHaveLength(20);
    const failed = seen.filter((s) => s.status !== 200);
    expect(failed.map((s) => s.status).sort()).toEqual([502, 'reset']);
    // requests counts answered ones (the 502 too); the broken connection gave no answer.
    expect(counters).toMatchObject({ requests: 19, failed: 200 });
    const errorRows = results.flatMap((r, i) => (r.status === 'error' ? [i] : []));
    expect(errorRows).toHaveLength(200);
    // The failed rows are exactly those of the two failed requests.
    expect(new Set(errorRows.map((i) => codes[Math.floor(i / 100) * 100]))).toEqual(new Set(failed.map((s) => s.first)));
  });
});
