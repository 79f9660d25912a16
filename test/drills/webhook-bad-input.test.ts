/**
 * Drill: bad deliveries over real HTTP, at the address that feeds both the trigger node and the
 * events-to-sheet receiver. Every case: 401 from both, no execution, no sheet row, and the genuine
 * delivery still runs afterwards (a rejected request never uses up an event id).
 *
 * test/n8n/trigger/webhook.test.ts keeps its own matrix inside its describe block (not exported), calling
 * webhook() directly; this one goes through sockets, where duplicated headers are real header lines.
 */
import { request } from 'node:http';
import { readBody } from '../support/http-server';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../packages/company-data/src/sandbox';
import { signWebhook } from '@company-data/core/webhooks';
import { startFanOut, type FanOut } from './support/receivers';

const KEY = 'sk_drill_badinput_account_00000001';

type Sb = Awaited<ReturnType<typeof startSandbox>>;
let sb: Sb;
let fan: FanOut;
let secret: string;
let good: { body: Buffer; headers: Record<string, string> };

/** A delivery as header lines: a string[] value sends the header several times. */
interface Bad {
  body: Buffer | string;
  headers: Record<string, string | string[] | undefined>;
}

function post(url: string, d: Bad): Promise<number> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = request({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST' }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    for (const [k, v] of Object.entries(d.headers)) if (v !== undefined) req.setHeader(k, v);
    req.on('error', reject);
    req.end(d.body);
  });
}

const now = () => Math.floor(Date.now() / 1000);
const signed = (body: string | Buffer, s: string, timestamp = now()) => {
  const h = signWebhook({ secret: s, body, timestamp });
  return {
    'content-type': 'application/json',
    'x-service-timestamp': h['X-Service-Timestamp'],
    'x-service-signature': h['X-Service-Signature'],
  };
};
const sig = () => good.headers['x-service-signature']!;
const hex = () => sig().slice(3);
const patch = (h: Record<string, string | string[] | undefined>): Bad => ({ body: good.body, headers: { ...good.headers, ...h } });

const cases: Record<string, () => Bad> = {
  'tampered body': () => ({ body: Buffer.from(good.body.toString('utf8').replace('"court"', '"tax"')), headers: good.headers }),
  're-serialised JSON (same data, other bytes)': () => ({
    body: JSON.stringify(JSON.parse(good.body.toString('utf8')), null, 2),
    headers: good.headers,
  }),
  'wrong secret': () => ({ body: good.body, headers: signed(good.body, 'whsec_not_the_right_one') }),
  'stale timestamp (301 s old)': () => ({ body: good.body, headers: signed(good.body, secret, now() - 301) }),
  'future timestamp (301 s ahead)': () => ({ body: good.body, headers: signed(good.body, secret, now() + 301) }),
  'timestamp changed, signature kept': () => patch({ 'x-service-timestamp': String(Number(good.headers['x-service-timestamp']) + 1) }),
  'no signature header': () => patch({ 'x-service-signature': undefined }),
  'no timestamp header': () => patch({ 'x-service-timestamp': undefined }),
  'signature header sent twice': () => patch({ 'x-service-signature': [sig(), sig()] }),
  'timestamp header sent twice': () =>
    patch({ 'x-service-timestamp': [good.headers['x-service-timestamp']!, good.headers['x-service-timestamp']!] }),
  'malformed timestamp': () => patch({ 'x-service-timestamp': `${good.headers['x-service-timestamp']}.0` }),
  'signature without scheme': () => patch({ 'x-service-signature': hex() }),
  'scheme v2': () => patch({ 'x-service-signature': `v2=${hex()}` }),
  'upper-case hex': () => patch({ 'x-service-signature': `v1=${hex().toUpperCase()}` }),
  'short hex (63 characters)': () => patch({ 'x-service-signature': `v1=${hex().slice(0, 63)}` }),
  'empty body, original signature': () => ({ body: '', headers: good.headers }),
  'empty body, correctly signed': () => ({ body: '', headers: signed('', secret) }),
  'form body, correctly signed': () => ({ body: 'event=monitoring.change', headers: signed('event=monitoring.change', secret) }),
  'JSON array, correctly signed': () => ({ body: '[]', headers: signed('[]', secret) }),
  'signature of another body with the same timestamp': () =>
    patch({ 'x-service-signature': signed('{"id":"evt_1"}', secret, Number(good.headers['x-service-timestamp']))['x-service-signature'] }),
};

