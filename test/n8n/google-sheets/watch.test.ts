import type { IDataObject, INodeExecutionData, INodeTypes } from 'n8n-workflow';
import { NodeApiError, NodeOperationError, Workflow } from 'n8n-workflow';
import { mock } from 'jest-mock-extended';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startSandbox, type Sandbox } from '../../../packages/company-data/src/sandbox';
import { CompanyDataGoogleSheets } from '../../../nodes/CompanyDataGoogleSheets/CompanyDataGoogleSheets.node';
import { staticDataWatchState } from '../../../src/n8n/google-sheets/ports/watch-state';
import { googleExecuteContext, googleSheetsNode, type GoogleContextOptions } from '../../support/n8n-google-context';
import { listedCodes } from '../../support/sandbox-codes';
import { Colleague } from '../../support/sheets-standin-colleague';
import { SheetsStandin } from '../../support/sheets-standin';
import type { SentRequest } from '../../support/n8n-http';

/**
 * Company Data: Google Sheets, Keep Current, through the node's execute() with n8n's execution context
 * (jest-mock-extended) and every request over real HTTP: the sandbox for lookups and monitoring lists, the
 * Sheets stand-in for Google. The list's members are read back from the sandbox with plain HTTP.
 */
const node = new CompanyDataGoogleSheets();
let sb: Sandbox;
let codes: string[];
const standins: SheetsStandin[] = [];

beforeAll(async () => {
  sb = await startSandbox({ port: 0, seed: 3, companies: 2000 });
  codes = await listedCodes(sb, 120);
});
afterAll(async () => {
  await sb?.close();
  for (const g of standins) await g.close();
});

const billed = () => sb.usage(sb.apiKey).billed_lookup_queries;

/** GET on the sandbox, as anyone would read it (not through the code under test), waiting out its rate limit. */
async function sandboxGet<T>(path: string): Promise<T> {
  for (;;) {
    const res = await fetch(`${sb.url}${path}`, { headers: { 'X-API-Key': sb.apiKey } });
    if (res.status === 429) {
      await res.body?.cancel();
      await new Promise((r) => setTimeout(r, Math.max(100, Number(res.headers.get('retry-after') ?? 1) * 1000)));
      continue;
    }
    expect(res.status).toBe(200);
    return (await res.json()) as T;
  }
}
async function listsNamed(name: string): Promise<{ id: string; name: string }[]> {
  return (await sandboxGet<{ data: { id: string; name: string }[] }>('/monitoring/lists')).data.filter((l) => l.name === name);
}
/** The list's members (registry code → external_ref), every page. */
async function members(listId: string): Promise<Map<string, string | null | undefined>> {
  const out = new Map<string, string | null | undefined>();
  for (let page = 1; ; page++) {
    const { data } = await sandboxGet<{ data: { registry_code: string; external_ref?: string | null }[] }>(
      `/monitoring/lists/${listId}/companies?limit=100&page=${page}`,
    );
    for (const m of data) out.set(m.registry_code, m.external_ref);
    if (data.length < 100) return out;
  }
}

let worlds = 0;
/** A stand-in with one spreadsheet: header, then the given keys (registry codes), one row each. */
async function sheetWorld(keys: string[]) {
  const g = await new SheetsStandin({ readsPerMinute: 600, writesPerMinute: 600 }).listen();
  standins.push(g);
  const id = `sheet-watch-${++worlds}-000001`;
  g.create(id, [{ title: 'Leads', rows: [['Company', 'Registry code', 'Owner'], ...keys.map((k, i) => [`Lead ${i + 1}`, k, 'Mari'])] }]);
  const key = g.serviceAccountKey('watch@standin.iam.gserviceaccount.com');
  g.share(id, [key.client_email]);
  return { g, id, key, colleague: new Colleague(g, id, 'Leads') };
}
type World = Awaited<ReturnType<typeof sheetWorld>>;

async function run(w: World, staticData: IDataObject, more: Record<string, unknown> = {}, ctx: Partial<GoogleContextOptions> = {}) {
  const before = billed();
  const { ctx: c, requests } = googleExecuteContext({
    params: {
      authentication: 'serviceAccount',
      operation: 'watch',
      spreadsheet: { __rl: true, mode: 'url', value: `https://docs.google.com/spreadsheets/d/${w.id}/edit#gid=0` },
      sheet: { __rl: true, mode: 'list', value: '0' },
      keyColumn: '',
      listName: '',
      maxBilledQueries: 0,
      options: { sheetsApiUrl: w.g.url },
      ...more,
    },
    companyData: { apiKey: sb.apiKey, baseUrl: sb.url, authStyle: 'xApiKey' },
    serviceAccount: { serviceAccountKey: JSON.stringify(w.key) },
    staticData,
    ...ctx,
  });
  const out = (await node.execute.call(c)) as INodeExecutionData[][];
  return { out: out[0]!, item: out[0]![0]!.json, billed: billed() - before, requests };
}

