import type { IDataObject, INodeExecutionData, INodeListSearchResult, INodeProperties, INodeType } from 'n8n-workflow';
import { NodeApiError, NodeHelpers, Workflow, type INodeTypes } from 'n8n-workflow';
import { mock } from 'jest-mock-extended';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CompanyDataCompanies } from '../../../nodes/CompanyDataCompanies/CompanyDataCompanies.node';
import { CompanyDataMonitoring } from '../../../nodes/CompanyDataMonitoring/CompanyDataMonitoring.node';
import { CompanyDataPeople } from '../../../nodes/CompanyDataPeople/CompanyDataPeople.node';
import { CompanyDataPollTrigger } from '../../../nodes/CompanyDataPollTrigger/CompanyDataPollTrigger.node';
import { CompanyDataTrigger } from '../../../nodes/CompanyDataTrigger/CompanyDataTrigger.node';
import { nodeSpecs } from '../../../src/n8n/descriptions/nodes';
import { pickerMethods, PICKER_PAGE_SIZE } from '../../../src/n8n/descriptions/pickers';
import { listSearch, loadOptions } from '../../../src/n8n/methods';
import { nodeSubtitle, propertiesFor } from '../../../src/n8n/descriptions/properties';
import { defaultTriggerOptions, eventToItems } from '../../../src/n8n/trigger/items';
import { readTriggerOptions } from '../../../src/n8n/descriptions/trigger-properties';
import { json, startTestServer, type TestServer } from '../../support/http-server';
import { executeContext, jsonOf, loadOptionsContext } from '../../support/n8n-context';
import { waitFor } from '../../support/wait-for';
import { call, startEventsSandbox, type EventsSandbox } from '../../company-data/sandbox/monitoring/support/sandbox';

let sb: EventsSandbox;
let rx: TestServer;
const api = (method: string, path: string, body?: unknown) => call(sb.url, sb.apiKey, method, path, body);
const creds = (apiKey = sb.apiKey) => ({ apiKey, baseUrl: sb.url, authStyle: 'xApiKey' });

async function search(method: string, filter?: string, token?: string, apiKey?: string) {
  const { ctx, requests } = loadOptionsContext({ credentials: creds(apiKey) });
  const res = (await listSearch[method]!.call(ctx, filter, token)) as INodeListSearchResult;
  return { ...res, requests };
}

async function load(method: string, apiKey?: string) {
  const { ctx, requests } = loadOptionsContext({ credentials: creds(apiKey) });
  return { options: await loadOptions[method]!.call(ctx), requests };
}

async function run(node: INodeType, version: number, params: Record<string, unknown>, items: IDataObject[] = [{}]) {
  const { ctx, requests } = executeContext({ params, version, items: items.map((j) => ({ json: j })), credentials: creds() });
  return { rows: jsonOf((await node.execute!.call(ctx)) as INodeExecutionData[][]), requests };
}

const fx = () => sb.sb.fixtures;
const listIds: string[] = [];
const searchIds: string[] = [];

beforeAll(async () => {
  sb = await startEventsSandbox();
  rx = await startTestServer((_req, res) => json(res, 500, { no: true }));
  for (const name of ['Key clients', 'Suppliers']) listIds.push((await api('POST', '/monitoring/lists', { name })).body.data.id);
  for (const name of ['New in Saare', 'IT in Tartu'])
    searchIds.push((await api('POST', '/searches', { name, filters: { registered_within_days: 30 } })).body.data.id);
});
afterAll(async () => {
  await sb?.close();
  await rx?.close();
});

