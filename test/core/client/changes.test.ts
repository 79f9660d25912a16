/**
 * Events and the read side agree: a change made through the sandbox controls is announced by an event,
 * and the GET answers of the same company then show it. Events and matches are read with the client's
 * cursor iterators after real detection and morning runs.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { MonitoringChangeEvent } from '@company-data/core/schemas/events';
import { FX, startClientRig, type ClientRig } from './support';

let rig: ClientRig;
let listId: string;
beforeAll(async () => {
  rig = await startClientRig();
  listId = (await rig.client.monitoring.createList({ name: 'Watched' })).data.id;
});
afterAll(() => rig.close());
afterEach(() => expect(rig.mismatches).toEqual([]));

const c = () => rig.client;

/** Monitors the company, makes the change and returns the one event the client polls for it. */
async function change(code: string, category: string, kind: string, details?: Record<string, unknown>): Promise<MonitoringChangeEvent> {
  await c().monitoring.addCompanies({ list_id: listId, add: [{ registry_code: code }] });
  const made = await rig.control('POST', '/sandbox/changes', { registry_code: code, category, kind, details });
  expect(made.events).toHaveLength(1);
  const events: MonitoringChangeEvent[] = [];
  for await (const e of c().iterateEvents({ after: `evt_${Number(made.events[0].slice(4)) - 1}` })) events.push(e);
  expect(events.map((e) => e.id)).toEqual(made.events);
  expect(events[0]!.data).toMatchObject({ company: { registry_code: code }, kind });
  return events[0]!;
}