/** The requests that change a list: made, or companies sent. */
const listChanges = (requests: SentRequest[]) => requests.filter((r) => r.method === 'POST' && r.url.includes('/monitoring/lists'));
/** The sheet as shown: trailing empty cells left out. */
const shown = (w: World) =>
  JSON.stringify(
    w.g.values(w.id, 'Leads').map((r) => {
      const cells = r.map(String);
      while (cells.length && cells.at(-1) === '') cells.pop();
      return cells;
    }),
  );
const column = (w: World, header: string) => {
  const [head, ...rows] = w.g.values(w.id, 'Leads').map((r) => r.map(String));
  const i = head!.indexOf(header);
  return rows.map((r) => r[i] ?? '');
};

describe('Keep Current', () => {
  test('first run enriches the new rows, makes the list and reports added; a rerun changes nothing; a colleague deletes a row and adds one', async () => {
    const sheetCodes = codes.slice(0, 8);
    // A duplicate row and a code with a wrong check digit: the list holds each company once, and only companies.
    const c0 = sheetCodes[0]!;
    const w = await sheetWorld([...sheetCodes, sheetCodes[2]!, `${c0.slice(0, 7)}${(Number(c0[7]) + 1) % 10}`]);
    const state: IDataObject = {};
    const first = await run(w, state);
    expect(first.out).toHaveLength(1);
    const name = `Sheet ${w.id} / Leads`;
    expect(first.item).toMatchObject({ list_name: name, created: true, added: 8, removed: 0, kept: 0, removed_codes: [], invalid: [] });
    expect([...(first.item.added_codes as string[])].sort()).toEqual([...sheetCodes].sort());
    // Enriched before the sync, each company billed once.
    expect(first.billed).toBe(8);
    expect(first.item.enriched).toMatchObject({ matched: 9, invalid: 1, billedQueries: 8, rowsInScope: 10 });
    expect(column(w, 'company_data_match_registry_code').slice(0, 8)).toEqual(sheetCodes);
    expect(column(w, 'Owner').every((o) => o === 'Mari')).toBe(true);
    // The sandbox's list really holds the sheet's companies, each named by the sheet, never a row.
    const listId = String(first.item.list_id);
    expect(await listsNamed(name)).toEqual([expect.objectContaining({ id: listId })]);
    const m1 = await members(listId);
    expect([...m1.keys()].sort()).toEqual([...sheetCodes].sort());
    expect(new Set(m1.values())).toEqual(new Set([`gsheet:${w.id}#Leads`]));

    // Nothing changed: nothing billed, no list change sent, not even a read of the members (the state knows them).
    const second = await run(w, state);
    expect(second.item).toMatchObject({
      list_id: listId,
      created: false,
      added: 0,
      removed: 0,
      kept: 8,
      added_codes: [],
      removed_codes: [],
    });
    expect(second.billed).toBe(0);
    expect(listChanges(second.requests)).toEqual([]);
    expect(second.requests.filter((r) => r.url.includes(`/monitoring/lists/${listId}/companies`))).toEqual([]);

    // A colleague deletes the row of the 4th company and adds a row with a new one, not enriched yet.
    const gone = sheetCodes[3]!;
    const fresh = codes[40]!;
    w.colleague.deleteRow(5);
    w.colleague.insertRow(3, ['New lead', fresh, 'Jaan']);
    const third = await run(w, state);
    expect(third.item).toMatchObject({
      list_id: listId,
      created: false,
      added: 1,
      removed: 1,
      kept: 7,
      added_codes: [fresh],
      removed_codes: [gone],
    });
    expect(third.billed).toBe(1);
    expect(third.item.enriched).toMatchObject({ billedQueries: 1, matched: 1 });
    const want = [...sheetCodes.filter((c) => c !== gone), fresh].sort();
    expect([...(await members(listId)).keys()].sort()).toEqual(want);
    expect(listChanges(third.requests)).toHaveLength(1);
  });

  test('state missing (a manual run keeps no static data): the list is found again by name, not duplicated', async () => {
    const sheetCodes = codes.slice(10, 16);
    const w = await sheetWorld(sheetCodes);
    const first = await run(w, {}, {}, { mode: 'manual' });
    expect(first.item).toMatchObject({ created: true, added: 6 });
    const listId = String(first.item.list_id);
    // Again with nothing remembered: found by its name, its members read, so nothing is sent and the counts are true.
    const again = await run(w, {}, {}, { mode: 'manual' });
    expect(again.item).toMatchObject({ list_id: listId, created: false, added: 0, removed: 0, kept: 6 });
    expect(again.billed).toBe(0);
    expect(listChanges(again.requests)).toEqual([]);
    expect(again.requests.some((r) => r.method === 'GET' && r.url.includes(`/monitoring/lists/${listId}/companies`))).toBe(true);
    // With a row gone and the state still missing: the removal is named.
    w.colleague.deleteRow(2);
    const third = await run(w, {});
    expect(third.item).toMatchObject({ list_id: listId, created: false, added: 0, removed: 1, kept: 5, removed_codes: [sheetCodes[0]] });
    expect(await listsNamed(`Sheet ${w.id} / Leads`)).toHaveLength(1);
    expect([...(await members(listId)).keys()].sort()).toEqual(sheetCodes.slice(1).sort());
  });

  test('a list name of the user’s; the tab renamed keeps the list made under its default name', async () => {
    const w = await sheetWorld(codes.slice(20, 23));
    const own = await run(w, {}, { listName: `Key accounts ${w.id}` });
    expect(own.item).toMatchObject({ list_name: `Key accounts ${w.id}`, created: true, added: 3 });
    expect(await listsNamed(`Key accounts ${w.id}`)).toHaveLength(1);

    const state: IDataObject = {};
    const byDefault = await run(w, state);
    expect(byDefault.item).toMatchObject({ list_name: `Sheet ${w.id} / Leads`, created: true });
    w.g.spreadsheets.get(w.id)!.sheets[0]!.title = 'Leads 2027';
    const renamed = await run(w, state);
    expect(renamed.item).toMatchObject({ list_id: byDefault.item.list_id, list_name: `Sheet ${w.id} / Leads`, created: false, kept: 3 });
    expect(listChanges(renamed.requests)).toEqual([]);
  });

  test('Max Billed Queries refuses before paying: nothing billed, nothing sent to the list', async () => {
    const w = await sheetWorld(codes.slice(30, 40));
    const before = shown(w);
    const start = billed();
    const err = await run(w, {}, { maxBilledQueries: 3 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NodeOperationError);
    // Worded as the other nodes word the cap ("Max Billed Queries: is …").
    expect((err as Error).message).toBe('Max Billed Queries: is 3, but this run would bill 10 unique queries');
    expect((err as NodeOperationError).description).toContain('Raise Max Billed Queries');
    expect((err as NodeOperationError).description).toContain('Nothing was sent and nothing was billed');
    expect(billed()).toBe(start);
    expect(await listsNamed(`Sheet ${w.id} / Leads`)).toEqual([]);
    const res = await run(w, {}, { maxBilledQueries: 3 }, { continueOnFail: true });
    expect(String(res.item.error)).toMatch(/^Max Billed Queries: is 3/);
    expect(res.billed).toBe(0);
    expect(res.requests.filter((r) => r.url.includes('/monitoring'))).toEqual([]);
    // The checks before paying try a write and put the cell back: the sheet is as it was.
    expect(shown(w)).toBe(before);
  });

  test('a plan without monitoring: the rows are enriched and kept in the sheet, the refusal says so; run again bills nothing', async () => {
    const w = await sheetWorld(codes.slice(50, 54));
    const basic = { companyData: { apiKey: sb.basicKey, baseUrl: sb.url, authStyle: 'xApiKey' } };
    const paid = () => sb.usage(sb.basicKey).billed_lookup_queries;
    const start = paid();
    const err = await run(w, {}, {}, basic).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NodeApiError);
    expect((err as NodeApiError).httpCode).toBe('403');
    expect((err as NodeApiError).description).toMatch(
      /was not brought up to date\. The 4 answers paid for are in the sheet and free on the next run\./,
    );
    expect(paid() - start).toBe(4);
    expect(column(w, 'company_data_match_registry_code')).toEqual(codes.slice(50, 54));
    const again = await run(w, {}, {}, basic).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(NodeApiError);
    expect(paid() - start).toBe(4);
  });

  test('a list name over the service’s limit is refused naming the field, before anything is read', async () => {
    const w = await sheetWorld(codes.slice(41, 42));
    const err = await run(w, {}, { listName: 'x'.repeat(201) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NodeOperationError);
    expect((err as Error).message).toMatch(/^List Name: at most 200 characters/);
    expect(w.g.calls).toHaveLength(0);
  });
});

describe('the list state in the workflow static data', () => {
  test('n8n sees a change (so it saves it), not an unchanged put; sheets are kept apart; a damaged entry reads as none', async () => {
    const workflow = new Workflow({
      nodes: [googleSheetsNode],
      connections: {},
      active: false,
      nodeTypes: mock<INodeTypes>(),
      staticData: {},
    });
    const data = workflow.getStaticData('node', googleSheetsNode);
    const changed = () => (workflow.staticData as { __dataChanged?: boolean }).__dataChanged;
    const a = staticDataWatchState(data, 'ss1#gid:0');
    expect(await a.get()).toBeUndefined();
    await a.put({ listId: 'lst_1', listName: 'Sheet ss1 / Leads', members: ['10000001'] });
    expect(changed()).toBe(true);
    expect(await staticDataWatchState(data, 'ss1#gid:0').get()).toEqual({
      listId: 'lst_1',
      listName: 'Sheet ss1 / Leads',
      members: ['10000001'],
    });
    expect(await staticDataWatchState(data, 'ss1#gid:7').get()).toBeUndefined();

    (workflow.staticData as { __dataChanged?: boolean }).__dataChanged = false;
    await a.put({ listId: 'lst_1', listName: 'Sheet ss1 / Leads', members: ['10000001'] });
    expect(changed()).toBe(false);

    (data.companyDataWatchLists as IDataObject)['ss1#gid:0'] = { listId: 5 };
    expect(await a.get()).toBeUndefined();
  });
});
