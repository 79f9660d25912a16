/** The client against the sandbox's own limit of 10 requests per second per key (real time, real HTTP). */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RetryInfo } from '../../../packages/company-data/src/index';
import { FX, startClientRig, type ClientRig } from './support';

let rig: ClientRig;
beforeAll(async () => {
  rig = await startClientRig({ companies: 1500, rateLimit: 10 });
});
afterAll(() => rig.close());
afterEach(() => expect(rig.mismatches).toEqual([]));

describe('rate limit of the service', () => {
  it('the default limiter keeps 25 parallel calls under 10/s: no 429 at all', async () => {
    const retries: RetryInfo[] = [];
    const client = rig.newClient({ rateLimit: undefined, onRetry: (i) => retries.push(i) });
    const t0 = Date.now();
    const answers = await Promise.all(Array.from({ length: 25 }, () => client.companies.get({ registry_code: FX.active.code })));
    expect(answers.every((a) => a.data.registry_code === FX.active.code)).toBe(true);
    expect(retries).toEqual([]);
    // 25 requests at 10 per second: at least two full windows.
    expect(Date.now() - t0).toBeGreaterThanOrEqual(2000);
  });

  it('without the limiter, the 429s of the service are retried after their Retry-After and every call succeeds', async () => {
    await new Promise((r) => setTimeout(r, 1100)); // a fresh bucket
    const retries: RetryInfo[] = [];
    const client = rig.newClient({ rateLimit: false, onRetry: (i) => retries.push(i) });
    const answers = await Promise.all(Array.from({ length: 20 }, () => client.risk.creditScore({ registry_code: FX.active.code })));
    expect(answers.every((a) => a.data.rated === true)).toBe(true);
    expect(retries.length).toBeGreaterThanOrEqual(5);
    expect(retries.every((r) => r.reason === 'rate_limited' && r.delayMs >= 1000)).toBe(true);
  });
});