describe('company picker (GET /companies)', () => {
  test('without a filter it lists the newest companies, and pages on with the token', async () => {
    const first = await search(pickerMethods.company);
    expect(first.results).toHaveLength(PICKER_PAGE_SIZE);
    expect(first.paginationToken).toBe('2');
    expect(first.results[0]).toMatchObject({
      value: expect.stringMatching(/^\d{8}$/),
      name: expect.stringMatching(/\(\d{8}\)$/),
      url: expect.stringMatching(/^https:\/\//),
    });
    const second = await search(pickerMethods.company, undefined, first.paginationToken as string);
    expect(second.requests[0]!.url).toMatch(/page=2/);
    const firstCodes = new Set(first.results.map((r) => r.value));
    expect(second.results.length).toBeGreaterThan(0);
    expect(second.results.some((r) => firstCodes.has(r.value))).toBe(false);
  });
  test('a registry code prefix or a name narrows the list', async () => {
    const code = fx().companies.active!.registry_code;
    const byPrefix = await search(pickerMethods.company, code.slice(0, 5));
    expect(byPrefix.results.length).toBeGreaterThan(0);
    expect(byPrefix.results.every((r) => String(r.value).startsWith(code.slice(0, 5)))).toBe(true);
    const byName = await search(pickerMethods.company, fx().queries.exact_name!.q);
    expect(byName.results[0]!.value).toBe(code);
    expect(new URL(byName.requests[0]!.url).searchParams.get('q')).toBe(fx().queries.exact_name!.q);
  });
  test('a name ranks exact and whole-word names first: "Kullamäe" lists Kullamäe Ehitus OÜ before a larger Kullamäetagu Invest', async () => {
    // A company whose name only starts with the word, larger than any other, so size alone would put it first.
    const registered = await api('POST', '/sandbox/companies', {
      companies: [{ name: 'Kullamäetagu Invest OÜ', employees: 90_000, registered_on: '2001-05-05' }],
    });
    expect(registered.status).toBe(201);
    const { results } = await search(pickerMethods.company, 'Kullamäe');
    const names = results.map((r) => String(r.name).replace(/ \(\d{8}\)$/, ''));
    const whole = (name: string) => /(^|[^\p{L}])kullamäe([^\p{L}]|$)/iu.test(name);
    const firstPrefixOnly = names.findIndex((n) => !whole(n));
    expect(names.indexOf('Kullamäetagu Invest OÜ')).toBeGreaterThan(0);
    expect(whole(names[0]!)).toBe(true);
    // Every whole-word match comes before the first name that only starts with the word.
    expect(names.slice(firstPrefixOnly).some(whole), names.join(' | ')).toBe(false);
    const ehitus = results.findIndex((r) => r.value === fx().companies.tax_debt!.registry_code);
    expect(ehitus).toBeGreaterThanOrEqual(0);
    expect(ehitus).toBeLessThan(firstPrefixOnly);
  });
  test('a name with more matches than one page continues, and stops at the 200 cap', async () => {
    let token: string | undefined;
    let pages = 0;
    const seen = new Set<unknown>();
    do {
      const res = await search(pickerMethods.company, fx().queries.many_hits!.q, token);
      res.results.forEach((r) => seen.add(r.value));
      token = res.paginationToken as string | undefined;
      pages++;
    } while (token && pages < 10);
    expect(pages).toBe(200 / PICKER_PAGE_SIZE);
    expect(seen.size).toBe(200);
  });
  test("a wrong key becomes a NodeApiError with the service's message", async () => {
    const error = await search(pickerMethods.company, undefined, undefined, 'sk_test_wrong').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NodeApiError);
    expect((error as NodeApiError).httpCode).toBe('401');
  });
});

describe('person picker (GET /persons)', () => {
  test('searches by name from 3 characters; fewer asks nothing', async () => {
    const short = await search(pickerMethods.person, 'Ka');
    expect(short).toMatchObject({ results: [] });
    expect(short.requests).toHaveLength(0);
    const person = fx().persons.board_member!;
    const res = await search(pickerMethods.person, person.name);
    expect(res.results.map((r) => r.value)).toContain(String(person.id));
    expect(res.results.every((r) => /^\d+$/.test(String(r.value)))).toBe(true);
  });
  test('a common first name pages on with the token', async () => {
    // "Mari" names more people in the sandbox's fixed dataset than fit on one page.
    const first = await search(pickerMethods.person, 'Mari');
    expect(first.results).toHaveLength(PICKER_PAGE_SIZE);
    expect(first.paginationToken).toBe('2');
    const second = await search(pickerMethods.person, 'Mari', first.paginationToken as string);
    expect(second.results.length).toBeGreaterThan(0);
    const firstIds = new Set(first.results.map((r) => r.value));
    expect(second.results.some((r) => firstIds.has(r.value))).toBe(false);
  });
});

