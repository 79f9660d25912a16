/**
 * Every operation of the table through CompanyDataClient against the running sandbox, over real HTTP:
 * answers parse with their schemas (no onSchemaMismatch call) and carry the fixture values of
 * docs/sandbox.md. The last test checks that this file called every operation of the table.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { operationId } from '@company-data/core/operation';
import { operations } from '@company-data/core/operations';
import { classifierTypes } from '@company-data/core/vocabulary';
import { includeSections } from '@company-data/core/params';
import { json, startTestServer, type TestServer } from '../../support/http-server';
import { FX, startClientRig, waitFor, type ClientRig } from './support';

let rig: ClientRig;
let rx: TestServer;
beforeAll(async () => {
  rig = await startClientRig();
  rx = await startTestServer((_req, res) => json(res, 200, { ok: true }));
});
afterAll(async () => {
  await rig.close();
  await rx.close();
});
afterEach(() => expect(rig.mismatches).toEqual([]));

const c = () => rig.client;

describe('companies', () => {
  it('fixtures of docs/sandbox.md are the sandbox fixtures', () => {
    const f = rig.sb.fixtures.companies;
    expect(f.active).toMatchObject({ registry_code: FX.active.code, vat_number: FX.active.vat, name: FX.active.name });
    expect(f.vat_ended).toMatchObject({ registry_code: FX.vat_ended.code, vat_number: FX.vat_ended.vat });
    expect(rig.sb.fixtures.vat_groups.g1).toEqual({ vat_number: FX.vat_group.vat, members: [...FX.vat_group.members] });
    expect(rig.sb.fixtures).toMatchObject({ unknown_registry_code: FX.unknown_code, unknown_vat_number: FX.unknown_vat });
  });

  it('search: exact name first, previous names, code prefix, filters newest first', async () => {
    const exact = await c().companies.search({ q: 'Lõunaranna Tarkvara' });
    expect(exact.data[0]).toMatchObject({
      registry_code: FX.active.code,
      name: FX.active.name,
      matched_previous_name: null,
      status: { code: 'R', label: 'Registered' },
    });
    expect(exact.meta.pagination).toMatchObject({ page: 1, limit: 25 });
    const prev = await c().companies.search({ q: 'Kuldnokavälja' });
    expect(prev.data[0]).toMatchObject({
      registry_code: FX.previous_names.code,
      matched_previous_name: expect.stringContaining('Kuldnokavälja'),
    });
    const prefix = await c().companies.search({ q: '1354', limit: 100 });
    expect(prefix.data.every((x) => x.registry_code.startsWith('1354'))).toBe(true);
    expect(prefix.data.map((x) => x.registry_code)).toContain(FX.active.code);
    const filtered = await c().companies.search({ status: ['L'], legal_form: ['OÜ'], registered_from: '2010-01-01', limit: 50 });
    expect(filtered.data.length).toBeGreaterThan(0);
    expect(filtered.data.every((x) => x.status.code === 'L' && x.legal_form.name === 'Osaühing' && x.registered_on >= '2010-01-01')).toBe(
      true,
    );
    const dates = filtered.data.map((x) => x.registered_on);
    expect(dates).toEqual([...dates].sort().reverse());
    const byVat = await c().companies.search({ vat_number: [FX.vat_group.vat] });
    expect(byVat.data.map((x) => x.registry_code).sort()).toEqual([...FX.vat_group.members].sort());
  });

  it('lookup: order kept, query verbatim, types, skipped, VAT groups and ended VAT', async () => {
    const queries = [FX.active.code, ` ${FX.vat_ended.vat.toLowerCase()}`, 'ab', FX.vat_group.vat, 'Lõunaranna Tarkvara', FX.unknown_code];
    const r = await c().companies.lookup({ queries, limit: 3 });
    expect(r.data.map((x) => x.query)).toEqual(queries);
    expect(r.data.map((x) => x.type)).toEqual(['registry_code', 'vat_number', 'name', 'vat_number', 'name', 'registry_code']);
    expect(r.data[0]!.matches[0]).toMatchObject({ registry_code: FX.active.code, vat_number: FX.active.vat });
    expect(r.data[1]).toMatchObject({ vat_holders: 0, matches: [{ registry_code: FX.vat_ended.code }] });
    expect(r.data[2]).toMatchObject({ skipped: 'query_too_short', matches: [] });
    expect(r.data[3]!.vat_holders).toBe(3);
    expect(r.data[3]!.matches.map((m) => m.registry_code)).toEqual([...FX.vat_group.members]);
    expect(r.data[4]!.matches[0]!.registry_code).toBe(FX.active.code);
    expect(r.data[5]!.matches).toEqual([]);
    expect(r.meta).toMatchObject({ queries: 6, matched: 4 });
  });

  it('byVat: every accepted form, meta.vat_number normalised, registered group member first', async () => {
    for (const form of [FX.active.vat, `ee ${FX.active.vat.slice(2)}`, FX.active.vat.slice(2)]) {
      const r = await c().companies.byVat({ vat_number: form });
      expect(r.data.registry_code).toBe(FX.active.code);
      expect(r.meta).toMatchObject({ vat_number: FX.active.vat, vat_holders: 1 });
    }
    const g = await c().companies.byVat({ vat_number: FX.vat_group.vat });
    expect(g.data.registry_code).toBe(FX.vat_group.members[0]);
    expect(g.meta.vat_holders).toBe(3);
    const ended = await c().companies.byVat({ vat_number: FX.vat_ended.vat });
    expect(ended.meta.vat_holders).toBe(0);
    expect(ended.data.vat_registrations[0]).toMatchObject({ vat_number: FX.vat_ended.vat, until: expect.any(String) });
  });

  it('get: profile fields, every include section, embedded lists of 25 with the total, lang', async () => {
    const p = await c().companies.get({ registry_code: FX.contacts.code });
    expect(new Set(p.data.contacts.map((x) => x.type))).toEqual(new Set(['email', 'phone', 'mobile', 'website', 'other']));
    expect(p.data.einvoice_providers).toHaveLength(2);
    const all = await c().companies.get({ registry_code: FX.many_rows.code, include: ['all'], history: true });
    for (const s of includeSections) expect(all.data).toHaveProperty(s);
    const reps = all.data.representatives as { items: unknown[]; total: number };
    expect(reps.items).toHaveLength(25);
    expect(reps.total).toBeGreaterThan(25);
    for (const s of [
      'shareholders',
      'holdings',
      'court_cases',
      'payment_orders',
      'enforcements',
      'rulings',
      'announcements',
      'properties',
      'domains',
      'permits',
      'state_payments',
    ] as const) {
      const section = all.data[s] as { items: unknown[]; total: number };
      expect(section.items, s).toHaveLength(25);
      expect(section.total, s).toBeGreaterThan(25);
    }
    const et = await c().companies.get({ registry_code: FX.status_deleted.code, lang: 'et', include: ['credit_score'] });
    expect(et.data).toMatchObject({ status: { code: 'D', label: 'Kustutatud' }, deleted_on: expect.any(String), vat_number: null });
    expect(et.data.credit_score).toMatchObject({ rated: false, reason: 'deleted' });
    const bl = await c().companies.get({ registry_code: FX.consumer_blacklist.code, include: ['consumer_disputes'] });
    expect(bl.data.consumer_blacklist_since).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect((bl.data.consumer_disputes as { total: number }).total).toBeGreaterThan(0);
    const emtak = await c().companies.get({ registry_code: FX.emtak_2025.code });
    expect(emtak.data.activities.some((a) => a.emtak_version === 2025)).toBe(true);
  });
});

describe('people', () => {
  it('representatives, shareholders (foreign, joint), beneficial owners, other parties, holdings chain, history, q', async () => {
    const reps = await c().people.representatives({ registry_code: FX.active.code });
    expect(reps.data.some((r) => r.party.name === FX.persons.board_member.name && r.until === null)).toBe(true);
    const foreign = await c().people.shareholders({ registry_code: FX.foreign_owner.code });
    expect(foreign.data.some((r) => r.party.type === 'organisation' && r.party.name === FX.persons.foreign_organisation.name)).toBe(true);
    const shares = foreign.data.map((r) => r.share?.percent ?? 0);
    expect(shares).toEqual([...shares].sort((a, b) => b - a));
    const joint = await c().people.shareholders({ registry_code: FX.joint_ownership.code });
    expect(joint.data.some((r) => r.share?.ownership?.code === 'joint')).toBe(true);
    const ubo = await c().people.beneficialOwners({ registry_code: FX.beneficial_owners.code });
    expect(ubo.data).toHaveLength(3);
    const other = await c().people.otherParties({ registry_code: FX.large_as.code });
    expect(other.data.length).toBeGreaterThan(0);
    const top = await c().people.holdings({ registry_code: FX.holding_top.code });
    expect(top.data.map((h) => h.company.registry_code)).toContain(FX.holding_middle.code);
    const middle = await c().people.holdings({ registry_code: FX.holding_middle.code });
    expect(middle.data.map((h) => h.company.registry_code)).toContain(FX.holding_bottom.code);
    const current = await c().people.representatives({ registry_code: FX.ended_relations.code });
    const withHistory = await c().people.representatives({ registry_code: FX.ended_relations.code, history: true });
    expect(current.data.every((r) => r.until === null)).toBe(true);
    expect(withHistory.data.some((r) => r.until !== null)).toBe(true);
    const name = withHistory.data[0]!.party.name;
    const q = await c().people.representatives({ registry_code: FX.ended_relations.code, history: true, q: name.split(' ')[1]! });
    expect(q.data.length).toBeGreaterThan(0);
    expect(q.data.every((r) => JSON.stringify(r).toLowerCase().includes(name.split(' ')[1]!.toLowerCase()))).toBe(true);
  });

  it('searchPersons and getPerson: more than 1000 roles returns 1000 with roles_total', async () => {
    const s = await c().people.searchPersons({ q: FX.persons.many_roles.name });
    expect(s.data[0]).toMatchObject({ id: FX.persons.many_roles.id, name: FX.persons.many_roles.name, type: 'person' });
    expect(s.data[0]!.active_roles).toBeGreaterThan(1000);
    const p = await c().people.getPerson({ id: FX.persons.many_roles.id });
    expect(p.data.roles).toHaveLength(1000);
    expect(p.data.roles_total).toBeGreaterThan(1000);
    const org = await c().people.getPerson({ id: FX.persons.foreign_organisation.id });
    expect(org.data).toMatchObject({ type: 'organisation', name: FX.persons.foreign_organisation.name });
  });
});

describe('financials', () => {
  it('financials with five years of ratios, annual reports of every status, one report, quarterly taxes', async () => {
    const f = await c().financials.financials({ registry_code: FX.active.code });
    expect(f.data.years.filter((y) => y.ratios).length).toBe(5);
    expect(f.data.revenue_by_activity.length).toBeGreaterThan(0);
    const list = await c().financials.annualReports({ registry_code: FX.annual_reports.code });
    expect(new Set(list.data.map((r) => r.status))).toEqual(new Set(['valid', 'superseded', 'overdue', 'not_yet_due']));
    expect(list.data.some((r) => r.status === 'valid' && !r.has_statements)).toBe(true);
    const year = list.data.find((r) => r.status === 'valid' && r.has_statements)!.year;
    const one = await c().financials.annualReport({ registry_code: FX.annual_reports.code, year });
    expect(one.data.year).toBe(year);
    expect(one.data.statements.length).toBe(3);
    const q = await c().financials.quarterlyTaxes({ registry_code: FX.active.code });
    const keys = q.data.map((x) => x.year * 10 + x.quarter);
    expect(keys.length).toBeGreaterThan(0);
    expect(keys).toEqual([...keys].sort((a, b) => b - a));
  });
});

describe('risk', () => {
  it('credit score: rated, unrated for each reason, rules', async () => {
    const active = await c().risk.creditScore({ registry_code: FX.active.code });
    expect(active.data).toMatchObject({ rated: true, rule: null });
    expect(active.data.score).toBeGreaterThanOrEqual(0);
    for (const [code, reason] of [
      [FX.status_bankrupt.code, 'bankrupt'],
      [FX.status_liquidation.code, 'liquidation'],
      [FX.status_deleted.code, 'deleted'],
      [FX.not_covered.code, 'not_covered'],
    ] as const) {
      expect((await c().risk.creditScore({ registry_code: code })).data).toMatchObject({ rated: false, reason });
    }
    expect((await c().risk.creditScore({ registry_code: FX.rule_in_default.code })).data).toMatchObject({
      rule: 'in_default',
      rating: 'D',
    });
    expect((await c().risk.creditScore({ registry_code: FX.rule_capital_breach.code })).data.rule).toBe('capital_breach');
  });

  it('tax debt with claims and history, a stale list ignored, declarations', async () => {
    const debt = await c().risk.taxDebt({ registry_code: FX.tax_debt.code });
    expect(debt.data.total).toBeGreaterThan(0);
    expect(debt.data.claims.length).toBeGreaterThan(0);
    expect(debt.data.history.length).toBeGreaterThanOrEqual(89);
    const stale = await c().risk.taxDebt({ registry_code: FX.tax_debt_stale.code });
    expect(stale.data).toMatchObject({ snapshot_date: null, total: 0, claims: [] });
    const decl = await c().risk.taxDeclarations({ registry_code: FX.tax_declarations.code });
    expect(decl.data.missing.length).toBeGreaterThan(0);
    expect(decl.data.late.length).toBeGreaterThan(0);
  });

  it('court cases, payment orders, enforcements and rulings are paged lists', async () => {
    const code = FX.risk_records.code;
    const cases = await c().risk.courtCases({ registry_code: code });
    expect(cases.data.length).toBeGreaterThan(0);
    expect(cases.meta.pagination).toMatchObject({ page: 1, total: cases.data.length, has_more: false });
    expect((await c().risk.paymentOrders({ registry_code: code })).data[0]!.amounts.total).toBeGreaterThan(0);
    expect((await c().risk.enforcements({ registry_code: code })).data[0]!.bailiff).toEqual(expect.any(String));
    const rulings = await c().risk.rulings({ registry_code: code, limit: 1 });
    expect(rulings.data).toHaveLength(1);
    expect(rulings.data[0]).toMatchObject({ ruling_number: expect.any(String), date: expect.any(String) });
  });
});

describe('assets', () => {
  it('each section through the profile include: items and total', async () => {
    const code = FX.assets.code;
    for (const name of ['properties', 'domains', 'permits', 'statePayments'] as const) {
      const r = await c().assets[name]({ registry_code: code });
      expect(r.data.total).toBeGreaterThan(0);
      expect(r.data.items.length).toBe(Math.min(25, r.data.total));
    }
    expect((await c().assets.announcements({ registry_code: FX.risk_records.code })).data.total).toBeGreaterThan(0);
    expect((await c().assets.consumerDisputes({ registry_code: FX.consumer_blacklist.code })).data.items[0]).toMatchObject({
      case_number: expect.any(String),
    });
    const many = await c().assets.properties({ registry_code: FX.many_rows.code });
    expect(many.data.items).toHaveLength(25);
    expect(many.data.total).toBeGreaterThan(25);
  });
});

describe('reference', () => {
  it('classifiers of every type, EMTAK in both editions, usage, OpenAPI without a key', async () => {
    for (const type of classifierTypes) {
      const r = await c().reference.classifiers({ type });
      expect(r.data.length, type).toBeGreaterThan(0);
    }
    const forms = await c().reference.classifiers({ type: 'legal_forms', lang: 'et' });
    expect(forms.data.map((x) => x.code)).toContain('OÜ');
    const e2008 = await c().reference.emtak({ q: '62', version: 2008 });
    expect(e2008.data.every((x) => x.code.startsWith('62') && x.version === 2008)).toBe(true);
    const e2025 = await c().reference.emtak({ q: '62', version: 2025 });
    expect(e2025.data.every((x) => x.version === 2025)).toBe(true);
    const u = await c().reference.usage();
    expect(u.data).toMatchObject({ period: '2026-11', plan: 'api' });
    expect(u.data.requests).toBeGreaterThan(0);
    const keyless = rig.newClient({ apiKey: undefined });
    const doc = await keyless.reference.openapi();
    expect(doc.data).toMatchObject({ openapi: '3.1.0', info: { version: '1.0' } });
  });
});

describe('monitoring, saved searches, webhook', () => {
  it('every write operation, with events and matches read through the cursor iterators', async () => {
    const code = FX.active.code;
    const list = await c().monitoring.createList({ name: 'Clients' });
    expect(list.data).toMatchObject({ id: expect.stringMatching(/^lst_/), name: 'Clients', companies: 0 });
    const id = list.data.id;
    const added = await c().monitoring.addCompanies({
      list_id: id,
      add: [{ registry_code: code, external_ref: 'crm-1' }, { registry_code: FX.large_as.code }, { registry_code: FX.unknown_code }],
    });
    expect(added.data).toMatchObject({ added: 2, total: 2, invalid: [{ registry_code: FX.unknown_code, reason: 'not_found' }] });
    expect((await c().monitoring.lists()).data.map((l) => l.id)).toEqual([id]);
    expect((await c().monitoring.getList({ list_id: id })).data.companies).toBe(2);
    expect((await c().monitoring.updateList({ list_id: id, name: 'Key clients' })).data.name).toBe('Key clients');
    const companies = await c().monitoring.listCompanies({ list_id: id });
    expect(companies.data.find((x) => x.registry_code === code)).toMatchObject({ name: FX.active.name, external_ref: 'crm-1' });
    expect(
      (await c().monitoring.updateCompany({ list_id: id, registry_code: FX.large_as.code, categories: ['tax'] })).data.categories,
    ).toEqual(['tax']);

    const hook = await c().webhook.set({ url: `${rx.url}/hook`, enabled: true });
    expect(hook.data.signing_secret).toMatch(/^whsec_/);
    expect((await c().webhook.get()).data).toEqual({
      url: `${rx.url}/hook`,
      enabled: true,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });

    const change = await rig.control('POST', '/sandbox/changes', { registry_code: code, category: 'registry', kind: 'address_changed' });
    const events = [];
    for await (const e of c().iterateEvents()) events.push(e);
    expect(events.map((e) => e.id)).toEqual(change.events);
    expect(events[0]!.data).toMatchObject({
      company: { registry_code: code },
      lists: [{ id, name: 'Key clients', external_ref: 'crm-1' }],
      kind: 'address_changed',
      details: { new: change.change.details.new },
    });
    expect((await c().monitoring.events({ after: events[0]!.id })).meta).toMatchObject({ next_cursor: events[0]!.id, has_more: false });

    const test = await c().webhook.test();
    const delivered = await waitFor(
      async () => (await c().webhook.deliveries({ status: 'delivered' })).data.find((d) => d.event_id === test.data.event_id),
      5000,
      'the test delivery',
    );
    const retried = await c().webhook.retryDelivery({ delivery_id: delivered.id });
    expect(retried.data).toMatchObject({ event_id: test.data.event_id, retry_of: delivered.id });

    const search = await c().searches.create({ name: 'New in Saare', filters: { county: ['Saare maakond'], registered_within_days: 30 } });
    expect(search.data).toMatchObject({ id: expect.stringMatching(/^srch_/), baseline: expect.any(Number) });
    const reg = await rig.control('POST', '/sandbox/companies', { count: 2, template: { county: 'Saare maakond' } });
    await rig.control('POST', '/sandbox/runs', { kind: 'morning' });
    const matches = [];
    for await (const m of c().iterateMatches({ search_id: search.data.id })) matches.push(m);
    expect(matches).toHaveLength(1);
    expect(matches[0]!.data.companies.map((x) => x.registry_code).sort()).toEqual([...reg.registry_codes].sort());
    expect((await c().searches.matches({ search_id: search.data.id })).data.map((m) => m.id)).toEqual(matches.map((m) => m.id));
    expect((await c().searches.list()).data.map((s) => s.id)).toEqual([search.data.id]);
    expect((await c().searches.get({ search_id: search.data.id })).data.filters).toEqual({
      county: ['Saare maakond'],
      registered_within_days: 30,
    });
    expect((await c().searches.remove({ search_id: search.data.id })).data).toEqual({ id: search.data.id, deleted: true });

    expect((await c().monitoring.removeCompany({ list_id: id, registry_code: FX.large_as.code })).data).toEqual({
      registry_code: FX.large_as.code,
      removed: true,
    });
    expect((await c().reference.usage()).data.monitored_companies).toBe(1);
    expect((await c().monitoring.deleteList({ list_id: id })).data).toEqual({ id, deleted: true });
    expect((await c().reference.usage()).data.monitored_companies).toBe(0);
  });
});

describe('coverage', () => {
  it('this file called every operation of the table through the client', () => {
    const all = operations.map(operationId).sort();
    expect([...rig.operations].sort()).toEqual(all);
  });
});
