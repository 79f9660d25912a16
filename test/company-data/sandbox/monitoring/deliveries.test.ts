import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { json, startTestServer, type TestServer } from '../../../support/http-server';
import { call, startEventsSandbox, type EventsSandbox } from './support/sandbox';
import { signatureValid, waitFor } from './support/receiver';

let sb: EventsSandbox;
let rx: TestServer;
const api = (method: string, path: string, body?: unknown, key = sb.apiKey) => call(sb.url, key, method, path, body);

beforeEach(async () => {
  sb = await startEventsSandbox();
  rx = await startTestServer((_req, res) => json(res, 500, { no: true }));
});
afterEach(async () => {
  await sb.close();
  await rx.close();
});

async function monitoredCompanyWithWebhook(path = '/hook') {
  const secret = (await api('PUT', '/webhook', { url: `${rx.url}${path}`, enabled: true })).body.data.signing_secret as string;
  const list = (await api('POST', '/monitoring/lists', { name: 'L' })).body.data.id;
  await api('POST', `/monitoring/lists/${list}/companies`, { add: [{ registry_code: sb.codes[3]!, external_ref: 'e-1' }] });
  return secret;
}

const SCHEDULE = [60, 300, 900, 3600, 10_800, 21_600, 43_200];

describe('webhook deliveries', () => {
  it('follows the retry schedule exactly when the clock is moved to each due time', async () => {
    await monitoredCompanyWithWebhook();
    await api('POST', '/sandbox/changes', { registry_code: sb.codes[3]!, category: 'tax', kind: 'tax_debt' });
    for (let n = 1; n <= 8; n++) {
      const d = await waitFor(
        async () => {
          const x = (await api('GET', '/webhook/deliveries')).body.data[0];
          return x?.attempts === n && x;
        },
        5000,
        `attempt ${n}`,
      );
      if (n === 8) {
        expect(d).toMatchObject({ status: 'failed', next_attempt_at: null });
        break;
      }
      expect(d.status).toBe('retry_scheduled');
      expect((Date.parse(d.next_attempt_at) - Date.parse(d.log[n - 1].finished_at)) / 1000).toBe(SCHEDULE[n - 1]);
      // One second short of due: nothing happens; at due: the next attempt goes out.
      await api('POST', '/sandbox/clock', { to: new Date(Date.parse(d.next_attempt_at) - 1000).toISOString() });
      await new Promise((r) => setTimeout(r, 50));
      expect(rx.requests).toHaveLength(n);
      await api('POST', '/sandbox/clock', { to: d.next_attempt_at });
    }
    expect(rx.requests).toHaveLength(8);
  });

  it('retries a failing receiver after 1m, 5m, 15m, 1h, 3h, 6h, 12h, marks it failed, then a manual retry delivers the same event', async () => {
    const secret = await monitoredCompanyWithWebhook();
    // 10,000 virtual seconds per real second: the 22-hour schedule takes about 8 real seconds.
    await api('POST', '/sandbox/clock', { time_scale: 10_000 });
    const eventId = (await api('POST', '/sandbox/changes', { registry_code: sb.codes[3]!, category: 'court', kind: 'enforcement' })).body
      .data.events[0];

    const failed = await waitFor(
      async () => {
        const r = await api('GET', '/webhook/deliveries?status=failed');
        return r.body.data[0];
      },
      30_000,
      'the delivery to fail',
    );
    await api('POST', '/sandbox/clock', { time_scale: 1 });

    expect(failed).toMatchObject({ event_id: eventId, status: 'failed', attempts: 8, last_status_code: 500, next_attempt_at: null });
    expect(rx.requests).toHaveLength(8);
    expect(new Set(rx.requests.map((r) => r.headers['x-service-event-id']))).toEqual(new Set([eventId]));
    expect(rx.requests.every((r) => signatureValid(secret, r))).toBe(true);
    expect(new Set(rx.requests.map((r) => r.body)).size).toBe(1);

    // Virtual time from each failure to the next attempt: the schedule, never early. At 10,000x a real
    // millisecond of timer slack is 10 virtual seconds, so the upper bound allows half the step plus 2 min,
    // which still tells every step from the next one.
    const log = failed.log as Array<{ at: string; finished_at: string }>;
    const gaps = log.slice(1).map((a, i) => (Date.parse(a.at) - Date.parse(log[i]!.finished_at)) / 1000);
    SCHEDULE.forEach((step, i) => {
      expect(gaps[i]).toBeGreaterThanOrEqual(step);
      expect(gaps[i]).toBeLessThan(step * 1.5 + 120);
    });

    rx.setHandler((_req, res) => json(res, 204, {}));
    const retry = await api('POST', `/webhook/deliveries/${failed.id}/retry`);
    expect(retry.status).toBe(202);
    expect(retry.body.data).toMatchObject({ event_id: eventId, retry_of: failed.id });
    expect(retry.body.data.id).not.toBe(failed.id);
    const done = await waitFor(
      async () => {
        const r = await api('GET', '/webhook/deliveries?status=delivered');
        return r.body.data[0];
      },
      5000,
      'the manual retry',
    );
    expect(done).toMatchObject({ id: retry.body.data.id, attempts: 1, last_status_code: 204 });
    expect(rx.requests).toHaveLength(9);
    expect(rx.requests[8]!.headers['x-service-event-id']).toBe(eventId);
    expect(signatureValid(secret, rx.requests[8]!)).toBe(true);
    // A delivery in progress cannot be retried; an unknown one does not exist.
    expect((await api('POST', '/webhook/deliveries/dlv_999/retry')).status).toBe(404);
  }, 40_000);

  it('counts a redirect and a slow answer as failures and schedules the next attempt', async () => {
    await monitoredCompanyWithWebhook('/redirect');
    rx.setHandler((req, res) => {
      if (req.url === '/redirect') {
        res.writeHead(302, { Location: '/elsewhere' });
        res.end();
      } else setTimeout(() => json(res, 200, {}), 400);
    });
    await api('PUT', '/sandbox/settings', { answer_timeout_ms: 150 });
    await api('POST', '/sandbox/changes', { registry_code: sb.codes[3]!, category: 'registry', kind: 'address_changed' });
    const first = await waitFor(
      async () =>
        (await api('GET', '/webhook/deliveries')).body.data[0]?.attempts === 1 && (await api('GET', '/webhook/deliveries')).body.data[0],
    );
    expect(first).toMatchObject({ status: 'retry_scheduled', last_status_code: 302, last_error: 'redirect 302 (not followed)' });
    expect(rx.requests.map((r) => r.url)).toEqual(['/redirect']);
    expect(Date.parse(first.next_attempt_at) - Date.parse(first.log[0].finished_at)).toBe(60_000);

    await api('PUT', '/webhook', { url: `${rx.url}/slow`, enabled: true });
    await api('POST', '/sandbox/clock', { advance_seconds: 60 });
    const second = await waitFor(async () => {
      const d = (await api('GET', '/webhook/deliveries')).body.data[0];
      return d.attempts === 2 && d;
    });
    expect(second).toMatchObject({ status: 'retry_scheduled', last_status_code: null, last_error: 'timeout: no answer within 150 ms' });
    expect(Date.parse(second.next_attempt_at) - Date.parse(second.log[1].finished_at)).toBe(300_000);
  });

  it('sends the same event again on purpose when duplicates are switched on', async () => {
    rx.setHandler((_req, res) => json(res, 200, {}));
    const secret = await monitoredCompanyWithWebhook();
    await api('PUT', '/sandbox/settings', { duplicate_rate: 1, duplicate_copies: 2 });
    const id = (await api('POST', '/sandbox/changes', { registry_code: sb.codes[3]!, category: 'reports', kind: 'annual_report_filed' }))
      .body.data.events[0];
    await waitFor(() => rx.requests.length >= 3, 5000, 'three copies');
    expect(rx.requests.map((r) => r.headers['x-service-event-id'])).toEqual([id, id, id]);
    expect(rx.requests.every((r) => signatureValid(secret, r))).toBe(true);
    const d = (await api('GET', '/webhook/deliveries')).body.data[0];
    expect(d).toMatchObject({ status: 'delivered', attempts: 1 });
    expect(d.log.filter((a: any) => a.duplicate)).toHaveLength(2);
  });

  it('keeps the secret to the first answer, checks the address, and sends webhook.test', async () => {
    rx.setHandler((_req, res) => json(res, 200, {}));
    const bad = await api('PUT', '/webhook', { url: 'http://example.com/hook', enabled: true });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'invalid_parameter', param: 'url' });
    expect((await api('POST', '/webhook/test')).body.error.code).toBe('webhook_not_set');

    const created = await api('PUT', '/webhook', { url: `${rx.url}/t`, enabled: true });
    const secret = created.body.data.signing_secret;
    expect(secret).toBeTruthy();
    const again = await api('PUT', '/webhook', { url: `http://localhost:${rx.port}/t`, enabled: true });
    expect(again.status).toBe(200);
    expect(again.body.data).not.toHaveProperty('signing_secret');
    expect(JSON.stringify((await api('GET', '/webhook')).body)).not.toContain(secret);
    expect((await api('GET', '/webhook')).body.data).toMatchObject({ url: `http://localhost:${rx.port}/t`, enabled: true });

    const test = await api('POST', '/webhook/test');
    expect(test.status).toBe(202);
    const r = await waitFor(() => rx.requests[0]);
    expect(JSON.parse(r.body)).toMatchObject({ id: test.body.data.event_id, type: 'webhook.test', data: { message: expect.any(String) } });
    expect(signatureValid(secret, r)).toBe(true);
    // Test events are not monitoring events.
    expect((await api('GET', '/monitoring/events')).body.data).toEqual([]);

    await api('PUT', '/webhook', { url: `${rx.url}/t`, enabled: false });
    expect((await api('POST', '/webhook/test')).body.error.code).toBe('webhook_disabled');
  });
});
