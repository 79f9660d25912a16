import type { IDataObject, INodeExecutionData, INodeType } from 'n8n-workflow';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startSandbox, type Sandbox } from '../../packages/cli/src/sandbox';
import { CompanyDataCompanies } from '../../nodes/CompanyDataCompanies/CompanyDataCompanies.node';
import { CompanyDataMonitoring } from '../../nodes/CompanyDataMonitoring/CompanyDataMonitoring.node';
import { executeContext, jsonOf } from '../support/n8n-context';
import { listedCodes } from '../support/sandbox-codes';

/* Version 2's changed shapes next to version 1, over real HTTP against the sandbox. */

let sb: Sandbox;
let codes: string[];
beforeAll(async () => {
  sb = await startSandbox({ port: 0, seed: 1, companies: 2000 });
  codes = await listedCodes(sb, 20);
});
afterAll(async () => {
  await sb?.close();
});

async function run(node: INodeType, version: number, params: Record<string, unknown>, items: IDataObject[] = [{}]) {
  const { ctx, requests } = executeContext({ params, version, items: items.map((json) => ({ json })), credentials: { apiKey: sb.apiKey, baseUrl: sb.url } });
  const out = (await node.execute!.call(ctx)) as INodeExecutionData[][];
  return { out: out[0]!, rows: jsonOf(out), requests };
}

const monitoring = new CompanyDataMonitoring();
const newList = async (name: string) => (await run(monitoring, 1, { resource: 'monitoring', operation: 'createList', name })).rows[0]!.id as string;
const listCodes = async (id: string) =>
  (await run(monitoring, 1, { resource: 'monitoring', operation: 'listCompanies', listId: id, returnAll: true })).rows.map((r) => [r.registry_code, r.external_ref ?? null]);

describe('Monitoring → Add Companies', () => {
  test('version 2 adds the companies of all input items in one request, with external references', async () => {
    const id = await newList('From items');
    const items = codes.slice(0, 5).map((code, i) => ({ company: { code }, crm: i % 2 ? `crm-${i}` : '' }));
    const { out, requests } = await run(
      monitoring,
      2,
      { resource: 'monitoring', operation: 'addCompanies', listId: { __rl: true, mode: 'list', value: id }, companiesFrom: 'items', registryCodeField: 'company.code', externalRefField: 'crm' },
      items,
    );
    expect(requests.filter((r) => r.method === 'POST')).toHaveLength(1);
    expect(out).toHaveLength(1);
    expect(out[0]!.pairedItem).toEqual([0, 1, 2, 3, 4].map((item) => ({ item })));
    expect((await listCodes(id)).sort()).toEqual(codes.slice(0, 5).map((c, i) => [c, i % 2 ? `crm-${i}` : null]).sort());
  });

  test('an item without a code is named before anything is sent; a wrong code names its place', async () => {
    const id = await newList('Bad items');
    const params = { resource: 'monitoring', operation: 'addCompanies', listId: { __rl: true, mode: 'id', value: id }, companiesFrom: 'items', registryCodeField: 'registry_code', externalRefField: '' };
    const missing = run(monitoring, 2, params, [{ registry_code: codes[0] }, { other: 1 }]);
    await expect(missing).rejects.toThrow('Item 2 has no registry code in the field "registry_code"');
    const wrongCheckDigit = codes[1]!.slice(0, 7) + String((Number(codes[1]![7]) + 1) % 10);
    await expect(run(monitoring, 2, params, [{ registry_code: codes[0] }, { registry_code: wrongCheckDigit }])).rejects.toThrow(/^Companies → #2 → Registry Code: .*check digit/);
    expect(await listCodes(id)).toEqual([]);
  });

  test('version 2 from items with Replace Whole List: the list then holds exactly the items\' companies', async () => {
    const id = await newList('Replace from items');
    await run(monitoring, 2, { resource: 'monitoring', operation: 'addCompanies', listId: { __rl: true, mode: 'id', value: id }, companiesFrom: 'items', registryCodeField: 'code', externalRefField: '' }, [{ code: codes[10] }]);
    const params = { resource: 'monitoring', operation: 'addCompanies', listId: { __rl: true, mode: 'id', value: id }, companiesFrom: 'items', registryCodeField: 'code', externalRefField: '', options: { replace: true } };
    await run(monitoring, 2, params, [{ code: codes[11] }, { code: codes[12] }]);
    expect((await listCodes(id)).sort()).toEqual([[codes[11], null], [codes[12], null]].sort());
  });

  test('version 2 with the companies entered below, and version 1, add what was typed', async () => {
    for (const version of [1, 2]) {
      const id = await newList(`Typed v${version}`);
      const listId = version === 1 ? id : { __rl: true, mode: 'id', value: id };
      await run(monitoring, version, { resource: 'monitoring', operation: 'addCompanies', listId, companiesFrom: 'list', add: { entries: [{ registryCode: codes[7], externalRef: 'x' }] } }, [{}, {}]);
      expect(await listCodes(id)).toEqual([[codes[7], 'x']]);
    }
  });
});

describe('Companies → Lookup: "never" is a choice in version 2', () => {
  const companies = new CompanyDataCompanies();
  const lookup = { operation: 'lookup', querySource: 'field', queryField: 'code' };
  const billed = () => sb.usage(sb.apiKey).billed_lookup_queries;

  test('an old answer stands with Never, is refreshed with "older than" days; version 1 reads days only', async () => {
    const first = await run(companies, 2, lookup, codes.slice(0, 4).map((code) => ({ code })));
    const old = first.rows.map((r) => ({ ...r, company_data_enriched_at: new Date(Date.now() - 40 * 86_400_000).toISOString() }));
    const cases: Array<[number, Record<string, unknown>, number]> = [
      [2, { lookUpAgain: 'never', lookUpAgainAfterDays: 30 }, 0],
      [2, { lookUpAgain: 'afterDays', lookUpAgainAfterDays: 30 }, 4],
      [1, { lookUpAgainAfterDays: 0 }, 0],
      [1, { lookUpAgainAfterDays: 30 }, 4],
    ];
    for (const [version, params, expected] of cases) {
      const before = billed();
      await run(companies, version, { ...lookup, ...params }, old);
      expect(billed() - before, `v${version} ${JSON.stringify(params)}`).toBe(expected);
    }
  });
});

describe('Monitoring → Events: the list among the Options', () => {
  test('version 2 offers the account lists as a loaded option list; version 1 keeps the typed List ID', () => {
    const listOptions = new CompanyDataMonitoring().description.properties
      .filter((p) => p.name === 'options' && (p.displayOptions?.show?.operation as string[] | undefined)?.includes('events'))
      .flatMap((p) => (p.options ?? []) as { name: string; type: string; typeOptions?: unknown }[])
      .filter((o) => o.name === 'listId');
    expect(listOptions.map((o) => o.type).sort()).toEqual(['options', 'string']);
    expect(listOptions.find((o) => o.type === 'options')!.typeOptions).toEqual({ loadOptionsMethod: 'getMonitoringLists' });
  });

  test('a list chosen there is sent as the events filter, in both versions', async () => {
    const id = await newList('Events filter');
    for (const version of [1, 2]) {
      const { requests } = await run(monitoring, version, { resource: 'monitoring', operation: 'events', returnAll: false, limit: 5, options: { listId: id } });
      expect(requests.filter((r) => r.url.includes('/monitoring/events')).every((r) => r.url.includes(`list_id=${id}`))).toBe(true);
      expect(requests.some((r) => r.url.includes('/monitoring/events'))).toBe(true);
    }
  });
});
