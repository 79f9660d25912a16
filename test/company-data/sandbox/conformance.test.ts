/**
 * Walks the service interface statement by statement against a running sandbox, over raw HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorBodySchema } from '@company-data/core/schemas/common';
import { companyProfileSchema, companySummarySchema } from '@company-data/core/schemas/company';
import { isRegistryCode, personalCodeProblem, vatNumberProblem } from '@company-data/core/validation';
import { startSandbox, type Sandbox } from '../../../packages/company-data/src/sandbox';

let sb: Sandbox;
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

async function call(path: string, init: { method?: string; body?: unknown; key?: string | null; bearer?: boolean } = {}) {
  const key = init.key === undefined ? sb.apiKey : init.key;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (key) headers[init.bearer ? 'authorization' : 'x-api-key'] = init.bearer ? `Bearer ${key}` : key;
  const res = await fetch(sb.url + path, {
    method: init.method ?? 'GET',
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}
const fx = () => sb.fixtures.companies;
const code = (k: string) => fx()[k]!.registry_code;

beforeAll(async () => {
  sb = await startSandbox({ companies: 3000, rateLimit: false });
});
afterAll(() => sb.close());

describe('envelope and conventions', () => {
  it('wraps data with success and meta.request_id (UUID)', async () => {
    const r = await call(`/companies/${code('active')}`);
    expect(r.status).toBe(200);
    expect(r.body.success).toBe(true);
    expect(r.body.meta.request_id).toMatch(uuid);
    expect(companyProfileSchema.safeParse(r.body.data).success).toBe(true);
  });
  it('paged lists carry meta.pagination page, limit, total, has_more; default 25', async () => {
    const r = await call('/companies');
    expect(r.body.meta.pagination).toEqual({ page: 1, limit: 25, total: 3000, has_more: true });
    expect(r.body.data).toHaveLength(25);
    const last = await call('/companies?page=30&limit=100');
    expect(last.body.meta.pagination).toEqual({ page: 30, limit: 100, total: 3000, has_more: false });
  });
  it('limit is 1-100 and page from 1: 400 naming the parameter', async () => {
    for (const q of ['limit=0', 'limit=101', 'page=0', 'page=x']) {
      const r = await call(`/companies?${q}`);
      expect(r.status).toBe(400);
      expect(errorBodySchema.safeParse(r.body).success).toBe(true);
      expect(r.body.error).toMatchObject({ code: 'invalid_parameter', param: q.split('=')[0] });
    }
  });
  it('lang sets labels; names stay as registered', async () => {
    const [et, en, ru] = await Promise.all(['et', 'en', 'ru'].map((l) => call(`/companies/${code('active')}?lang=${l}`)));
    expect(et!.body.data.status.label).toBe('Registrisse kantud');
    expect(en!.body.data.status.label).toBe('Registered');
    expect(ru!.body.data.status.label).toBe('Зарегистрирован');
    expect(en!.body.data.legal_form).toEqual({ name: 'Osaühing', label: 'Private limited company' });
    expect(new Set([et!.body.data.name, en!.body.data.name, ru!.body.data.name]).size).toBe(1);
    expect((await call('/companies?lang=de')).body.error.param).toBe('lang');
  });
  it('registry codes, VAT numbers and personal codes in the data are valid', async () => {
    const r = await call('/companies?limit=100');
    for (const c of r.body.data) {
      expect(isRegistryCode(c.registry_code)).toBe(true);
      if (c.vat_number) expect(vatNumberProblem(c.vat_number)).toBeNull();
      expect(companySummarySchema.safeParse(c).success).toBe(true);
    }
    const reps = await call(`/companies/${code('many_rows')}/representatives?limit=100&history=true`);
    for (const row of reps.body.data) expect(personalCodeProblem(row.party.personal_code)).toBeNull();
  });
});

describe('authentication and errors', () => {
  it('401 api_key_required without a key, invalid_api_key for an unknown one; Bearer works', async () => {
    expect((await call('/companies', { key: null })).body.error.code).toBe('api_key_required');
    const bad = await call('/companies', { key: 'sk_nope' });
    expect([bad.status, bad.body.error.code]).toEqual([401, 'invalid_api_key']);
    expect((await call('/companies', { bearer: true })).status).toBe(200);
  });
  it('GET /openapi.json needs no key: OpenAPI 3.1.0, version 1.0, from the operation table', async () => {
    const r = await call('/openapi.json', { key: null });
    expect(r.status).toBe(200);
    expect(r.body.openapi).toBe('3.1.0');
    expect(r.body.info.version).toBe('1.0');
    expect(r.body.components.securitySchemes.apiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
    expect(r.body.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(r.body.paths['/companies/lookup'].post['x-billing']).toMatch(/per query/);
    expect(r.body.paths['/companies'].get.responses['429']).toBeDefined();
  });
  it('404 for unknown company, route, year, person', async () => {
    for (const p of [
      `/companies/${sb.fixtures.unknown_registry_code}`,
      '/nowhere',
      `/companies/${code('active')}/annual-reports/1995`,
      '/persons/99999999',
    ]) {
      const r = await call(p);
      expect([p, r.status, r.body.error.code]).toEqual([p, 404, 'not_found']);
    }
  });
  it('405 with Allow for a known path and a wrong method, also where a {parameter} path would take the literal', async () => {
    const list = (await call('/monitoring/lists', { method: 'POST', body: { name: '405' } })).body.data.id as string;
    const cases: [string, string, string][] = [
      ['GET', '/companies/lookup', 'POST'],
      ['DELETE', '/companies/by-vat/EE102224658', 'GET'],
      ['POST', `/companies/${code('active')}`, 'GET'],
      ['GET', `/monitoring/lists/${list}/companies/${code('active')}`, 'DELETE, PATCH'],
      ['PUT', `/monitoring/lists/${list}`, 'DELETE, GET, PATCH'],
      ['GET', '/webhook/test', 'POST'],
    ];
    for (const [method, path, allow] of cases) {
      const r = await call(path, { method, ...(method === 'GET' || method === 'DELETE' ? {} : { body: {} }) });
      expect([method, path, r.status, r.headers.get('allow'), r.body.error.code]).toEqual([method, path, 405, allow, 'method_not_allowed']);
    }
    // The literal path wins only for its own method: a registry code still reads the profile.
    expect((await call(`/companies/${code('active')}`)).status).toBe(200);
  });
  it('400 on a registry code with a bad check digit or form, naming registry_code', async () => {
    const c = code('active');
    const bad = c.slice(0, 7) + ((Number(c[7]) + 1) % 10);
    for (const p of [bad, '1234', '22222222']) {
      const r = await call(`/companies/${p}`);
      expect(r.status).toBe(400);
      expect(r.body.error.param).toBe('registry_code');
    }
  });
  it('400 for a value of the wrong type says what it must be (not "is required")', async () => {
    for (const [p, param, message] of [
      [`/companies/${code('active')}/annual-reports/abc`, 'year', 'year must be a number'],
      ['/persons/abc', 'id', 'id must be a number'],
      ['/companies?limit=ten', 'limit', 'limit must be a number'],
      [`/companies/${code('active')}/representatives?history=maybe`, 'history', 'history must be true or false'],
    ]) {
      const r = await call(p!);
      expect([p, r.status, r.body.error]).toEqual([p, 400, { code: 'invalid_parameter', param, message }]);
    }
    const body = await call('/companies/lookup', { method: 'POST', body: { queries: 'Bolt' } });
    expect(body.body.error).toEqual({ code: 'invalid_parameter', param: 'queries', message: 'queries must be a list' });
    const missing = await call('/companies/lookup', { method: 'POST', body: {} });
    expect(missing.body.error).toEqual({ code: 'invalid_parameter', param: 'queries', message: 'queries is required' });
  });
  it('403 plan_required for monitoring with a basic key', async () => {
    const r = await call('/monitoring/lists', { method: 'POST', body: { name: 'x' }, key: sb.basicKey });
    expect([r.status, r.body.error.code]).toEqual([403, 'plan_required']);
  });
});

describe('company search', () => {
  it('without q: newest registrations first', async () => {
    const r = await call('/companies?limit=100');
    const dates = r.body.data.map((c: any) => c.registered_on);
    expect([...dates].sort().reverse()).toEqual(dates);
  });
  it('with q: at most 200 results in total', async () => {
    const r = await call(`/companies?q=${sb.fixtures.queries.many_hits!.q}&limit=100&page=2`);
    expect(r.body.meta.pagination).toMatchObject({ total: 200, page: 2, has_more: false });
    expect((await call(`/companies?q=${sb.fixtures.queries.many_hits!.q}&page=3&limit=100`)).body.data).toEqual([]);
  });
  it('exact names first, legal form word optional', async () => {
    const r = await call(`/companies?q=${encodeURIComponent('Lõunaranna Tarkvara')}`);
    expect(r.body.data[0].registry_code).toBe(code('active'));
    expect(r.body.data[0].matched_previous_name).toBeNull();
    const withForm = await call(`/companies?q=${encodeURIComponent('lõunaranna tarkvara oü')}`);
    expect(withForm.body.data[0].registry_code).toBe(code('active'));
  });
  it('previous names match with matched_previous_name', async () => {
    const r = await call(`/companies?q=${encodeURIComponent(sb.fixtures.queries.previous_name!.q)}`);
    expect(r.body.data[0]).toMatchObject({ registry_code: code('previous_names'), matched_previous_name: 'Kuldnokavälja Meedia OÜ' });
  });
  it('large and active ahead of small or deleted', async () => {
    const r = await call('/companies?q=Ehitus&limit=100');
    const rank = { R: 0, L: 1, N: 2, D: 3 } as Record<string, number>;
    const statuses = r.body.data.map((c: any) => rank[c.status.code]);
    expect([...statuses].sort()).toEqual(statuses);
  });
  it('registry code prefix of 3-8 digits', async () => {
    const prefix = code('active').slice(0, 5);
    const r = await call(`/companies?q=${prefix}&limit=100`);
    expect(r.body.data.length).toBeGreaterThan(0);
    for (const c of r.body.data) expect(c.registry_code.startsWith(prefix)).toBe(true);
    expect((await call(`/companies?q=${code('active')}`)).body.data.map((c: any) => c.registry_code)).toEqual([code('active')]);
  });
  it('filters: status (comma-separated or repeated), legal_form name or abbreviation, county, activity, vat_number, registered range', async () => {
    const a = await call('/companies?status=L,N&limit=100');
    const b = await call('/companies?status=L&status=N&limit=100');
    expect(a.body.meta.pagination.total).toBe(b.body.meta.pagination.total);
    for (const c of a.body.data) expect(['L', 'N']).toContain(c.status.code);
    const byAbbr = await call(`/companies?legal_form=${encodeURIComponent('OÜ')}`);
    const byName = await call('/companies?legal_form=Osaühing');
    expect(byAbbr.body.meta.pagination.total).toBe(byName.body.meta.pagination.total);
    expect(byAbbr.body.data.every((c: any) => c.legal_form.name === 'Osaühing')).toBe(true);
    const county = await call(`/companies?county=${encodeURIComponent('Tartu maakond')}&limit=50`);
    expect(county.body.data.every((c: any) => c.address.full.startsWith('Tartu maakond'))).toBe(true);
    const vg = sb.fixtures.vat_groups.g1!;
    const vat = await call(`/companies?vat_number=${vg.vat_number}`);
    expect(vat.body.data.map((c: any) => c.registry_code).sort()).toEqual([...vg.members].sort());
    const range = await call('/companies?registered_from=2020-01-01&registered_to=2020-12-31&limit=100');
    expect(range.body.data.every((c: any) => c.registered_on.startsWith('2020'))).toBe(true);
    const act = await call('/companies?activity=62&limit=100');
    expect(act.body.meta.pagination.total).toBeGreaterThan(0);
    for (const c of act.body.data.slice(0, 5)) {
      const p = await call(`/companies/${c.registry_code}`);
      expect(p.body.data.activities.some((x: any) => x.code.startsWith('62'))).toBe(true);
    }
    expect((await call('/companies?registered_from=2020-02-30')).body.error.param).toBe('registered_from');
    // format: date allows the years 0000-0099 (Date.UTC would read them as 19xx): accepted and compared as dates.
    const all = (await call('/companies?limit=1')).body.meta.pagination.total;
    expect((await call('/companies?registered_from=0000-02-29&limit=1')).body.meta.pagination.total).toBe(all);
    expect((await call('/companies?registered_to=1999-12-31')).body.data.length).toBeGreaterThan(0);
    expect((await call('/companies?registered_to=0099-12-31')).body.data).toEqual([]);
    expect((await call('/companies?registered_from=0050-01-01&registered_to=0099-12-31')).status).toBe(200);
    expect((await call('/companies?registered_from=0050-02-29')).body.error.param).toBe('registered_from');
  });
});

describe('lookup', () => {
  it('answers in the order sent, query verbatim, type, skipped, vat_holders, meta.queries/matched; billed per query', async () => {
    const before = sb.usage(sb.apiKey).billed_lookup_queries;
    const vg = sb.fixtures.vat_groups.g1!;
    const queries = [
      ` ${code('active')}`,
      fx().active!.vat_number!,
      'ab',
      vg.vat_number,
      fx().vat_ended!.vat_number!,
      'Lõunaranna Tarkvara',
      sb.fixtures.unknown_registry_code,
      vg.vat_number.slice(2),
    ];
    const r = await call('/companies/lookup', { method: 'POST', body: { queries, limit: 2 } });
    expect(r.status).toBe(200);
    expect(r.body.data.map((x: any) => x.query)).toEqual(queries);
    expect(r.body.data.map((x: any) => x.type)).toEqual([
      'registry_code',
      'vat_number',
      'name',
      'vat_number',
      'vat_number',
      'name',
      'registry_code',
      'vat_number',
    ]);
    expect(r.body.data[0].matches[0].registry_code).toBe(code('active'));
    expect(r.body.data[2]).toMatchObject({ skipped: 'query_too_short', matches: [] });
    expect(r.body.data[3].vat_holders).toBe(3);
    expect(r.body.data[3].matches).toHaveLength(2);
    expect(r.body.data[4]).toMatchObject({ vat_holders: 0 });
    expect(r.body.data[4].matches[0].registry_code).toBe(code('vat_ended'));
    expect(r.body.data[5].matches[0].registry_code).toBe(code('active'));
    expect(r.body.data[6].matches).toEqual([]);
    expect(r.body.meta).toMatchObject({ queries: 8, matched: 6 });
    expect(sb.usage(sb.apiKey).billed_lookup_queries).toBe(before + 8);
    const usage = await call('/usage');
    expect(usage.body.data.billed_lookup_queries).toBe(before + 8);
  });
  it('reads a VAT number in the by-vat forms (EE with a space, lower case) as a VAT query', async () => {
    const vat = fx().active!.vat_number!;
    const queries = [`ee ${vat.slice(2)}`, `EE ${vat.slice(2)}`, ` ${vat.toLowerCase()} `];
    const r = await call('/companies/lookup', { method: 'POST', body: { queries } });
    expect(r.body.data.map((x: any) => [x.query, x.type, x.vat_holders, x.matches[0]?.registry_code])).toEqual(
      queries.map((q) => [q, 'vat_number', 1, code('active')]),
    );
  });
  it('1-100 queries and limit 1-10', async () => {
    expect((await call('/companies/lookup', { method: 'POST', body: { queries: [] } })).body.error.param).toBe('queries');
    expect((await call('/companies/lookup', { method: 'POST', body: { queries: Array(101).fill('x') } })).body.error.param).toBe('queries');
    expect((await call('/companies/lookup', { method: 'POST', body: { queries: ['abc'], limit: 11 } })).body.error.param).toBe('limit');
    const ok = await call('/companies/lookup', { method: 'POST', body: { queries: Array(100).fill('Ehitus'), limit: 10 } });
    expect(ok.body.data).toHaveLength(100);
    expect(ok.body.data[0].matches).toHaveLength(10);
  });
});

describe('by-vat', () => {
  it('accepts EE+9 digits, with a space and lower case, or 9 digits; meta.vat_number normalised', async () => {
    const vat = fx().active!.vat_number!;
    for (const form of [vat, `ee ${vat.slice(2)}`, vat.slice(2), vat.toLowerCase()]) {
      const r = await call(`/companies/by-vat/${encodeURIComponent(form)}`);
      expect(r.status).toBe(200);
      expect(r.body.data.registry_code).toBe(code('active'));
      expect(r.body.meta).toMatchObject({ vat_number: vat, vat_holders: 1 });
    }
    expect((await call('/companies/by-vat/EE12345')).body.error.param).toBe('vat_number');
    expect((await call(`/companies/by-vat/${sb.fixtures.unknown_vat_number}`)).status).toBe(404);
  });
  it('VAT group: one member, registered first; ended VAT: last holder with vat_holders 0', async () => {
    const g = await call(`/companies/by-vat/${sb.fixtures.vat_groups.g1!.vat_number}`);
    expect(g.body.data.registry_code).toBe(code('vat_group_a'));
    expect(g.body.meta.vat_holders).toBe(3);
    const e = await call(`/companies/by-vat/${fx().vat_ended!.vat_number}`);
    expect(e.body.data.registry_code).toBe(code('vat_ended'));
    expect(e.body.meta.vat_holders).toBe(0);
    expect(e.body.data.vat_number).toBeNull();
    expect(e.body.data.vat_registrations[0].until).not.toBeNull();
  });
});

describe('profile', () => {
  it('has every profile field; VAT registrations newest first', async () => {
    const r = await call(`/companies/${code('vat_history')}`);
    const d = r.body.data;
    for (const k of [
      'share_capital',
      'financial_year',
      'accounting_required',
      'previous_names',
      'contacts',
      'activities',
      'vat_registrations',
      'einvoice_providers',
      'consumer_blacklist_since',
      'updated_at',
    ])
      expect(d).toHaveProperty(k);
    expect(d.vat_registrations).toHaveLength(2);
    expect(d.vat_registrations[0].until).toBeNull();
    expect(d.vat_registrations[1].until).not.toBeNull();
    expect(d.vat_registrations[0].from > d.vat_registrations[1].from).toBe(true);
    expect(d).not.toHaveProperty('matched_previous_name');
  });
  it('contacts of every type, e-invoice providers, consumer blacklist, EMTAK 2025', async () => {
    const c = (await call(`/companies/${code('contacts')}`)).body.data;
    expect(c.contacts.map((x: any) => x.type).sort()).toEqual(['email', 'mobile', 'other', 'phone', 'website']);
    expect(c.einvoice_providers.length).toBe(2);
    expect((await call(`/companies/${code('consumer_blacklist')}`)).body.data.consumer_blacklist_since).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const acts = (await call(`/companies/${code('emtak_2025')}`)).body.data.activities;
    expect(acts[0]).toMatchObject({ emtak_version: 2025, main: true });
  });
  it('include: each section; lists embed the first 25 rows and the total; objects complete; all embeds everything', async () => {
    const all = (await call(`/companies/${code('many_rows')}?include=all`)).body.data;
    for (const s of [
      'representatives',
      'shareholders',
      'beneficial_owners',
      'other_parties',
      'holdings',
      'financials',
      'annual_reports',
      'quarterly_taxes',
      'tax_debt',
      'tax_declarations',
      'credit_score',
      'court_cases',
      'payment_orders',
      'enforcements',
      'rulings',
      'announcements',
      'consumer_disputes',
      'properties',
      'domains',
      'permits',
      'state_payments',
    ]) {
      expect(all).toHaveProperty(s);
    }
    expect(all.court_cases.items).toHaveLength(25);
    expect(all.court_cases.total).toBeGreaterThan(25);
    expect(all.shareholders.total).toBeGreaterThan(25);
    expect(all.holdings.total).toBeGreaterThan(25);
    expect(all.tax_debt).toHaveProperty('history');
    const one = (await call(`/companies/${code('many_rows')}?include=court_cases`)).body.data;
    expect(Object.keys(one)).toContain('court_cases');
    expect(Object.keys(one)).not.toContain('properties');
    const full = await call(`/companies/${code('many_rows')}/court-cases?limit=100`);
    expect(full.body.meta.pagination.total).toBe(all.court_cases.total);
    expect((await call(`/companies/${code('active')}?include=nope`)).body.error.param).toBe('include');
  });
});

describe('people and ownership', () => {
  it('history: ended relations only with history=true', async () => {
    const now = await call(`/companies/${code('ended_relations')}/representatives`);
    const all = await call(`/companies/${code('ended_relations')}/representatives?history=true`);
    expect(now.body.data.every((r: any) => r.until === null)).toBe(true);
    expect(all.body.data.some((r: any) => r.until !== null)).toBe(true);
    expect(all.body.meta.pagination.total).toBeGreaterThan(now.body.meta.pagination.total);
  });
  it('shareholders largest first, foreign organisations, joint ownership', async () => {
    const s = (await call(`/companies/${code('foreign_owner')}/shareholders?lang=en`)).body.data;
    const pcts = s.map((r: any) => r.share.percent);
    expect([...pcts].sort((a: number, b: number) => b - a)).toEqual(pcts);
    expect(s.some((r: any) => r.party.type === 'organisation' && r.party.person_id === sb.fixtures.persons.foreign_organisation!.id)).toBe(
      true,
    );
    const j = (await call(`/companies/${code('joint_ownership')}/shareholders?lang=en`)).body.data;
    expect(j.filter((r: any) => r.share.ownership.code === 'joint')).toHaveLength(2);
    expect(j[0].share.ownership.label).toBe('Joint ownership');
  });
  it('holdings chain and beneficial owners', async () => {
    const top = (await call(`/companies/${code('holding_top')}/holdings`)).body.data;
    expect(top.map((h: any) => h.company.registry_code)).toContain(code('holding_middle'));
    const mid = (await call(`/companies/${code('holding_middle')}/holdings`)).body.data;
    expect(mid.map((h: any) => h.company.registry_code)).toContain(code('holding_bottom'));
    const owners = (await call(`/companies/${code('holding_bottom')}/shareholders`)).body.data;
    expect(owners[0].party).toMatchObject({ type: 'company', registry_code: code('holding_middle'), person_id: null });
    const bo = (await call(`/companies/${code('beneficial_owners')}/beneficial-owners`)).body.data;
    expect(bo).toHaveLength(3);
  });
  it('q keeps rows whose text columns contain the value', async () => {
    const all = (await call(`/companies/${code('many_rows')}/representatives?history=true&limit=100`)).body.data;
    const name = all[3].party.name.split(' ')[1];
    const f = (await call(`/companies/${code('many_rows')}/representatives?history=true&limit=100&q=${encodeURIComponent(name)}`)).body
      .data;
    expect(f.length).toBeGreaterThan(0);
    expect(f.every((r: any) => JSON.stringify(r).includes(name))).toBe(true);
  });
  it('persons search: q at least 3 characters, at most 200; person roles current first, at most 1000', async () => {
    expect((await call('/persons?q=ab')).body.error.param).toBe('q');
    const s = await call('/persons?q=Tamm&limit=100');
    expect(s.body.meta.pagination.total).toBeLessThanOrEqual(200);
    expect(s.body.data[0]).toHaveProperty('active_roles');
    const p = await call(`/persons/${sb.fixtures.persons.many_roles!.id}?history=true`);
    expect(p.body.data.roles).toHaveLength(1000);
    expect(p.body.data.roles_total).toBeGreaterThan(1000);
    const cur = await call(`/persons/${sb.fixtures.persons.many_roles!.id}`);
    expect(cur.body.data.roles_total).toBeGreaterThan(1000);
    expect(cur.body.data.roles.every((r: any) => r.until === null)).toBe(true);
    const idx = p.body.data.roles.findIndex((r: any) => r.until !== null);
    expect(idx === -1 || p.body.data.roles.slice(idx).every((r: any) => r.until !== null)).toBe(true);
  });
});

describe('financials and risk', () => {
  it('five years of ratios, revenue by activity, quarterly taxes newest first', async () => {
    const f = (await call(`/companies/${code('active')}/financials`)).body.data;
    expect(f.years.filter((y: any) => y.ratios).length).toBe(5);
    expect(f.revenue_by_activity.length).toBeGreaterThan(0);
    const q = (await call(`/companies/${code('active')}/quarterly-taxes`)).body.data;
    expect(q[0]).toMatchObject({ year: 2026, quarter: 3 });
  });
  it('annual report statuses and statements', async () => {
    const list = (await call(`/companies/${code('annual_reports')}/annual-reports`)).body.data;
    expect(new Set(list.map((r: any) => r.status))).toEqual(new Set(['valid', 'superseded', 'overdue', 'not_yet_due']));
    expect(list.some((r: any) => r.status === 'valid' && !r.has_statements)).toBe(true);
    const withSt = list.find((r: any) => r.status === 'valid' && r.has_statements);
    const rep = (await call(`/companies/${code('annual_reports')}/annual-reports/${withSt.year}`)).body.data;
    expect(rep.statements.map((s: any) => s.code)).toEqual(['balance_sheet', 'income_statement', 'cash_flow']);
    const due = list.find((r: any) => r.status === 'overdue');
    expect(due.submitted_on).toBeNull();
    expect(due.due_on).not.toBeNull();
  });
  it('statement forms and row names follow lang; figures stay the same', async () => {
    const list = (await call(`/companies/${code('annual_reports')}/annual-reports`)).body.data;
    const year = list.find((r: any) => r.status === 'valid' && r.has_statements).year;
    const [et, en, ru] = await Promise.all(
      ['et', 'en', 'ru'].map(
        async (l) => (await call(`/companies/${code('annual_reports')}/annual-reports/${year}?lang=${l}`)).body.data.statements,
      ),
    );
    expect([et[0].rows[0].name, en[0].rows[0].name, ru[0].rows[0].name]).toEqual(['Raha', 'Cash', 'Денежные средства']);
    for (const s of ru) for (const row of s.rows) expect(row.name).toMatch(/^[А-Яа-яЁё() ,]+$/);
    expect(ru.map((s: any) => s.rows.map((r: any) => r.value))).toEqual(et.map((s: any) => s.rows.map((r: any) => r.value)));
  });
  it('credit score: rated, each unrated reason, each rule', async () => {
    expect((await call(`/companies/${code('active')}/credit-score`)).body.data).toMatchObject({ rated: true, rule: null });
    for (const [k, reason] of [
      ['status_bankrupt', 'bankrupt'],
      ['status_liquidation', 'liquidation'],
      ['status_deleted', 'deleted'],
      ['not_covered', 'not_covered'],
    ]) {
      expect((await call(`/companies/${code(k!)}/credit-score`)).body.data).toMatchObject({ rated: false, reason });
    }
    for (const rule of ['in_default', 'inactive', 'thin_file', 'capital_breach']) {
      expect((await call(`/companies/${code(`rule_${rule}`)}/credit-score`)).body.data).toMatchObject({ rated: true, rule });
    }
  });
  it('tax debt with claims and 3 months history; stale list ignored; declarations missing and late', async () => {
    const d = (await call(`/companies/${code('tax_debt')}/tax-debt`)).body.data;
    expect(d.total).toBeGreaterThan(0);
    expect(d.claims.length).toBeGreaterThan(1);
    expect(d.history.length).toBeGreaterThanOrEqual(90);
    const s = (await call(`/companies/${code('tax_debt_stale')}/tax-debt`)).body.data;
    expect(s).toMatchObject({ snapshot_date: null, total: 0, claims: [] });
    const decl = (await call(`/companies/${code('tax_declarations')}/tax-declarations`)).body.data;
    expect(decl.missing.length).toBeGreaterThan(0);
    expect(decl.late.length).toBeGreaterThan(0);
  });
  it('court cases newest first, payment orders, enforcements, rulings with q', async () => {
    for (const p of ['court-cases', 'payment-orders', 'enforcements', 'rulings']) {
      const r = await call(`/companies/${code('risk_records')}/${p}`);
      expect([p, r.status, r.body.data.length > 0]).toEqual([p, 200, true]);
    }
    const cases = (await call(`/companies/${code('many_rows')}/court-cases?limit=100`)).body.data;
    const dates = cases.map((c: any) => c.date);
    expect([...dates].sort().reverse()).toEqual(dates);
    const one = (await call(`/companies/${code('many_rows')}/court-cases?q=${cases[0].case_number}`)).body.data;
    expect(one[0].case_number).toBe(cases[0].case_number);
  });
});

describe('reference', () => {
  it('classifiers: [{code, label}] in lang', async () => {
    const r = (await call('/classifiers/company_statuses?lang=en')).body.data;
    expect(r).toEqual([
      { code: 'R', label: 'Registered' },
      { code: 'L', label: 'In liquidation' },
      { code: 'N', label: 'Bankrupt' },
      { code: 'D', label: 'Deleted' },
    ]);
  });
  it('EMTAK codes of 2008 and 2025', async () => {
    const a = (await call('/emtak?q=62011&version=2008')).body.data;
    expect(a[0]).toMatchObject({ code: '62011', version: 2008, title: 'Programmeerimine' });
    const b = (await call('/emtak?q=6210&version=2025')).body.data;
    expect(b[0]).toMatchObject({ code: '62101', version: 2025 });
    expect((await call('/emtak?version=2020')).body.error.param).toBe('version');
  });
  it('EMTAK words of the title in either language, case and diacritics ignored; title in lang', async () => {
    const et = (await call('/emtak?q=PROGRAMMEERIMINE&version=2008')).body;
    expect(et.data.map((x: any) => x.code)).toContain('62011');
    const en = (await call('/emtak?q=computer%20programming&version=2008&lang=en&limit=100')).body.data.find(
      (x: any) => x.code === '62011',
    );
    expect(en.title).toBe('Computer programming activities');
    const ru = (await call('/emtak?q=62011&version=2008&lang=ru')).body.data[0];
    expect(ru.title).toBe(en.title);
    const both = (await call('/emtak?q=62&limit=100')).body;
    expect(new Set(both.data.map((x: any) => x.version))).toEqual(new Set([2008, 2025]));
  });
  it('fixtures are served at GET /sandbox/fixtures', async () => {
    const r = await call('/sandbox/fixtures', { key: null });
    expect(r.body.data.companies.active.registry_code).toBe(code('active'));
  });
});
