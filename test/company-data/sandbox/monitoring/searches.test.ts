import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { json, startTestServer, type TestServer } from '../../../support/http-server';
import type { CompanyFacts } from '../../../../packages/company-data/src/sandbox/monitoring/company-port';
import { call, startEventsSandbox, type EventsSandbox } from './support/sandbox';
import { signatureValid, waitFor } from './support/receiver';

let sb: EventsSandbox;
let rx: TestServer;
const api = (method: string, path: string, body?: unknown, key = sb.apiKey) => call(sb.url, key, method, path, body);

beforeEach(async () => {
  sb = await startEventsSandbox();
  rx = await startTestServer((_req, res) => json(res, 200, {}));
});
afterEach(async () => {
  await sb.close();
  await rx.close();
});

/** Companies of the sandbox matching now (a search's baseline). */
const matching = (pred: (c: CompanyFacts) => boolean) => [...sb.companies.all()].filter(pred).length;

describe('saved searches', () => {
  it('reports 1,234 new matches in parts of 500/500/234 with ids evt_<search>_<date>_<part>', async () => {
    const secret = (await api('PUT', '/webhook', { url: `${rx.url}/s`, enabled: true })).body.data.signing_secret;
    // Tartu IT companies that exist before the search is created (the generated data may hold none).
    await api('POST', '/sandbox/companies', { count: 2, template: { county: 'Tartu maakond', activity_code: '62011' } });
    const created = await api('POST', '/searches', { name: 'New Tartu IT', filters: { activity: ['62'], county: ['Tartu maakond'] } });
    expect(created.status).toBe(201);
    const search = created.body.data;
    expect(search.id).toMatch(/^srch_[a-z0-9]+$/);
    // Tartu companies with 62xxx at creation are the baseline and never reported.
    expect(search.baseline).toBeGreaterThan(0);
    expect(search.baseline).toBe(matching((c) => c.county === 'Tartu maakond' && c.activity_codes.some((a) => a.startsWith('62'))));

    const reg = await api('POST', '/sandbox/companies', { count: 1234, template: { county: 'Tartu maakond', activity_code: '62012' } });
    expect(reg.body.data.registered).toBe(1234);
    await api('POST', '/sandbox/companies', { count: 5, template: { county: 'Harju maakond', activity_code: '62012' } });
    const run = await api('POST', '/sandbox/runs', { kind: 'morning' });
    expect(run.body.data.search_events).toBe(3);

    const date = '20261120';
    const p1 = await api('GET', `/searches/${search.id}/matches?limit=2`);
    expect(p1.body.data.map((e: any) => e.id)).toEqual([`evt_${search.id}_${date}_1`, `evt_${search.id}_${date}_2`]);
    expect(p1.body.meta).toEqual({ request_id: expect.any(String), next_cursor: `evt_${search.id}_${date}_2`, has_more: true });
    const p2 = await api('GET', `/searches/${search.id}/matches?after=${p1.body.meta.next_cursor}`);
    expect(p2.body.data.map((e: any) => e.id)).toEqual([`evt_${search.id}_${date}_3`]);
    expect(p2.body.meta.has_more).toBe(false);

    const events = [...p1.body.data, ...p2.body.data];
    expect(events.map((e) => e.data.companies.length)).toEqual([500, 500, 234]);
    expect(events.map((e) => [e.data.part, e.data.parts, e.data.total])).toEqual([
      [1, 3, 1234],
      [2, 3, 1234],
      [3, 3, 1234],
    ]);
    for (const e of events)
      expect(e).toMatchObject({ type: 'search.matches', data: { search: { id: search.id, name: 'New Tartu IT' }, date: '2026-11-20' } });
    const codes = events.flatMap((e) => e.data.companies.map((c: any) => c.registry_code));
    expect(new Set(codes)).toEqual(new Set(reg.body.data.registry_codes));
    expect(events[0].data.companies[0]).toEqual({
      registry_code: expect.stringMatching(/^\d{8}$/),
      name: expect.any(String),
      legal_form: 'Osaühing',
      status: 'R',
      registered_on: '2026-11-20',
      address: expect.stringContaining('Tartu maakond'),
      activity_code: '62012',
      employees: null,
      revenue: null,
      tax_debt: null,
      rating: null,
    });

    await waitFor(() => rx.requests.length >= 3, 5000, 'three deliveries');
    expect(rx.requests.map((r) => r.headers['x-service-event-id']).sort()).toEqual(events.map((e) => e.id).sort());
    expect(rx.requests.every((r) => signatureValid(secret, r))).toBe(true);

    // The next morning has nothing new: no events.
    await api('POST', '/sandbox/clock', { to: '2026-11-21T05:30:00Z' });
    expect((await api('GET', `/searches/${search.id}/matches?after=evt_${search.id}_${date}_3`)).body.data).toEqual([]);
  });

  it('reports companies that start to match through a change, at the scheduled morning run', async () => {
    const s = (await api('POST', '/searches', { name: 'Liquidations', filters: { status: ['L'], legal_form: ['OÜ'] } })).body.data;
    // The generated data has OÜs in liquidation already: they are the baseline.
    expect(s.baseline).toBe(matching((c) => c.status === 'L' && c.legal_form_abbr === 'OÜ'));
    const code = sb.codes[4]!;
    await api('POST', '/sandbox/changes', { registry_code: code, category: 'registry', kind: 'status_changed', details: { new: 'L' } });
    // The evening run does not run searches; the morning one does, with the Tallinn date.
    await api('POST', '/sandbox/clock', { to: '2026-11-20T18:00:00Z' });
    expect((await api('GET', `/searches/${s.id}/matches`)).body.data).toEqual([]);
    await api('POST', '/sandbox/clock', { to: '2026-11-21T05:00:00Z' });
    const m = (await api('GET', `/searches/${s.id}/matches`)).body.data;
    expect(m).toHaveLength(1);
    expect(m[0]).toMatchObject({
      id: `evt_${s.id}_20261121_1`,
      created_at: '2026-11-21T05:00:00.000Z',
      data: { date: '2026-11-21', part: 1, parts: 1, total: 1, companies: [{ registry_code: code, status: 'L' }] },
    });
  });

  it('counts registered_within_days from the run date and manages searches', async () => {
    const s = (await api('POST', '/searches', { name: 'Fresh', filters: { registered_within_days: 7 } })).body.data;
    expect(s).toMatchObject({
      name: 'Fresh',
      filters: { registered_within_days: 7 },
      baseline: matching((c) => c.registered_on >= '2026-11-13'),
    });
    await api('POST', '/sandbox/companies', {
      companies: [{ registered_on: '2026-11-10' }, { registered_on: '2026-11-19', name: 'Värske OÜ' }],
    });
    await api('POST', '/sandbox/runs', { kind: 'morning' });
    const m = (await api('GET', `/searches/${s.id}/matches`)).body.data;
    expect(m[0].data.companies.map((c: any) => c.name)).toEqual(['Värske OÜ']);

    expect((await api('GET', '/searches')).body.data.map((x: any) => x.id)).toEqual([s.id]);
    expect((await api('GET', `/searches/${s.id}`)).body.data.filters).toEqual({ registered_within_days: 7 });
    expect((await api('POST', '/searches', { name: 'x', filters: { colour: ['red'] } })).status).toBe(400);
    // Registered companies get the same rules as the interface: a real date, a registry code with its check digit.
    for (const bad of [{ registered_on: '2026-02-30' }, { registry_code: '12345679' }]) {
      expect((await api('POST', '/sandbox/companies', { companies: [bad] })).status).toBe(400);
    }
    expect((await api('DELETE', `/searches/${s.id}`)).body.data).toEqual({ id: s.id, deleted: true });
    expect((await api('GET', `/searches/${s.id}/matches`)).status).toBe(404);
  });
});
