import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CompanyDataClient } from '../../../packages/company-data/src';
import { startSandbox, type Sandbox } from '../../../packages/company-data/src/sandbox';
import { nodeOperations } from '../../../src/n8n/descriptions/properties';
import { nodeSpecs, type NodeKey } from '../../../src/n8n/descriptions/nodes';
import { CompanyDataAssets } from '../../../nodes/CompanyDataAssets/CompanyDataAssets.node';
import { CompanyDataCompanies } from '../../../nodes/CompanyDataCompanies/CompanyDataCompanies.node';
import { CompanyDataFinancials } from '../../../nodes/CompanyDataFinancials/CompanyDataFinancials.node';
import { CompanyDataMonitoring } from '../../../nodes/CompanyDataMonitoring/CompanyDataMonitoring.node';
import { CompanyDataPeople } from '../../../nodes/CompanyDataPeople/CompanyDataPeople.node';
import { CompanyDataReference } from '../../../nodes/CompanyDataReference/CompanyDataReference.node';
import { CompanyDataRisk } from '../../../nodes/CompanyDataRisk/CompanyDataRisk.node';
import { CompanyDataSavedSearches } from '../../../nodes/CompanyDataSavedSearches/CompanyDataSavedSearches.node';
import { executeContext, jsonOf } from '../../support/n8n-context';
import { actionNodes } from '../../support/action-nodes';

const nodes = actionNodes();

let sb: Sandbox;
const code = (k: string) => sb.fixtures.companies[k]!.registry_code;
const covered = new Set<string>();

async function run(node: NodeKey, params: Record<string, unknown>, opts: { key?: string; items?: IDataObject[] } = {}) {
  covered.add(`${node}:${String(params.resource ?? '')}:${String(params.operation)}`);
  const { ctx, requests } = executeContext({
    params,
    items: opts.items?.map((json) => ({ json })),
    credentials: { apiKey: opts.key ?? sb.apiKey, baseUrl: sb.url, authStyle: 'xApiKey' },
  });
  const out = (await nodes[node].execute!.call(ctx)) as INodeExecutionData[][];
  for (const item of out[0]!) expect(item.pairedItem).toEqual({ item: expect.any(Number) });
  return { rows: jsonOf(out), requests };
}

beforeAll(async () => {
  sb = await startSandbox({ port: 0, seed: 1, companies: 2000 });
});
afterAll(async () => {
  await sb?.close();
});

describe('Companies', () => {
  test('Search by name emits one item per company; Return All stops at the 200 cap', async () => {
    const { rows, requests } = await run('companies', {
      operation: 'search',
      q: sb.fixtures.queries.many_hits!.q,
      returnAll: true,
      options: { lang: 'en' },
    });
    expect(rows.length).toBeGreaterThan(25);
    expect(rows.length).toBeLessThanOrEqual(200);
    expect(requests.length).toBe(Math.ceil(rows.length / 100));
    expect(rows[0]).toMatchObject({ registry_code: expect.stringMatching(/^\d{8}$/), status: { code: expect.any(String) } });
  });
  test('Search with filters and a Limit', async () => {
    const { rows, requests } = await run('companies', {
      operation: 'search',
      returnAll: false,
      limit: 7,
      options: { status: ['R'], legalForm: 'OÜ, AS' },
    });
    expect(rows).toHaveLength(7);
    expect(rows.every((r) => (r.status as IDataObject).code === 'R')).toBe(true);
    expect(requests[0]!.url).toContain('limit=7');
    expect(decodeURIComponent(requests[0]!.url)).toContain('legal_form=OÜ,AS');
  });
  test('Get Profile with included sections', async () => {
    const { rows } = await run('companies', {
      operation: 'get',
      registryCode: code('active'),
      options: { include: ['credit_score', 'representatives'], lang: 'en' },
    });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      registry_code: code('active'),
      name: sb.fixtures.companies.active!.name,
      credit_score: expect.any(Object),
      representatives: expect.any(Object),
    });
  });
  test('Get by VAT Number accepts lower case and spaces', async () => {
    const vat = sb.fixtures.companies.active!.vat_number!;
    const { rows } = await run('companies', { operation: 'byVat', vatNumber: `ee ${vat.slice(2)}` });
    expect(rows[0]!.registry_code).toBe(code('active'));
  });
  test('Lookup from a typed value', async () => {
    const { rows } = await run('companies', { operation: 'lookup', querySource: 'value', query: code('active') }, { items: [{ row: 1 }] });
    expect(rows[0]).toMatchObject({
      row: 1,
      company_data_status: 'matched',
      company_data_query_type: 'registry_code',
      company_data_match: { registry_code: code('active') },
    });
  });
});