beforeAll(async () => {
  sb = await startSandbox({
    port: 0,
    seed: 1,
    companies: 1500,
    rateLimit: false,
    keys: [{ key: KEY, plan: 'api' }],
    settings: { detectionRate: 0, duplicateRate: 0 },
  });
  fan = await startFanOut({ workflowId: 'wf-drill-bad-input' });
  await fan.activate({ apiKey: KEY, baseUrl: sb.url });
  secret = fan.secrets[0]!;
  // One genuine delivery, captured without delivering it to the consumers: the webhook points to a
  // capture server first, then back to the fan-out address.
  const { createServer } = await import('node:http');
  const captured = await new Promise<{ body: Buffer; headers: Record<string, string> }>((resolve, reject) => {
    const cap = createServer(async (req, res) => {
      const body = await readBody(req);
      res.writeHead(200).end();
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (k.startsWith('x-service-') || k === 'content-type') headers[k] = String(v);
      cap.close();
      resolve({ body, headers });
    });
    cap.listen(0, '127.0.0.1', async () => {
      const api = (method: string, path: string, body: unknown) =>
        fetch(sb.url + path, {
          method,
          headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }).then((r) => r.json());
      const port = (cap.address() as { port: number }).port;
      await api('PUT', '/webhook', { url: `http://127.0.0.1:${port}/hook`, enabled: true });
      const list = (await api('POST', '/monitoring/lists', { name: 'Drill' })) as { data: { id: string } };
      const code = sb.dataset.companies[0]!.code;
      await api('POST', `/monitoring/lists/${list.data.id}/companies`, { add: [{ registry_code: code }] });
      await api('POST', '/sandbox/changes', { registry_code: code, category: 'court' });
    });
    setTimeout(() => reject(new Error('no delivery captured')), 10_000);
  });
  good = captured;
  await fetch(sb.url + '/webhook', {
    method: 'PUT',
    headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ url: fan.url, enabled: true }),
  });
});
afterAll(async () => {
  await fan.close();
  await sb.close();
});

describe('bad deliveries over HTTP: 401 and nothing runs', () => {
  it('has at least 15 cases', () => expect(Object.keys(cases).length).toBeGreaterThanOrEqual(15));

  it('every case is rejected by both consumers, with no execution and no row', async () => {
    const outcome: Record<string, [number, number, number]> = {};
    for (const [name, make] of Object.entries(cases)) {
      const before = fan.deliveries.length;
      const status = await post(fan.url, make());
      const d = fan.deliveries[before]!;
      outcome[name] = [status, d.trigger, d.sheet];
    }
    const expected = Object.fromEntries(Object.keys(cases).map((k) => [k, [401, 401, 401]]));
    expect(outcome).toEqual(expected);
    expect(fan.executions()).toBe(0);
    expect(fan.writer.stats.appended).toBe(0);
    // The trigger says why in its log, never with the secret.
    expect(fan.logs).toHaveLength(Object.keys(cases).length);
    for (const l of fan.logs) expect(l).not.toContain(secret);

    // The genuine delivery still runs once: no rejected request used up its event id.
    expect(await post(fan.url, { body: good.body, headers: good.headers })).toBe(200);
    expect(await post(fan.url, { body: good.body, headers: good.headers })).toBe(200);
    expect(fan.executions()).toBe(1);
    expect(fan.writer.stats.appended).toBe(1);
    const sheet = readFileSync(fan.sheetFile, 'utf8').trim().split('\n');
    expect(sheet).toHaveLength(2);
  });
});