describe('GET answers follow the changes that events announced', () => {
  it('tax debt: a new debt, then cleared', async () => {
    const code = FX.active.code;
    expect((await c().risk.taxDebt({ registry_code: code })).data.total).toBe(0);
    const e = await change(code, 'tax', 'tax_debt');
    const d = e.data.details as { old: number; new: number; snapshot_date: string };
    expect(d.old).toBe(0);
    const debt = (await c().risk.taxDebt({ registry_code: code })).data;
    expect(debt).toMatchObject({ total: d.new, snapshot_date: d.snapshot_date });
    expect(debt.claims.reduce((a, x) => a + x.debt, 0)).toBeCloseTo(d.new, 2);
    expect(debt.history.at(-1)).toMatchObject({ date: d.snapshot_date, debt: d.new });
    expect((await c().companies.get({ registry_code: code, include: ['tax_debt'] })).data.tax_debt).toEqual(debt);

    const cleared = await change(code, 'tax', 'tax_debt_cleared');
    expect(cleared.data.details).toMatchObject({ old: d.new, new: 0 });
    expect((await c().risk.taxDebt({ registry_code: code })).data).toMatchObject({ total: 0, snapshot_date: null, claims: [] });
    // Nothing left to clear: the control says so.
    await expect(
      rig.control('POST', '/sandbox/changes', { registry_code: code, category: 'tax', kind: 'tax_debt_cleared' }),
    ).rejects.toThrow(/409/);
  });

  it('an existing tax debt is the old value of the event', async () => {
    const before = (await c().risk.taxDebt({ registry_code: FX.tax_debt.code })).data.total;
    const e = await change(FX.tax_debt.code, 'tax', 'tax_debt');
    expect((e.data.details as { old: number }).old).toBe(before);
    expect((await c().risk.taxDebt({ registry_code: FX.tax_debt.code })).data.total).toBe((e.data.details as { new: number }).new);
  });

  it('credit score: the rating and score of rating_changed', async () => {
    const code = FX.large_as.code;
    const before = (await c().risk.creditScore({ registry_code: code })).data;
    expect(before.rated).toBe(true);
    const e = await change(code, 'rating', 'rating_changed');
    const d = e.data.details as { old: string; new: string; old_score: number; new_score: number };
    expect(d).toMatchObject({ old: before.rating, old_score: before.score });
    const after = (await c().risk.creditScore({ registry_code: code })).data;
    expect(after).toMatchObject({ rated: true, rating: d.new, score: d.new_score });
    expect(e.data.tone).toBe(
      ['AAA', 'AA', 'A', 'BBB', 'BB', 'B', 'C', 'D'].indexOf(d.new) < ['AAA', 'AA', 'A', 'BBB', 'BB', 'B', 'C', 'D'].indexOf(d.old)
        ? 'good'
        : 'bad',
    );
    // An unrated company has no rating to change.
    await expect(
      rig.control('POST', '/sandbox/changes', { registry_code: FX.status_bankrupt.code, category: 'rating', kind: 'rating_changed' }),
    ).rejects.toThrow(/409/);
  });

  it('board: an added member is a current representative; a removed one ends on the day (history shows it)', async () => {
    const code = FX.previous_names.code;
    const added = await change(code, 'people', 'board_member_added', { new: { name: 'Maret Uuskask', role: 'JUHL' } });
    expect(added.data.details).toMatchObject({ old: null, new: { name: 'Maret Uuskask' } });
    const reps = (await c().people.representatives({ registry_code: code })).data;
    expect(reps.find((r) => r.party.name === 'Maret Uuskask')).toMatchObject({ role: { code: 'JUHL' }, from: '2026-11-20', until: null });

    const original = reps.find((r) => r.party.name !== 'Maret Uuskask' && ['JUHL', 'JUHA', 'JUHE'].includes(r.role.code))!;
    await change(code, 'people', 'board_member_removed', { old: { name: original.party.name, role: original.role.code } });
    const now = (await c().people.representatives({ registry_code: code })).data;
    expect(now.map((r) => r.party.name)).not.toContain(original.party.name);
    const history = (await c().people.representatives({ registry_code: code, history: true })).data;
    expect(history.find((r) => r.party.name === original.party.name)).toMatchObject({ until: '2026-11-20' });
  });

  it('registry: a new name is searchable (old one as previous name), status and VAT changes show in profile, by-vat and lookup', async () => {
    const code = FX.legal_form_FIE.code;
    await change(code, 'registry', 'name_changed', { new: 'Tarmo Uusnimelik FIE' });
    const found = (await c().companies.search({ q: 'Uusnimelik' })).data;
    expect(found[0]).toMatchObject({ registry_code: code, name: 'Tarmo Uusnimelik FIE', matched_previous_name: null });
    const old = (await c().companies.search({ q: 'Kivisalu' })).data.find((x) => x.registry_code === code);
    expect(old).toMatchObject({ matched_previous_name: FX.legal_form_FIE.name });
    expect((await c().companies.lookup({ queries: ['Tarmo Uusnimelik'] })).data[0]!.matches[0]!.registry_code).toBe(code);

    const vat = FX.vat_history;
    await change(vat.code, 'tax', 'vat_deregistered');
    const byVat = await c().companies.byVat({ vat_number: vat.vat });
    expect(byVat.meta.vat_holders).toBe(0);
    expect(byVat.data).toMatchObject({ registry_code: vat.code, vat_number: null });
    expect((await c().companies.lookup({ queries: [vat.vat] })).data[0]).toMatchObject({
      vat_holders: 0,
      matches: [{ registry_code: vat.code }],
    });

    await change(vat.code, 'registry', 'status_changed', { new: 'N' });
    expect((await c().companies.get({ registry_code: vat.code })).data.status.code).toBe('N');
    expect((await c().risk.creditScore({ registry_code: vat.code })).data).toMatchObject({ rated: false, reason: 'bankrupt' });
  });
});

describe('companies registered through the control endpoint', () => {
  it('are searchable by name and code, listed newest first, and found by lookup', async () => {
    const reg = await rig.control('POST', '/sandbox/companies', {
      companies: [
        { name: 'Virmaliseküla Robootika OÜ', county: 'Tartu maakond', activity_code: '62011' },
        { name: 'Virmaliseküla Pagar OÜ' },
      ],
    });
    const [robot, bakery] = reg.registry_codes as string[];
    const byName = (await c().companies.search({ q: 'Virmaliseküla' })).data.map((x) => x.registry_code);
    expect(byName.sort()).toEqual([robot, bakery].sort());
    expect((await c().companies.search({ q: 'Virmaliseküla Robootika' })).data[0]).toMatchObject({
      registry_code: robot,
      registered_on: '2026-11-20',
      status: { code: 'R' },
    });
    expect((await c().companies.search({ q: robot!.slice(0, 6) })).data.map((x) => x.registry_code)).toContain(robot);
    const newest = (await c().companies.search({ county: ['Tartu'], limit: 5 })).data;
    expect(newest[0]!.registry_code).toBe(robot);
    const l = await c().companies.lookup({ queries: [robot!, 'virmaliseküla pagar'] });
    expect(l.data.map((x) => x.matches[0]?.registry_code)).toEqual([robot, bakery]);
    const p = await c().companies.get({ registry_code: robot!, include: ['tax_debt', 'representatives'] });
    expect(p.data).toMatchObject({ name: 'Virmaliseküla Robootika OÜ', tax_debt: { total: 0 }, representatives: { items: [], total: 0 } });
  });
});

