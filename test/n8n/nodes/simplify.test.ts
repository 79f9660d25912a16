import type { IDataObject, INodeExecutionData, INodeType } from 'n8n-workflow';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startSandbox, type Sandbox } from '../../../packages/company-data/src/sandbox';
import { CompanyDataCompanies } from '../../../nodes/CompanyDataCompanies/CompanyDataCompanies.node';
import { CompanyDataFinancials } from '../../../nodes/CompanyDataFinancials/CompanyDataFinancials.node';
import { CompanyDataPeople } from '../../../nodes/CompanyDataPeople/CompanyDataPeople.node';
import { CompanyDataRisk } from '../../../nodes/CompanyDataRisk/CompanyDataRisk.node';
import { nodeSpecs } from '../../../src/n8n/descriptions/nodes';
import { propertiesFor } from '../../../src/n8n/descriptions/properties';
import { executeContext, jsonOf } from '../../support/n8n-context';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox({ port: 0, seed: 1, companies: 2000 });
});
afterAll(async () => {
  await sb?.close();
});

const code = (k: string) => sb.fixtures.companies[k]!.registry_code;
const rl = (value: string | number) => ({ __rl: true, mode: 'id', value: String(value) });

async function run(node: INodeType, version: number, params: Record<string, unknown>) {
  const { ctx } = executeContext({ params, version, credentials: { apiKey: sb.apiKey, baseUrl: sb.url, authStyle: 'xApiKey' } });
  return jsonOf((await node.execute!.call(ctx)) as INodeExecutionData[][]);
}

/** Flat: every value a string, number, boolean or null, so each is one column of n8n's table. */
const isFlat = (row: IDataObject) => Object.values(row).every((v) => v === null || ['string', 'number', 'boolean'].includes(typeof v));

describe('Simplify (version 2, on by default)', () => {
  const companies = new CompanyDataCompanies();

  test('search: flat company summaries with the status label; off gives the nested answer; version 1 unchanged', async () => {
    const params = { operation: 'search', q: sb.fixtures.queries.exact_name!.q, returnAll: false, limit: 3 };
    const flat = await run(companies, 2, params);
    expect(flat.length).toBeGreaterThan(0);
    expect(flat.every(isFlat)).toBe(true);
    expect(flat[0]).toMatchObject({ registry_code: code('active'), status_label: expect.any(String), address: expect.any(String) });
    expect(flat[0]).not.toHaveProperty('matched_previous_name');
    const full = await run(companies, 2, { ...params, simplify: false });
    expect(full[0]).toMatchObject({ registry_code: code('active'), status: { code: expect.any(String), label: expect.any(String) } });
    expect(await run(companies, 1, params)).toEqual(full);
  });

  test('search by a previous name keeps the matched earlier name as a column', async () => {
    const rows = await run(companies, 2, { operation: 'search', q: sb.fixtures.queries.previous_name!.q, returnAll: false, limit: 5 });
    expect(rows.some((r) => typeof r.matched_previous_name === 'string')).toBe(true);
  });

  test('profile: main facts and included sections as columns', async () => {
    const [row] = await run(companies, 2, {
      operation: 'get',
      registryCode: rl(code('tax_debt')),
      options: { include: ['credit_score', 'tax_debt', 'representatives'], lang: 'en' },
    });
    expect(isFlat(row!)).toBe(true);
    expect(row).toMatchObject({
      registry_code: code('tax_debt'),
      name: sb.fixtures.companies.tax_debt!.name,
      main_activity: expect.stringMatching(/^\d+ /),
      tax_debt_total: expect.any(Number),
      representatives_total: expect.any(Number),
    });
    expect(row!.tax_debt_total).toBeGreaterThan(0);
    expect(row).toHaveProperty('credit_rating');
  });

  test('person, credit score, financials by year and one annual report', async () => {
    const person = sb.fixtures.persons.board_member!;
    const [p] = await run(new CompanyDataPeople(), 2, { operation: 'getPerson', id: rl(person.id) });
    expect(isFlat(p!)).toBe(true);
    expect(p).toMatchObject({
      id: person.id,
      name: person.name,
      current_roles: expect.any(Number),
      current_role_list: expect.stringContaining(code('active')),
    });

    const [score] = await run(new CompanyDataRisk(), 2, { operation: 'creditScore', registryCode: rl(code('active')) });
    expect(isFlat(score!)).toBe(true);
    expect(score).toMatchObject({ rated: true, rating: expect.any(String), score: expect.any(Number) });

    const financials = new CompanyDataFinancials();
    const years = await run(financials, 2, { operation: 'financials', registryCode: rl(code('active')) });
    expect(years.length).toBeGreaterThan(1);
    expect(years.every(isFlat)).toBe(true);
    expect(years.map((y) => y.year)).toEqual([...years.map((y) => y.year)].sort((a, b) => Number(b) - Number(a)));
    expect(years[0]).toHaveProperty('revenue');
    const [whole] = await run(financials, 1, { operation: 'financials', registryCode: code('active') });
    expect(whole!.years).toHaveLength(years.length);

    const [report] = await run(financials, 2, { operation: 'annualReport', registryCode: rl(code('active')), year: years[0]!.year });
    expect(isFlat(report!)).toBe(true);
    expect(report).toMatchObject({ year: years[0]!.year, revenue: years[0]!.revenue });
  });

  test('the switch exists only in version 2, for the operations with a flat form', () => {
    expect(propertiesFor(nodeSpecs.companies, 1).some((p) => p.name === 'simplify')).toBe(false);
    const sw = propertiesFor(nodeSpecs.companies, 2).find((p) => p.name === 'simplify')!;
    expect(sw).toMatchObject({ type: 'boolean', default: true });
    expect((sw.displayOptions!.show!.operation as string[]).sort()).toEqual(['byVat', 'get', 'search']);
  });
});
