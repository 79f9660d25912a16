/** The sandbox's latency model and rate-limit switch, over real HTTP. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../../packages/company-data/src/sandbox';

let sb: Sandbox;
let open: Sandbox;
beforeAll(async () => {
  [sb, open] = await Promise.all([
    startSandbox({ port: 0, seed: 1, companies: 1500 }),
    startSandbox({ port: 0, seed: 1, companies: 1500, rateLimit: false }),
  ]);
});
afterAll(async () => Promise.all([sb.close(), open.close()]));

const put = (body: unknown) =>
  fetch(`${sb.url}/sandbox/latency`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const lookup = (s: Sandbox, queries: string[]) =>
  fetch(`${s.url}/companies/lookup`, {
    method: 'POST',
    headers: { 'x-api-key': s.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ queries }),
  });

describe('latency model', () => {
  it('PUT /sandbox/latency sets round trip, per-query time and spread; GET shows them', async () => {
    const res = await put({ latency_ms: 250, per_query_ms: 1 });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: unknown }).data).toEqual({ latency_ms: 250, per_query_ms: 1, jitter: 0 });
    const code = sb.fixtures.companies.active!.registry_code;
    const t0 = Date.now();
    const answer = await lookup(sb, Array(100).fill(code));
    // At least the round trip plus 100 queries x 1 ms (a loaded machine only adds to it).
    expect(Date.now() - t0).toBeGreaterThanOrEqual(340);
    expect(answer.status).toBe(200);
    const back = await fetch(`${sb.url}/sandbox/latency`);
    expect(((await back.json()) as { data: unknown }).data).toEqual({ latency_ms: 250, per_query_ms: 1, jitter: 0 });
    await put({ latency_ms: 0, per_query_ms: 0 });
  });

  it('rejects settings out of bounds or unknown, naming the field', async () => {
    for (const [body, param] of [
      [{ latency_ms: -1 }, 'latency_ms'],
      [{ jitter: 2 }, 'jitter'],
      [{ per_query_ms: 'x' }, 'per_query_ms'],
      [{ delay: 1 }, 'delay'],
      [[1], 'body'],
    ] as const) {
      const res = await put(body);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { param: string } }).error.param).toBe(param);
    }
  });
});

describe('rate limit switch', () => {
  it('rateLimit false answers 30 requests at once without a 429; the default limit answers some with 429', async () => {
    const code = open.fixtures.companies.active!.registry_code;
    const free = await Promise.all(Array.from({ length: 30 }, () => lookup(open, [code])));
    expect(free.map((r) => r.status).filter((s) => s !== 200)).toEqual([]);
    const limited = await Promise.all(Array.from({ length: 30 }, () => lookup(sb, [code])));
    expect(limited.some((r) => r.status === 429)).toBe(true);
  });
});
