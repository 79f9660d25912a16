import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, startEventsSandbox, type EventsSandbox } from './support/sandbox';

let sb: EventsSandbox;
const api = (method: string, path: string, body?: unknown, key = sb.apiKey) => call(sb.url, key, method, path, body);

beforeEach(async () => {
  sb = await startEventsSandbox();
});
afterEach(async () => {
  await sb.close();
});

describe('fault injection', () => {
  it('answers the next requests of the account with the faults in order, then normally', async () => {
    await api('POST', '/sandbox/faults', { kind: 'rate_limited', count: 2, retry_after: 3 });
    await api('POST', '/sandbox/faults', { kind: 'server_error', count: 1, status: 502 });
    await api('POST', '/sandbox/faults', { kind: 'slow', count: 1, delay_ms: 300 });
    expect((await api('GET', '/sandbox/faults')).body.data.map((f: any) => [f.kind, f.remaining])).toEqual([
      ['rate_limited', 2],
      ['server_error', 1],
      ['slow', 1],
    ]);

    // Another account is not affected.
    expect((await api('GET', '/monitoring/lists', undefined, sb.apiKey2)).status).toBe(200);
    for (let i = 0; i < 2; i++) {
      const r = await api('GET', '/monitoring/lists');
      expect(r.status).toBe(429);
      expect(r.headers.get('retry-after')).toBe('3');
      expect(r.body.error).toMatchObject({ code: 'rate_limited', retry_after: 3 });
    }
    const e = await api('GET', '/monitoring/lists');
    expect(e.status).toBe(502);
    expect(e.body.error.code).toBe('server_error');
    const t0 = Date.now();
    expect((await api('GET', '/monitoring/lists')).status).toBe(200);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
    expect((await api('GET', '/monitoring/lists')).status).toBe(200);
  });

  it('drops the connection without an answer for a reset, and the controls stay reachable', async () => {
    await api('POST', '/sandbox/faults', { kind: 'reset', count: 1 });
    await expect(api('GET', '/monitoring/lists')).rejects.toThrow();
    expect((await api('GET', '/monitoring/lists')).status).toBe(200);
    await api('POST', '/sandbox/faults', { kind: 'server_error', count: 5 });
    expect((await api('GET', '/sandbox/clock')).status).toBe(200);
    await api('DELETE', '/sandbox/faults');
    expect((await api('GET', '/monitoring/lists')).status).toBe(200);
    const bad = await api('POST', '/sandbox/faults', { kind: 'flood', count: 1 });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('kind');
  });

  it('names the field and the rule in plain words when a control body is wrong', async () => {
    const cases: [string, unknown, string, string][] = [
      ['/sandbox/clock', { advance_seconds: 'soon' }, 'advance_seconds', 'advance_seconds must be a number'],
      ['/sandbox/faults', { kind: 'slow', count: 'two' }, 'count', 'count must be a number'],
      ['/sandbox/clock', { advance: 60 }, 'advance', 'advance is not a parameter of this operation'],
    ];
    for (const [path, body, param, message] of cases) {
      const r = await api('POST', path, body);
      expect([path, r.status, r.body.error]).toEqual([path, 400, { code: 'invalid_parameter', param, message }]);
    }
  });
});
