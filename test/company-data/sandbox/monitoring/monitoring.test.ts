import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { json, startTestServer, type TestServer } from '../../../support/http-server';
import { call, startEventsSandbox, type EventsSandbox } from './support/sandbox';
import { signatureValid, waitFor } from './support/receiver';

let sb: EventsSandbox;
let rx: TestServer;
const api = (method: string, path: string, body?: unknown, key = sb.apiKey) => call(sb.url, key, method, path, body);

beforeEach(async () => {
  sb = await startEventsSandbox();
  rx = await startTestServer((_req, res) => json(res, 200, { ok: true }));
});
afterEach(async () => {
  await sb.close();
  await rx.close();
});

async function webhook(key = sb.apiKey): Promise<string> {
  const r = await api('PUT', '/webhook', { url: `${rx.url}/hook`, enabled: true }, key);
  expect(r.status).toBe(201);
  return r.body.data.signing_secret;
}

describe('monitoring lists and change events', () => {
  it('delivers a signed monitoring.change naming the list and its external_ref', async () => {
    const secret = await webhook();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{40,}$/);
    const list = await api('POST', '/monitoring/lists', { name: 'Clients' });
    expect(list.status).toBe(201);
    expect(list.body.data.id).toMatch(/^lst_[a-z0-9]+$/);
    const code = sb.codes[5]!;
    const add = await api('POST', `/monitoring/lists/${list.body.data.id}/companies`, {
      add: [{ registry_code: code, external_ref: 'crm-42' }],
    });
    expect(add.body.data).toMatchObject({ added: 1, total: 1, invalid: [] });

    const ch = await api('POST', '/sandbox/changes', { registry_code: code, category: 'tax', kind: 'tax_debt' });
    expect(ch.status).toBe(201);
    expect(ch.body.data.events).toHaveLength(1);

    const r = await waitFor(() => rx.requests[0], 5000, 'delivery');
    expect(
      Object.keys(r.headers)
        .filter((h) => h.startsWith('x-service-'))
        .sort(),
    ).toEqual(['x-service-event-id', 'x-service-signature', 'x-service-timestamp']);
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.headers['user-agent']).toBe('Service-Webhooks/1.0');
    expect(r.headers['x-service-timestamp']).toMatch(/^\d+$/);
    expect(Math.abs(Number(r.headers['x-service-timestamp']) - Date.now() / 1000)).toBeLessThan(300);
    expect(r.headers['x-service-signature']).toMatch(/^v1=[0-9a-f]{64}$/);
    expect(signatureValid(secret, r)).toBe(true);
    expect(signatureValid('whsec_wrong', r)).toBe(false);

    const event = JSON.parse(r.body);
    expect(r.headers['x-service-event-id']).toBe(event.id);
    expect(event).toMatchObject({
      id: expect.stringMatching(/^evt_\d+$/),
      type: 'monitoring.change',
      data: {
        company: { registry_code: code, name: sb.companies.get(code)!.name },
        lists: [{ id: list.body.data.id, name: 'Clients', external_ref: 'crm-42' }],
        category: 'tax',
        kind: 'tax_debt',
        tone: 'bad',
      },
    });
    expect(event.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(event.data.details.new).toBeGreaterThan(event.data.details.old);
    // The change is written into the company's data.
    expect(sb.companies.get(code)!.tax_debt).toBe(event.data.details.new);

    // Polling returns the very same object.
    const polled = await api('GET', '/monitoring/events');
    expect(polled.body.data).toEqual([event]);
    expect(polled.body.meta).toMatchObject({ next_cursor: event.id, has_more: false });
  });

  it('a company on two lists yields one event naming both; another account gets its own', async () => {
    const a = (await api('POST', '/monitoring/lists', { name: 'A' })).body.data.id;
    const b = (await api('POST', '/monitoring/lists', { name: 'B' })).body.data.id;
    const c = (await api('POST', '/monitoring/lists', { name: 'Only court', categories: ['court'] })).body.data.id;
    const other = (await api('POST', '/monitoring/lists', { name: 'Theirs' }, sb.apiKey2)).body.data.id;
    const code = sb.codes[7]!;
    await api('POST', `/monitoring/lists/${a}/companies`, { add: [{ registry_code: code, external_ref: 'ref-a' }] });
    await api('POST', `/monitoring/lists/${b}/companies`, { add: [{ registry_code: code }] });
    await api('POST', `/monitoring/lists/${c}/companies`, { add: [{ registry_code: code, external_ref: 'ref-c' }] });
    await api('POST', `/monitoring/lists/${other}/companies`, { add: [{ registry_code: code, external_ref: 'x' }] }, sb.apiKey2);

    await api('POST', '/sandbox/changes', {
      registry_code: code,
      category: 'registry',
      kind: 'name_changed',
      details: { new: 'Uus Nimi OÜ' },
    });
    const mine = (await api('GET', '/monitoring/events')).body.data;
    expect(mine).toHaveLength(1);
    expect(mine[0].data.lists).toEqual([
      { id: a, name: 'A', external_ref: 'ref-a' },
      { id: b, name: 'B', external_ref: null },
    ]);
    expect(mine[0].data.details).toEqual({ old: expect.any(String), new: 'Uus Nimi OÜ' });
    const theirs = (await api('GET', '/monitoring/events', undefined, sb.apiKey2)).body.data;
    expect(theirs).toHaveLength(1);
    expect(theirs[0].id).not.toBe(mine[0].id);
    expect(theirs[0].data.lists).toEqual([{ id: other, name: 'Theirs', external_ref: 'x' }]);

    // A court change reaches the court-only list too; per-company categories override the list's.
    await api('PATCH', `/monitoring/lists/${b}/companies/${code}`, { categories: ['tax'] });
    await api('POST', '/sandbox/changes', { registry_code: code, category: 'court', kind: 'payment_order' });
    const court = (await api('GET', `/monitoring/events?after=${mine[0].id}`)).body.data;
    expect(court.map((e: any) => e.data.lists.map((l: any) => l.id))).toEqual([[a, c]]);
  });

  it('reports nothing from before a company was added, and scheduled runs cover every monitored company', async () => {
    const list = (await api('POST', '/monitoring/lists', { name: 'L' })).body.data.id;
    const early = sb.codes[1]!;
    await api('POST', '/sandbox/changes', { registry_code: early, category: 'rating', kind: 'rating_changed' });
    await api('POST', `/monitoring/lists/${list}/companies`, { add: sb.codes.slice(0, 10).map((registry_code) => ({ registry_code })) });
    expect((await api('GET', '/monitoring/events')).body.data).toEqual([]);

    await api('PUT', '/sandbox/settings', { detection_rate: 1 });
    const clock = (await api('POST', '/sandbox/clock', { advance_seconds: 0 })).body.data;
    expect(clock.next_run).toEqual({ at: '2026-11-20T17:00:00.000Z', morning: false }); // 19:00 in Tallinn (UTC+2)
    await api('POST', '/sandbox/clock', { to: '2026-11-21T06:00:00Z' }); // past 19:00 and 07:00
    const events = (await api('GET', '/monitoring/events?limit=100')).body.data;
    expect(events).toHaveLength(20);
    expect(new Set(events.map((e: any) => e.data.detected_at))).toEqual(new Set(['2026-11-20T17:00:00.000Z', '2026-11-21T05:00:00.000Z']));
    for (const e of events) {
      expect(['bad', 'good', 'neutral']).toContain(e.data.tone);
      expect(e.data.details).toHaveProperty('old');
      expect(e.data.details).toHaveProperty('new');
    }
  });

  it('pages events with the cursor and filters by list and category', async () => {
    const l1 = (await api('POST', '/monitoring/lists', { name: 'one' })).body.data.id;
    const l2 = (await api('POST', '/monitoring/lists', { name: 'two' })).body.data.id;
    await api('POST', `/monitoring/lists/${l1}/companies`, { add: sb.codes.slice(0, 3).map((registry_code) => ({ registry_code })) });
    await api('POST', `/monitoring/lists/${l2}/companies`, { add: [{ registry_code: sb.codes[3]! }] });
    for (const code of sb.codes.slice(0, 4))
      await api('POST', '/sandbox/changes', { registry_code: code, category: 'assets', kind: 'domain_registered' });
    await api('POST', '/sandbox/changes', { registry_code: sb.codes[0]!, category: 'people', kind: 'board_member_added' });

    const seen: string[] = [];
    let after: string | undefined;
    for (let i = 0; i < 10; i++) {
      const r = await api('GET', `/monitoring/events?limit=2${after ? `&after=${after}` : ''}`);
      seen.push(...r.body.data.map((e: any) => e.id));
      after = r.body.meta.next_cursor;
      if (!r.body.meta.has_more) break;
    }
    expect(seen).toHaveLength(5);
    expect(new Set(seen).size).toBe(5);
    const again = await api('GET', `/monitoring/events?after=${after}`);
    expect(again.body).toMatchObject({ data: [], meta: { next_cursor: after, has_more: false } });

    expect((await api('GET', `/monitoring/events?list_id=${l2}`)).body.data).toHaveLength(1);
    expect((await api('GET', '/monitoring/events?category=people')).body.data.map((e: any) => e.data.kind)).toEqual(['board_member_added']);
    expect((await api('GET', '/monitoring/events?after=nope')).status).toBe(400);
  });

  it('manages lists: rename, categories, replace, remove, delete', async () => {
    const id = (await api('POST', '/monitoring/lists', { name: 'Old' })).body.data.id;
    await api('POST', `/monitoring/lists/${id}/companies`, {
      add: sb.codes.slice(0, 4).map((registry_code, i) => ({ registry_code, external_ref: `r${i}` })),
    });
    const rep = await api('POST', `/monitoring/lists/${id}/companies`, {
      add: [{ registry_code: sb.codes[2]! }, { registry_code: sb.codes[9]! }, { registry_code: '10000024' }],
      replace: true,
    });
    expect(rep.body.data).toMatchObject({
      added: 1,
      updated: 1,
      removed: 3,
      total: 2,
      invalid: [{ registry_code: '10000024', reason: 'not_found' }],
    });
    const page = await api('GET', `/monitoring/lists/${id}/companies?limit=1`);
    expect(page.body.meta.pagination).toEqual({ page: 1, limit: 1, total: 2, has_more: true });
    expect(page.body.data[0]).toMatchObject({ registry_code: sb.codes[2], external_ref: 'r2' });
    const patched = await api('PATCH', `/monitoring/lists/${id}`, { name: 'New', categories: ['tax', 'court'] });
    expect(patched.body.data).toMatchObject({ id, name: 'New', categories: ['tax', 'court'], companies: 2 });
    expect((await api('DELETE', `/monitoring/lists/${id}/companies/${sb.codes[9]}`)).body.data).toEqual({
      registry_code: sb.codes[9],
      removed: true,
    });
    expect((await api('GET', '/monitoring/lists')).body.data.map((l: any) => l.name)).toEqual(['New']);
    expect((await api('DELETE', `/monitoring/lists/${id}`)).body.data).toEqual({ id, deleted: true });
    const gone = await api('GET', `/monitoring/lists/${id}`);
    expect(gone.status).toBe(404);
    expect(gone.body.error).toMatchObject({ code: 'not_found', param: 'list_id' });
    const tooMany = await api('POST', '/monitoring/lists/lst_x/companies', {
      add: Array.from({ length: 2001 }, () => ({ registry_code: sb.codes[0]! })),
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.message).toContain('2000');
  });

  it('answers plan_required to a basic-plan key and keeps each account to itself', async () => {
    for (const [m, p] of [
      ['POST', '/monitoring/lists'],
      ['GET', '/monitoring/events'],
      ['POST', '/searches'],
      ['PUT', '/webhook'],
    ] as const) {
      const r = await api(
        m,
        p,
        m === 'GET' ? undefined : { name: 'x', url: 'https://example.com', enabled: true, filters: {} },
        sb.basicKey,
      );
      expect(r.status).toBe(403);
      expect(r.body.error.code).toBe('plan_required');
    }
    const id = (await api('POST', '/monitoring/lists', { name: 'mine' })).body.data.id;
    expect((await api('GET', `/monitoring/lists/${id}`, undefined, sb.apiKey2)).status).toBe(404);
  });
});