describe('People & Ownership', () => {
  const lists = [
    ['representatives', 'active'],
    ['shareholders', 'foreign_owner'],
    ['beneficialOwners', 'beneficial_owners'],
    ['otherParties', 'large_as'],
    ['holdings', 'holding_top'],
  ] as const;
  test.each(lists)('%s emits one item per row with party and role', async (operation, fixture) => {
    const { rows } = await run('people', { operation, registryCode: code(fixture), returnAll: true, options: { lang: 'en' } });
    expect(rows.length).toBeGreaterThan(0);
    expect(rows[0]).toMatchObject({ role: { code: expect.any(String) } });
    expect(rows[0]![operation === 'holdings' ? 'company' : 'party']).toBeTruthy();
  });
  test('history option shows ended relations', async () => {
    const current = await run('people', { operation: 'representatives', registryCode: code('ended_relations'), returnAll: true });
    const all = await run('people', {
      operation: 'representatives',
      registryCode: code('ended_relations'),
      returnAll: true,
      options: { history: true },
    });
    expect(all.rows.length).toBeGreaterThan(current.rows.length);
    expect(all.rows.some((r) => r.until)).toBe(true);
  });
  test('Search People and Get Person', async () => {
    const person = sb.fixtures.persons.board_member!;
    const found = await run('people', { operation: 'searchPersons', q: person.name, returnAll: false, limit: 5 });
    expect(found.rows.some((r) => r.id === person.id)).toBe(true);
    const { rows } = await run('people', { operation: 'getPerson', id: person.id });
    expect(rows[0]).toMatchObject({ id: person.id, name: person.name, roles: expect.any(Array) });
  });
});

describe('Financials', () => {
  test('figures, report list, one report, quarterly taxes', async () => {
    const fin = await run('financials', { operation: 'financials', registryCode: code('active') });
    expect(fin.rows[0]!.years).toEqual(expect.any(Array));
    const list = await run('financials', { operation: 'annualReports', registryCode: code('annual_reports') });
    expect(list.rows.length).toBeGreaterThan(1);
    const filed = list.rows.find((r) => r.has_statements === true)!;
    const one = await run('financials', { operation: 'annualReport', registryCode: code('annual_reports'), year: filed.year });
    expect(one.rows[0]).toMatchObject({ year: filed.year, statements: expect.any(Array) });
    const taxes = await run('financials', { operation: 'quarterlyTaxes', registryCode: code('active') });
    expect(taxes.rows[0]).toMatchObject({ year: expect.any(Number), quarter: expect.any(Number) });
  });
});

describe('Risk', () => {
  test('objects: credit score, tax debt, tax declarations', async () => {
    expect((await run('risk', { operation: 'creditScore', registryCode: code('active') })).rows[0]).toMatchObject({
      rated: true,
      rating: expect.any(String),
    });
    expect((await run('risk', { operation: 'creditScore', registryCode: code('status_bankrupt') })).rows[0]).toMatchObject({
      rated: false,
      reason: 'bankrupt',
    });
    expect((await run('risk', { operation: 'taxDebt', registryCode: code('tax_debt') })).rows[0]!.total).toBeGreaterThan(0);
    expect((await run('risk', { operation: 'taxDeclarations', registryCode: code('tax_declarations') })).rows[0]).toMatchObject({
      missing: expect.any(Array),
      late: expect.any(Array),
    });
  });
  test.each(['courtCases', 'paymentOrders', 'enforcements', 'rulings'])('%s lists rows', async (operation) => {
    const { rows } = await run('risk', { operation, registryCode: code('risk_records'), returnAll: true });
    expect(rows.length).toBeGreaterThan(0);
  });
});

describe('Assets & Activity', () => {
  test.each([
    ['properties', 'assets'],
    ['domains', 'assets'],
    ['permits', 'assets'],
    ['statePayments', 'assets'],
    ['announcements', 'risk_records'],
    ['consumerDisputes', 'consumer_blacklist'],
  ])('%s emits the section rows', async (operation, fixture) => {
    const { rows, requests } = await run('assets', { operation, registryCode: code(fixture) });
    expect(rows.length).toBeGreaterThan(0);
    expect(requests[0]!.url).toContain('include=');
  });
});