describe('account lists', () => {
  test('monitoring lists (GET /monitoring/lists): all of them, the filter narrows by name or id', async () => {
    const all = await search(pickerMethods.monitoringList);
    expect(all.results.map((r) => r.value).sort()).toEqual([...listIds].sort());
    expect((await search(pickerMethods.monitoringList, 'suppl')).results).toEqual([
      expect.objectContaining({ name: 'Suppliers', value: listIds[1] }),
    ]);
    expect((await search(pickerMethods.monitoringList, listIds[0])).results.map((r) => r.value)).toEqual([listIds[0]]);
  });
  test('saved searches (GET /searches): all of them, the filter narrows', async () => {
    expect((await search(pickerMethods.savedSearch)).results.map((r) => r.value).sort()).toEqual([...searchIds].sort());
    expect((await search(pickerMethods.savedSearch, 'tartu')).results.map((r) => r.name)).toEqual(['IT in Tartu']);
  });
  test("the triggers' option loaders return the same lists as options", async () => {
    const lists = await load('getMonitoringLists');
    expect(lists.options.map((o) => o.value).sort()).toEqual([...listIds].sort());
    expect(lists.requests.map((r) => `${r.method} ${new URL(r.url).pathname}`)).toEqual(['GET /monitoring/lists']);
    const searches = await load('getSavedSearches');
    expect(searches.options).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'New in Saare', value: searchIds[0] })]));
  });
  test('a basic-plan key gets a NodeApiError saying the API plan is needed', async () => {
    const error = await load('getMonitoringLists', sb.basicKey).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NodeApiError);
    expect((error as Error).message).toMatch(/API plan/);
  });
  test('failed deliveries (GET /webhook/deliveries?status=failed): only those that can be retried', async () => {
    await api('PUT', '/webhook', { url: `${rx.url}/hook`, enabled: true });
    await api('POST', `/monitoring/lists/${listIds[0]}/companies`, { add: [{ registry_code: sb.codes[0]! }] });
    // 10,000 virtual seconds per real second: the 22-hour retry schedule ends within seconds.
    await api('POST', '/sandbox/clock', { time_scale: 10_000 });
    await api('POST', '/sandbox/changes', { registry_code: sb.codes[0]!, category: 'tax', kind: 'tax_debt' });
    const res = await waitFor(
      async () => {
        const r = await search(pickerMethods.failedDelivery);
        return r.results.length > 0 && r;
      },
      60_000,
      'a failed delivery',
    );
    await api('POST', '/sandbox/clock', { time_scale: 1 });
    expect(res.requests[0]!.url).toContain('status=failed');
    expect(res.results[0]).toMatchObject({ value: expect.stringMatching(/^dlv_/), name: expect.stringContaining('evt_') });
    const retried = await run(new CompanyDataMonitoring(), 2, {
      resource: 'webhook',
      operation: 'retryDelivery',
      deliveryId: { __rl: true, mode: 'list', value: res.results[0]!.value },
    });
    expect(retried.rows[0]).toMatchObject({ retry_of: res.results[0]!.value });
  }, 90_000);
});