describe('events and matches through the cursor iterators after scheduled runs', () => {
  it('detection runs (control and clock) produce events read page by page from the cursor', async () => {
    const list = (await c().monitoring.createList({ name: 'Runs' })).data.id;
    // Rated companies: every category has a change that applies to them (an unrated one has no rating to change).
    const codes: string[] = [];
    for (const x of rig.sb.dataset.companies.filter((y) => y.status === 'R' && y.flags.size === 0)) {
      if ((await c().risk.creditScore({ registry_code: x.code })).data.rated) codes.push(x.code);
      if (codes.length === 6) break;
    }
    await c().monitoring.addCompanies({ list_id: list, add: codes.map((registry_code, i) => ({ registry_code, external_ref: `r${i}` })) });
    const start = (await c().monitoring.events({ limit: 100 })).data.at(-1)?.id;
    await rig.control('PUT', '/sandbox/settings', { detection_rate: 1 });
    const run = await rig.control('POST', '/sandbox/runs', { kind: 'detection' });
    // Every monitored company of the account changed once (the other list's too, when a change applies).
    expect(run.detection_events).toBeGreaterThanOrEqual(6);
    expect(run.detection_events).toBeLessThanOrEqual((await c().reference.usage()).data.monitored_companies!);
    const firstRun: MonitoringChangeEvent[] = [];
    for await (const e of c().iterateEvents({ after: start, list_id: list, limit: 4 })) firstRun.push(e);
    expect(firstRun).toHaveLength(6);
    expect(new Set(firstRun.map((e) => e.data.company.registry_code))).toEqual(new Set(codes));
    for (const e of firstRun)
      expect(e.data.lists).toEqual([{ id: list, name: 'Runs', external_ref: `r${codes.indexOf(e.data.company.registry_code)}` }]);

    // The evening run at 19:00 Tallinn time, made by moving the clock.
    await rig.control('POST', '/sandbox/clock', { to: '2026-11-20T17:30:00Z' });
    await rig.control('PUT', '/sandbox/settings', { detection_rate: 0 });
    const secondRun: MonitoringChangeEvent[] = [];
    for await (const e of c().iterateEvents({ after: firstRun.at(-1)!.id, list_id: list, limit: 4 })) secondRun.push(e);
    expect(secondRun).toHaveLength(6);
    expect(new Set(secondRun.map((e) => e.data.detected_at))).toEqual(new Set(['2026-11-20T17:00:00.000Z']));
    const byCategory: MonitoringChangeEvent[] = [];
    const cat = secondRun[0]!.data.category as 'tax';
    for await (const e of c().iterateEvents({ after: firstRun.at(-1)!.id, category: [cat] })) byCategory.push(e);
    expect(byCategory.length).toBeGreaterThan(0);
    expect(byCategory.every((e) => e.data.category === cat)).toBe(true);
  });

  it('a morning run with 600 new matches gives two parts, read with iterateMatches', async () => {
    const s = (await c().searches.create({ name: 'New in Hiiu', filters: { county: ['Hiiu maakond'], activity: ['01'] } })).data;
    await rig.control('POST', '/sandbox/companies', { count: 600, template: { county: 'Hiiu maakond', activity_code: '01131' } });
    await rig.control('POST', '/sandbox/runs', { kind: 'searches' });
    const parts = [];
    for await (const m of c().iterateMatches({ search_id: s.id, limit: 1 })) parts.push(m);
    expect(parts.map((p) => [p.data.part, p.data.parts, p.data.total, p.data.companies.length])).toEqual([
      [1, 2, 600, 500],
      [2, 2, 600, 100],
    ]);
    const again = [];
    for await (const m of c().iterateMatches({ search_id: s.id, after: parts[1]!.id })) again.push(m);
    expect(again).toEqual([]);
  });
});