describe('Monitoring and webhook', () => {
  test('list lifecycle, companies and events', async () => {
    const created = (
      await run('monitoring', {
        resource: 'monitoring',
        operation: 'createList',
        name: 'Clients',
        options: { categories: ['tax', 'court'] },
      })
    ).rows[0]!;
    expect(created.id).toMatch(/^lst_/);
    const listId = created.id as string;
    const added = await run('monitoring', {
      resource: 'monitoring',
      operation: 'addCompanies',
      listId,
      add: { entries: [{ registryCode: code('active'), externalRef: 'row-2' }, { registryCode: code('tax_debt') }] },
    });
    expect(added.requests[0]!.body).toContain('"external_ref":"row-2"');
    const companies = await run('monitoring', { resource: 'monitoring', operation: 'listCompanies', listId, returnAll: true });
    expect(companies.rows.map((r) => r.registry_code).sort()).toEqual([code('active'), code('tax_debt')].sort());
    expect((await run('monitoring', { resource: 'monitoring', operation: 'lists' })).rows.some((r) => r.id === listId)).toBe(true);
    expect((await run('monitoring', { resource: 'monitoring', operation: 'getList', listId })).rows[0]!.id).toBe(listId);
    expect(
      (await run('monitoring', { resource: 'monitoring', operation: 'updateList', listId, options: { name: 'Key clients' } })).rows[0]!
        .name,
    ).toBe('Key clients');
    const upd = await run('monitoring', {
      resource: 'monitoring',
      operation: 'updateCompany',
      listId,
      registryCode: code('active'),
      options: { categories: ['registry'] },
    });
    expect(upd.rows[0]!.registry_code).toBe(code('active'));
    const events = await run('monitoring', { resource: 'monitoring', operation: 'events', returnAll: true, options: { listId } });
    expect(Array.isArray(events.rows)).toBe(true);
    expect(
      (await run('monitoring', { resource: 'monitoring', operation: 'removeCompany', listId, registryCode: code('tax_debt') })).rows[0]!
        .removed,
    ).toBe(true);
    expect((await run('monitoring', { resource: 'monitoring', operation: 'deleteList', listId })).rows[0]!.deleted).toBe(true);
  });
  test('webhook settings, deliveries, test event and retry', async () => {
    // Setting the address is the trigger's job (the node leaves it out); done here with the core client,
    // whose limiter and retries keep this call inside the sandbox's 10 requests/s after the bursts above.
    const client = new CompanyDataClient({ apiKey: sb.apiKey, baseUrl: sb.url });
    const { data: created } = await client.webhook.set({ url: 'http://127.0.0.1:9/company-data-hook', enabled: true });
    await client.close();
    const secret = created.signing_secret;
    expect(secret).toEqual(expect.any(String));
    const hook = await run('monitoring', { resource: 'webhook', operation: 'get' });
    expect(hook.rows[0]).toMatchObject({ url: 'http://127.0.0.1:9/company-data-hook', enabled: true });
    expect(JSON.stringify(hook.rows)).not.toContain(secret!);
    const sent = await run('monitoring', { resource: 'webhook', operation: 'test' });
    expect(sent.rows[0]!.event_id).toMatch(/^evt_/);
    const deliveries = await run('monitoring', { resource: 'webhook', operation: 'deliveries', returnAll: true });
    expect(Array.isArray(deliveries.rows)).toBe(true);
    await expect(run('monitoring', { resource: 'webhook', operation: 'retryDelivery', deliveryId: 'dlv_missing' })).rejects.toThrow();
  });
});

describe('Saved Searches', () => {
  test('create, list, get, matches, delete', async () => {
    const created = (
      await run('searches', {
        operation: 'create',
        name: 'New IT firms',
        filters: { activity: '62', county: 'Harju maakond', registeredWithinDays: 30 },
      })
    ).rows[0]!;
    expect(created.id).toMatch(/^srch_/);
    expect(created.filters).toMatchObject({ activity: ['62'], county: ['Harju maakond'], registered_within_days: 30 });
    const searchId = created.id as string;
    expect((await run('searches', { operation: 'list' })).rows.some((r) => r.id === searchId)).toBe(true);
    expect((await run('searches', { operation: 'get', searchId })).rows[0]!.name).toBe('New IT firms');
    expect(Array.isArray((await run('searches', { operation: 'matches', searchId, returnAll: true })).rows)).toBe(true);
    expect((await run('searches', { operation: 'remove', searchId })).rows[0]!.deleted).toBe(true);
  });
});

describe('Reference', () => {
  test('classifier, activity codes, usage, OpenAPI', async () => {
    const roles = await run('reference', { operation: 'classifiers', type: 'company_statuses', options: { lang: 'en' } });
    expect(roles.rows.map((r) => r.code)).toEqual(expect.arrayContaining(['R', 'L', 'N', 'D']));
    const emtak = await run('reference', { operation: 'emtak', returnAll: false, limit: 3, options: { q: '62' } });
    expect(emtak.rows).toHaveLength(3);
    const usage = await run('reference', { operation: 'usage' });
    expect(usage.rows[0]).toEqual(expect.any(Object));
    const doc = await run('reference', { operation: 'openapi' });
    expect(doc.rows[0]!.openapi).toMatch(/^3\.1/);
    expect(doc.requests[0]!.headers['X-API-Key']).toBeUndefined();
  });
});

test('every operation of every node was run', () => {
  const all = (Object.keys(nodeSpecs) as NodeKey[]).flatMap((k) =>
    nodeOperations(nodeSpecs[k]).map(({ resource, op }) => `${k}:${nodeSpecs[k].groups.length > 1 ? resource : ''}:${op.name}`),
  );
  expect(all.filter((id) => !covered.has(id))).toEqual([]);
});