describe('version 2 runs with picked values; version 1 as before', () => {
  const companies = new CompanyDataCompanies();
  test('a company from the list, by URL and by ID; version 1 with the code typed', async () => {
    const active = fx().companies.active!;
    const url = (await search(pickerMethods.company, active.registry_code)).results[0]!.url!;
    for (const value of [
      { __rl: true, mode: 'list', value: active.registry_code, cachedResultName: active.name },
      { __rl: true, mode: 'url', value: url },
      { __rl: true, mode: 'id', value: ` ${active.registry_code} ` },
    ]) {
      const { rows } = await run(companies, 2, { operation: 'get', registryCode: value });
      expect(rows[0]).toMatchObject({ registry_code: active.registry_code, name: active.name });
    }
    const v1 = await run(companies, 1, { operation: 'get', registryCode: active.registry_code });
    expect(v1.rows[0]).toMatchObject({ registry_code: active.registry_code });
  });
  test('a wrong check digit or a link without a code is refused in plain words, naming the field', async () => {
    const code = fx().companies.active!.registry_code;
    const wrong = code.slice(0, 7) + String((Number(code[7]) + 1) % 10);
    await expect(run(companies, 2, { operation: 'get', registryCode: { __rl: true, mode: 'id', value: wrong } })).rejects.toThrow(
      /^Registry Code: .*check digit/,
    );
    await expect(
      run(companies, 2, { operation: 'get', registryCode: { __rl: true, mode: 'url', value: 'https://example.com/about' } }),
    ).rejects.toThrow(/^Registry Code: must be the link of a company page/);
  });
  test('a person by URL', async () => {
    const person = fx().persons.board_member!;
    const url = (await search(pickerMethods.person, person.name)).results.find((r) => r.value === String(person.id))!.url!;
    const { rows } = await run(new CompanyDataPeople(), 2, { operation: 'getPerson', id: { __rl: true, mode: 'url', value: url } });
    expect(rows[0]).toMatchObject({ id: person.id, name: person.name });
  });
  test('a monitoring list picked from the list', async () => {
    const { rows, requests } = await run(new CompanyDataMonitoring(), 2, {
      resource: 'monitoring',
      operation: 'getList',
      listId: { __rl: true, mode: 'list', value: listIds[1] },
    });
    expect(rows[0]).toMatchObject({ id: listIds[1], name: 'Suppliers' });
    expect(new URL(requests[0]!.url).pathname).toBe(`/monitoring/lists/${listIds[1]}`);
  });
});

/** Whether n8n shows the field for a node of this version with these values. */
const visible = (values: Record<string, unknown>, p: INodeProperties, version: number) =>
  NodeHelpers.displayParameter(values as never, p, { typeVersion: version } as never, null);

