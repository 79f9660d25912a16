import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { json, startTestServer, type TestServer } from '../../../support/http-server';
import { call, startEventsSandbox, type EventsSandbox } from './support/sandbox';
import { signatureValid, waitFor } from './support/receiver';

let dir: string;
let rx: TestServer;
let open: EventsSandbox[] = [];

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandbox-events-'));
  rx = await startTestServer((_req, res) => json(res, 200, {}));
});
afterEach(async () => {
  for (const h of open) await h.close().catch(() => undefined);
  open = [];
  await rx.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function start() {
  const h = await startEventsSandbox({ dataDir: dir });
  open.push(h);
  return h;
}

describe('data dir', () => {
  it('keeps lists, events, deliveries, searches and the webhook across a restart, without writing the secret', async () => {
    const a = await start();
    const api = (m: string, p: string, b?: unknown) => call(a.url, a.apiKey, m, p, b);
    const secret = (await api('PUT', '/webhook', { url: `${rx.url}/h`, enabled: true })).body.data.signing_secret;
    const list = (await api('POST', '/monitoring/lists', { name: 'Kept' })).body.data.id;
    const code = a.codes[2]!;
    await api('POST', `/monitoring/lists/${list}/companies`, { add: [{ registry_code: code, external_ref: 'k-1' }] });
    const search = (await api('POST', '/searches', { name: 'S', filters: { county: ['Saare maakond'] } })).body.data.id;
    await api('POST', '/sandbox/companies', { count: 2, template: { county: 'Saare maakond' } });
    await api('POST', '/sandbox/runs', { kind: 'morning' });
    await api('POST', '/sandbox/changes', {
      registry_code: code,
      category: 'registry',
      kind: 'name_changed',
      details: { new: 'Püsiv Nimi OÜ' },
    });
    await waitFor(() => rx.requests.length >= 2, 5000, 'two deliveries');
    // A failing receiver leaves a delivery waiting for its retry.
    rx.setHandler((_req, res) => json(res, 503, {}));
    await api('POST', '/sandbox/changes', { registry_code: code, category: 'tax', kind: 'tax_debt' });
    await waitFor(async () => (await api('GET', '/webhook/deliveries?status=retry_scheduled')).body.data[0], 5000, 'a scheduled retry');
    const events = (await api('GET', '/monitoring/events')).body.data;
    const deliveries = (await api('GET', '/webhook/deliveries')).body.data;
    const matches = (await api('GET', `/searches/${search}/matches`)).body.data;
    expect(events).toHaveLength(2);
    expect(deliveries).toHaveLength(3);
    await a.close();

    for (const f of fs.readdirSync(dir)) expect(fs.readFileSync(path.join(dir, f), 'utf8')).not.toContain(secret);
    // The write side's files, and the read side's usage counters (usage.json) of the same sandbox.
    expect(fs.readdirSync(dir).sort()).toEqual(['changes.jsonl', 'deliveries.jsonl', 'events.jsonl', 'state.json', 'usage.json']);

    const b = await start();
    const api2 = (m: string, p: string, b2?: unknown) => call(b.url, b.apiKey, m, p, b2);
    expect((await api2('GET', '/monitoring/events')).body.data).toEqual(events);
    expect((await api2('GET', `/searches/${search}/matches`)).body.data).toEqual(matches);
    expect((await api2('GET', '/webhook/deliveries')).body.data).toEqual(deliveries);
    expect((await api2('GET', `/monitoring/lists/${list}/companies`)).body.data[0]).toMatchObject({
      registry_code: code,
      external_ref: 'k-1',
      name: 'Püsiv Nimi OÜ',
    });
    expect((await api2('GET', '/webhook')).body.data).toMatchObject({ url: `${rx.url}/h`, enabled: true });

    // The retry waiting at shutdown goes out after restart, signed with the same secret.
    rx.setHandler((_req, res) => json(res, 200, {}));
    const before = rx.requests.length;
    await api2('POST', '/sandbox/clock', { advance_seconds: 60 });
    await waitFor(
      async () => (await api2('GET', '/webhook/deliveries?status=delivered')).body.data.length === 3,
      5000,
      'the retry after restart',
    );
    const resent = rx.requests[before]!;
    expect(resent.headers['x-service-event-id']).toBe(events[1].id);
    expect(signatureValid(secret, resent)).toBe(true);

    // Numbering continues: no id is given twice.
    const next = (await api2('POST', '/sandbox/changes', { registry_code: code, category: 'assets', kind: 'domain_registered' })).body.data
      .events[0];
    expect(Number(next.slice(4))).toBeGreaterThan(Number(events[1].id.slice(4)));
  });

  it('skips a torn last line of a log', async () => {
    const a = await start();
    const api = (m: string, p: string, b?: unknown) => call(a.url, a.apiKey, m, p, b);
    const list = (await api('POST', '/monitoring/lists', { name: 'T' })).body.data.id;
    await api('POST', `/monitoring/lists/${list}/companies`, { add: [{ registry_code: a.codes[0]! }] });
    await api('POST', '/sandbox/changes', { registry_code: a.codes[0]!, category: 'court', kind: 'court_case' });
    await a.close();
    fs.appendFileSync(path.join(dir, 'events.jsonl'), '{"account":"acct_1","event":{"id":"evt_9');
    const b = await start();
    expect((await call(b.url, b.apiKey, 'GET', '/monitoring/events')).body.data).toHaveLength(1);
  });
});