describe('fields by version', () => {
  const shown = (props: INodeProperties[], version: number, values: Record<string, unknown>) =>
    props.filter((p) => visible(values, p, version)).map((p) => `${p.name}:${p.type}`);

  test('every object parameter is a resourceLocator in version 2 and stays a text or number field in version 1', () => {
    const props = new CompanyDataCompanies().description.properties;
    expect(shown(props, 2, { operation: 'get' })).toContain('registryCode:resourceLocator');
    expect(shown(props, 1, { operation: 'get' })).toContain('registryCode:string');
    expect(shown(props, 1, { operation: 'get' })).not.toContain('registryCode:resourceLocator');
    const people = new CompanyDataPeople().description.properties;
    expect(shown(people, 1, { operation: 'getPerson' })).toContain('id:number');
    expect(shown(people, 2, { operation: 'getPerson' })).toContain('id:resourceLocator');
    for (const key of ['monitoring', 'searches'] as const) {
      const v2 = propertiesFor(nodeSpecs[key], 2)
        .filter((p) => p.type === 'resourceLocator')
        .map((p) => p.name);
      expect(v2.length).toBeGreaterThan(0);
    }
    const modes = propertiesFor(nodeSpecs.companies, 2)
      .find((p) => p.name === 'registryCode')!
      .modes!.map((m) => m.name);
    expect(modes).toEqual(['list', 'url', 'id']);
    const listModes = propertiesFor(nodeSpecs.monitoring, 2)
      .find((p) => p.name === 'listId')!
      .modes!.map((m) => m.name);
    expect(listModes).toEqual(['list', 'id']);
  });

  test('nodes are versioned (Companies [1, 2, 3], the triggers [1, 2]) with the newest for new nodes, and list their methods', () => {
    for (const [node, newest] of [
      [new CompanyDataCompanies(), 3],
      [new CompanyDataTrigger(), 2],
      [new CompanyDataPollTrigger(), 2],
    ] as const) {
      expect(node.description.version).toEqual(newest === 3 ? [1, 2, 3] : [1, 2]);
      expect(node.description.defaultVersion).toBe(newest);
      expect(Object.keys(node.methods!.listSearch!)).toEqual(expect.arrayContaining(Object.values(pickerMethods)));
      expect(Object.keys(node.methods!.loadOptions!)).toEqual(['getMonitoringLists', 'getSavedSearches']);
    }
  });

  test('the triggers: lists and saved searches load from the account in version 2, filters shown while Monitoring Change is chosen', () => {
    const webhook = new CompanyDataTrigger().description.properties;
    const v2 = (name: string) =>
      webhook.find((p) => p.name === name && visible({ events: ['monitoring.change', 'search.matches'] }, p, 2))!;
    const filters = v2('filters').options as INodeProperties[];
    expect(filters.find((o) => o.name === 'listIds')).toMatchObject({
      type: 'multiOptions',
      typeOptions: { loadOptionsMethod: 'getMonitoringLists' },
    });
    expect(filters.find((o) => o.name === 'kinds')).toMatchObject({
      type: 'multiOptions',
      options: expect.arrayContaining([{ name: 'Status Changed', value: 'status_changed', description: 'Status' }]),
    });
    expect(v2('searchIds')).toMatchObject({ type: 'multiOptions', typeOptions: { loadOptionsMethod: 'getSavedSearches' } });
    for (const events of [
      ['monitoring.change'],
      ['monitoring.change', 'search.matches'],
      ['monitoring.change', 'search.matches', 'webhook.test'],
    ]) {
      expect(shown(webhook, 2, { events })).toContain('filters:collection');
    }
    expect(shown(webhook, 2, { events: ['search.matches'] })).not.toContain('filters:collection');
    // Version 1 keeps its comma-separated fields.
    const v1Filters = webhook.find((p) => p.name === 'filters' && visible({ events: ['monitoring.change'] }, p, 1))!;
    expect((v1Filters.options as INodeProperties[]).find((o) => o.name === 'listIds')!.type).toBe('string');
    const poll = new CompanyDataPollTrigger().description.properties;
    expect(shown(poll, 2, { events: ['search.matches'] })).toContain('searchIds:multiOptions');
    expect(shown(poll, 1, { events: ['search.matches'] })).toContain('searchIds:string');
  });

  test("subtitles name the operation and the events by their labels (evaluated by n8n's expression engine)", () => {
    const subtitle = (expression: string, parameters: Record<string, unknown>) => {
      const node = {
        id: 's',
        name: 'S',
        type: 'x.y',
        typeVersion: 2,
        position: [0, 0] as [number, number],
        parameters: parameters as never,
      };
      const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes: mock<INodeTypes>() });
      return workflow.expression.getSimpleParameterValue(node, expression, 'internal', {}, undefined, '');
    };
    expect(subtitle(nodeSubtitle(nodeSpecs.companies), { operation: 'get' })).toBe('Get Profile');
    expect(subtitle(nodeSubtitle(nodeSpecs.monitoring), { resource: 'monitoring', operation: 'addCompanies' })).toBe(
      'Monitoring: Add Companies',
    );
    expect(subtitle(new CompanyDataTrigger().description.subtitle!, { events: ['monitoring.change', 'search.matches'] })).toBe(
      'Monitoring Change, Saved Search Matches',
    );
  });
});

test('Company Data Trigger version 2: chosen saved searches keep only their matches; none chosen keeps all', () => {
  const matches = (id: string) => ({ id: `evt_${id}`, type: 'search.matches', data: { search: { id, name: id }, companies: [] } });
  const opts = readTriggerOptions(
    (name, fallback) => ({ events: ['search.matches'], searchIds: ['srch_a'] })[name as 'events'] ?? fallback,
  );
  expect(opts.searchIds).toEqual(['srch_a']);
  expect(eventToItems(matches('srch_a'), opts)).toHaveLength(1);
  expect(eventToItems(matches('srch_b'), opts)).toHaveLength(0);
  expect(eventToItems(matches('srch_b'), defaultTriggerOptions)).toHaveLength(1);
});
