import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import type { MockProxy } from 'jest-mock-extended';
import { NodeOperationError } from 'n8n-workflow';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CompanyDataGoogleSheets } from '../../../nodes/CompanyDataGoogleSheets/CompanyDataGoogleSheets.node';
import { LOCK_WAIT_MS, waitingLocks } from '../../../src/n8n/google-sheets/ports/waiting-locks';
import { inProcessWriterLocks } from '../../../src/n8n/google-sheets/ports/writer-locks';
import { defaultTriggerOptions, digestItems, eventToItems } from '../../../src/n8n/trigger/items';
import { call, startEventsSandbox, type EventsSandbox } from '../../company-data/sandbox/monitoring/support/sandbox';
import { googleExecuteContext, type GoogleContextOptions } from '../../support/n8n-google-context';
import { Colleague } from '../../support/sheets-standin-colleague';
import { SheetsStandin } from '../../support/sheets-standin';
import { StandinRefusal } from '../../support/sheets-standin-permissions';

/**
 * Company Data: Google Sheets, Write Events to Rows, through the node's execute() with n8n's execution context
 * (jest-mock-extended) and every request over real HTTP: the events are made by the sandbox (POST
 * /sandbox/changes) and read back from GET /monitoring/events, then given to the node as the Company Data
 * Trigger and the Poll Trigger output them; the sheet is the Google Sheets stand-in.
 */
const node = new CompanyDataGoogleSheets();
let h: EventsSandbox;
let g: SheetsStandin;
let key: ReturnType<SheetsStandin['serviceAccountKey']>;
/** Companies on the account's list: the first eight are in the sheets made below, the last two are not. */
let codes: string[];

beforeAll(async () => {
  h = await startEventsSandbox({ companies: 50 });
  g = await new SheetsStandin({ readsPerMinute: 600, writesPerMinute: 600 }).listen();
  key = g.serviceAccountKey('events@standin.iam.gserviceaccount.com');
  codes = h.codes.slice(0, 10);
  const list = (await call(h.url, h.apiKey, 'POST', '/monitoring/lists', { name: 'Leads' })).body.data.id as string;
  const added = await call(h.url, h.apiKey, 'POST', `/monitoring/lists/${list}/companies`, {
    add: codes.map((registry_code) => ({ registry_code, external_ref: 'gsheet:leads' })),
  });
  expect(added.status).toBe(200);
});
afterAll(async () => {
  await g?.close();
  await h?.close();
});

type Rec = Record<string, unknown>;

/** A change made by the sandbox, as GET /monitoring/events gives it. */
async function change(code: string, category: string, kind: string, details?: Rec): Promise<Rec> {
  const made = await call(h.url, h.apiKey, 'POST', '/sandbox/changes', {
    registry_code: code,
    category,
    kind,
    ...(details ? { details } : {}),
  });
  expect(made.status).toBe(201);
  const id = (made.body.data.events as string[])[0]!;
  const polled = await call(h.url, h.apiKey, 'GET', '/monitoring/events?limit=100');
  const found = [...(polled.body.data as Rec[])].find((e) => e.id === id);
  expect(found, `event ${id} in GET /monitoring/events`).toBeDefined();
  return found!;
}

/** The Company Data Trigger's items for these events (one item per change, its summary first). */
const triggerItems = (events: Rec[]): INodeExecutionData[] =>
  events.flatMap((e) => eventToItems(e, defaultTriggerOptions)).map((json) => ({ json: json as IDataObject }));

let sheets = 0;
/** A spreadsheet with a watched sheet: people's columns (Owner, Status, Notes) beside enrich's. */
function spreadsheet(rows = codes.slice(0, 8)) {
  const id = `sheet-write-events-${++sheets}-0001`;
  g.create(id, [
    {
      title: 'Leads',
      rows: [
        ['Company', 'Registry code', 'Owner', 'Status', 'company_data_match_name', 'company_data_match_status', 'Notes'],
        ...rows.map((c, i) => [`Lead ${i + 1}`, c, i % 2 ? 'Mari' : 'Jaan', 'hot', `Old name ${c}`, 'R', `note ${i + 1}`]),
      ],
    },
  ]);
  g.share(id, [key.client_email]);
  return id;
}

async function run(id: string, items: INodeExecutionData[], more: Rec = {}, ctxOptions: Partial<GoogleContextOptions> = {}) {
  const { ctx, requests } = googleExecuteContext({
    ...ctxOptions,
    params: {
      authentication: 'serviceAccount',
      operation: 'writeEvents',
      spreadsheet: { __rl: true, mode: 'id', value: id },
      sheet: { __rl: true, mode: 'list', value: '0' },
      keyColumn: '',
      eventsSheet: 'Company changes',
      options: { sheetsApiUrl: g.url },
      ...more,
    },
    companyData: { apiKey: h.apiKey, baseUrl: h.url, authStyle: 'xApiKey' },
    serviceAccount: { serviceAccountKey: JSON.stringify(key) },
  });
  (ctx as MockProxy<IExecuteFunctions>).getInputData.mockReturnValue(items);
  const out = (await node.execute.call(ctx)) as INodeExecutionData[][];
  return { items: out[0]!, json: out[0]![0]?.json as Rec | undefined, requests };
}

/** A sheet as rows of header → text. */
function rowsOf(id: string, title = 'Leads'): Record<string, string>[] {
  const [header, ...rows] = g.values(id, title).map((r) => r.map(String));
  return rows.map((r) => Object.fromEntries(header!.map((x, i) => [x, r[i] ?? ''])));
}
const rowOf = (id: string, code: string) => rowsOf(id).find((r) => r['Registry code'] === code)!;
/** The people's columns of every row, to show they are never written. */
const peoples = (id: string) =>
  rowsOf(id)
    .map((r) => [r.Company, r['Registry code'], r.Owner, r.Status, r.Notes].join('|'))
    .sort();

describe('Write Events to Rows', () => {
  test('changes land in their rows and on the events sheet (made when missing); one digest item; a redelivery changes and outputs nothing', async () => {
    const id = spreadsheet();
    const [a, b, c] = codes;
    const before = peoples(id);
    const renamed = await change(a!, 'registry', 'name_changed', { new: 'Alfa Uus OÜ' });
    const debt = await change(b!, 'tax', 'tax_debt');
    const liquidation = await change(c!, 'registry', 'status_changed', { new: 'L' });
    const items = triggerItems([renamed, debt, liquidation]);
    expect(items).toHaveLength(3);

    const first = await run(id, items);
    expect(first.items).toHaveLength(1);
    expect(first.json).toMatchObject({
      type: 'monitoring.digest',
      applied: 3,
      already_applied: 0,
      not_in_sheet: 0,
      rows_written: 3,
      ignored: 0,
      problems: [],
      total: 3,
      companies: 3,
      eventsSheet: 'Company changes',
      eventsSheetAdded: true,
      sheet: 'Leads',
    });
    // The chat-ready digest, bad news first, as the Poll Trigger's digest item.
    const summary = String(first.json!.summary);
    expect(summary.split('\n')[0]).toBe('*Company Data: 3 changes at 3 companies*');
    expect(summary).toBe(first.json!.digest);
    expect(summary.indexOf('🔴')).toBeLessThan(summary.indexOf('⚪'));
    expect((first.json!.events as Rec[]).map((e) => e.id)).toEqual([renamed.id, debt.id, liquidation.id]);
    expect(first.items[0]!.pairedItem).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);

    const ra = rowOf(id, a!);
    expect(ra.company_data_match_name).toBe('Alfa Uus OÜ');
    expect(ra.company_data_last_event_id).toBe(renamed.id);
    expect(ra.company_data_changed_at).toBe((renamed.data as Rec).detected_at);
    expect(ra.company_data_last_change).toContain('Alfa Uus OÜ');
    expect(rowOf(id, b!).company_data_last_event_id).toBe(debt.id);
    expect(rowOf(id, b!).company_data_match_name).toBe(`Old name ${b}`);
    // A status change writes enrich's status column, never the person's "Status".
    expect(rowOf(id, c!).company_data_match_status).toBe('L');
    expect(rowOf(id, c!).Status).toBe('hot');
    expect(peoples(id)).toEqual(before);
    expect(rowsOf(id).filter((r) => r.company_data_last_event_id).length).toBe(3);

    const events = rowsOf(id, 'Company changes');
    expect(events.map((r) => r.event_id)).toEqual([renamed.id, debt.id, liquidation.id]);
    expect(events.map((r) => r.registry_code)).toEqual([a, b, c]);

    // Delivered again (the service's redelivery, a retried execution): nothing written, no item for the chat node.
    const leads = JSON.stringify(g.values(id, 'Leads'));
    const log = JSON.stringify(g.values(id, 'Company changes'));
    const writes = g.count('write');
    const again = await run(id, items);
    expect(again.items).toEqual([]);
    // Only the two sheets' leases (the watched sheet's and the events sheet's), each taken and given back.
    expect(g.count('write')).toBe(writes + 4);
    expect(JSON.stringify(g.values(id, 'Leads'))).toBe(leads);
    expect(JSON.stringify(g.values(id, 'Company changes'))).toBe(log);
  });

  test("a colleague's sort between runs: the next change still lands in its company's row, and the earlier ones moved with theirs", async () => {
    const id = spreadsheet();
    const [a, b, , d] = codes;
    const first = await change(a!, 'registry', 'name_changed', { new: 'Esimene OÜ' });
    expect((await run(id, triggerItems([first]))).json).toMatchObject({ applied: 1, rows_written: 1 });

    // Sorted by Owner, then by Company descending: every row moves.
    const colleague = new Colleague(g, id, 'Leads');
    colleague.sortBy(0, 'desc');
    colleague.sortBy(2, 'asc');
    expect(colleague.done.length).toBe(2);
    const moved = rowsOf(id).map((r) => r['Registry code']);
    expect(moved).not.toEqual(codes.slice(0, 8));

    const second = await change(d!, 'registry', 'name_changed', { new: 'Neljas OÜ' });
    const third = await change(b!, 'court', 'court_case');
    const out = await run(id, triggerItems([second, third]));
    expect(out.json).toMatchObject({ applied: 2, rows_written: 2, total: 2 });
    expect(rowsOf(id).map((r) => r['Registry code'])).toEqual(moved);
    expect(rowOf(id, d!)).toMatchObject({ company_data_match_name: 'Neljas OÜ', company_data_last_event_id: second.id });
    expect(rowOf(id, b!).company_data_last_event_id).toBe(third.id);
    expect(rowOf(id, a!)).toMatchObject({ company_data_match_name: 'Esimene OÜ', company_data_last_event_id: first.id });
    expect(rowsOf(id).filter((r) => r.company_data_last_event_id).length).toBe(3);
    expect(rowsOf(id, 'Company changes').map((r) => r.event_id)).toEqual([first.id, second.id, third.id]);

    // And inside the write window: sorted again just before the rows are written, a row inserted before the check.
    const [, , c, , e] = codes;
    const fourth = await change(c!, 'registry', 'name_changed', { new: 'Kolmas OÜ' });
    const fifth = await change(e!, 'tax', 'tax_debt');
    colleague.before('values.batchUpdate', (x) => x.sortBy(1, 'desc'));
    colleague.before('values.batchGet', (x) => x.insertRow(2, ['Lead 0', '', 'Tiit', 'cold']), 1);
    const during = await run(id, triggerItems([fourth, fifth]));
    expect(colleague.done).toEqual(['sort by column 1 desc', 'sort by column 3 asc', 'sort by column 2 desc', 'insert row 2']);
    expect(during.json).toMatchObject({ applied: 2, total: 2 });
    expect(rowOf(id, c!)).toMatchObject({ company_data_match_name: 'Kolmas OÜ', company_data_last_event_id: fourth.id });
    expect(rowOf(id, e!).company_data_last_event_id).toBe(fifth.id);
    expect(rowOf(id, d!)).toMatchObject({ company_data_match_name: 'Neljas OÜ', company_data_last_event_id: second.id });
    expect(rowOf(id, a!)).toMatchObject({ company_data_match_name: 'Esimene OÜ', company_data_last_event_id: first.id });
    expect(rowOf(id, b!).company_data_last_event_id).toBe(third.id);
    expect(rowsOf(id).find((r) => r.Company === 'Lead 0')!.company_data_last_event_id).toBe('');
    expect(rowsOf(id).filter((r) => r.company_data_last_event_id).length).toBe(5);
  });

  test('a change of a company not in the sheet goes to the events sheet only', async () => {
    const id = spreadsheet();
    const absent = codes[9]!;
    const before = JSON.stringify(g.values(id, 'Leads'));
    const ev = await change(absent, 'court', 'court_case');
    const out = await run(id, triggerItems([ev]));
    expect(out.json).toMatchObject({ applied: 1, not_in_sheet: 1, rows_written: 0, total: 1 });
    expect(JSON.stringify(g.values(id, 'Leads'))).toBe(before);
    expect(rowsOf(id, 'Company changes').map((r) => [r.event_id, r.registry_code])).toEqual([[ev.id, absent]]);
  });

  test('an events sheet already there (another name, any case) is written, not made again', async () => {
    const id = spreadsheet();
    const ev = await change(codes[4]!, 'tax', 'tax_debt');
    const first = await run(id, triggerItems([ev]), { eventsSheet: 'Muudatused' });
    expect(first.json).toMatchObject({ applied: 1, eventsSheetAdded: true, eventsSheet: 'Muudatused' });
    const ev2 = await change(codes[5]!, 'court', 'court_case');
    const second = await run(id, triggerItems([ev2]), { eventsSheet: 'MUUDATUSED' });
    expect(second.json).toMatchObject({ applied: 1, eventsSheetAdded: false });
    expect(g.spreadsheets.get(id)!.sheets.map((s) => s.title)).toEqual(['Leads', 'Muudatused']);
    expect(rowsOf(id, 'Muudatused').map((r) => r.event_id)).toEqual([ev.id, ev2.id]);
  });

  test("the Poll Trigger's digest item: its events are applied, once", async () => {
    const id = spreadsheet();
    const [, , , , , , f, g7] = codes;
    const one = await change(f!, 'registry', 'name_changed', { new: 'Kuues OÜ' });
    const two = await change(g7!, 'tax', 'tax_debt');
    const polled = [one, two].flatMap((e) => eventToItems(e, defaultTriggerOptions));
    const digest = digestItems(polled, { ...defaultTriggerOptions, digest: true, digestLines: 20 });
    expect(digest).toHaveLength(1);
    expect(digest[0]!.type).toBe('monitoring.digest');
    const out = await run(id, [{ json: digest[0]! as IDataObject }]);
    expect(out.json).toMatchObject({ applied: 2, rows_written: 2, total: 2, companies: 2 });
    expect(rowOf(id, f!)).toMatchObject({ company_data_match_name: 'Kuues OÜ', company_data_last_event_id: one.id });
    expect(rowOf(id, g7!).company_data_last_event_id).toBe(two.id);
    // The same digest item again, and the same changes as single items: nothing new.
    expect((await run(id, [{ json: digest[0]! as IDataObject }, ...triggerItems([one, two])])).items).toEqual([]);
  });

  test('a malformed item never blocks the next; saved-search matches and the test event are ignored and counted', async () => {
    const id = spreadsheet();
    const good = await change(codes[7]!, 'registry', 'name_changed', { new: 'Kaheksas OÜ' });
    const items: INodeExecutionData[] = [
      { json: { type: 'monitoring.change', id: 'evt_broken_1', data: 'not an object' } },
      { json: { note: 'a row from somewhere else' } },
      { json: { type: 'monitoring.change', data: { company: { registry_code: codes[6] } } } },
      { json: { type: 'webhook.test', id: 'evt_test_1', summary: 'Test event' } },
      { json: { type: 'search.matches', id: 'evt_search_1', data: { search: { id: 'srch_1' }, companies: [] } } },
      ...triggerItems([good]),
    ];
    const out = await run(id, items);
    expect(out.items).toHaveLength(1);
    expect(out.json).toMatchObject({ applied: 1, rows_written: 1, ignored: 2, total: 1 });
    expect(rowOf(id, codes[7]!)).toMatchObject({ company_data_match_name: 'Kaheksas OÜ', company_data_last_event_id: good.id });
    const problems = out.json!.problems as { item: number; event_id?: string; problem: string }[];
    expect(problems.map((p) => p.item).sort()).toEqual([0, 1, 2]);
    expect(problems.find((p) => p.item === 1)!.problem).toMatch(/not a Company Data event/);
    expect(problems.find((p) => p.item === 2)!.problem).toMatch(/without a usable event id/);
    expect(problems.find((p) => p.item === 0)).toMatchObject({ event_id: 'evt_broken_1' });
    // The broken change is on the events sheet once, as received, so a redelivery is a duplicate too.
    const logged = rowsOf(id, 'Company changes');
    expect(logged.map((r) => r.event_id)).toEqual(['evt_broken_1', good.id]);
    expect(logged[0]!.summary).toMatch(/^Not readable/);
    // Only the item without an id can come back as a problem: it cannot be known again.
    const again = await run(id, items);
    expect(again.json).toMatchObject({ applied: 0, already_applied: 2, ignored: 2, total: 0 });
    expect((again.json!.problems as unknown[]).length).toBe(2);
    expect(String(again.json!.summary)).toMatch(/^Company Data: 2 item\(s\) could not be applied/);
  });

  test('executions started side by side (a morning of deliveries, one change each) take the sheet in turn: every change lands, once', async () => {
    const id = spreadsheet();
    const made: Rec[] = [];
    for (const [i, code] of codes.slice(0, 6).entries())
      made.push(await change(code, 'registry', 'name_changed', { new: `Samaaegne ${i} OÜ` }));
    const outs = await Promise.all(made.map((e) => run(id, triggerItems([e]))));
    expect(outs.map((o) => o.json?.applied)).toEqual([1, 1, 1, 1, 1, 1]);
    for (const [i, code] of codes.slice(0, 6).entries())
      expect(rowOf(id, code)).toMatchObject({ company_data_match_name: `Samaaegne ${i} OÜ`, company_data_last_event_id: made[i]!.id });
    expect(
      rowsOf(id, 'Company changes')
        .map((r) => r.event_id)
        .sort(),
    ).toEqual(made.map((e) => String(e.id)).sort());
    // Delivered twice, side by side: written once, one digest between them.
    const twice = await Promise.all(made.map((e) => run(id, triggerItems([e]))));
    expect(twice.flatMap((o) => o.items)).toEqual([]);
    expect(rowsOf(id, 'Company changes')).toHaveLength(6);
  });

  test('another execution writing the sheet in this n8n (Enrich Rows, say): this one waits for it, and Stop ends the wait', async () => {
    const id = spreadsheet();
    const ev = await change(codes[3]!, 'tax', 'tax_debt');
    const held = inProcessWriterLocks.acquire({ id: `gsheet:${id}#Leads`, label: 'Leads' }) as { release(): void };
    const before = JSON.stringify(g.values(id, 'Leads'));
    let waiting: Promise<unknown> | undefined;
    try {
      waiting = run(id, triggerItems([ev]));
      await new Promise((r) => setTimeout(r, 600));
      expect(JSON.stringify(g.values(id, 'Leads'))).toBe(before);
      expect(g.spreadsheets.get(id)!.sheets).toHaveLength(1);

      const stop = new AbortController();
      const stopped = run(id, triggerItems([ev]), {}, { signal: stop.signal }).catch((e: unknown) => e);
      await new Promise((r) => setTimeout(r, 300));
      stop.abort();
      const err = await stopped;
      expect(err).toBeInstanceOf(NodeOperationError);
      expect((err as NodeOperationError).message).toBe('The run was stopped');
    } finally {
      held.release();
    }
    expect(((await waiting) as { json: Rec }).json).toMatchObject({ applied: 1, rows_written: 1 });
    expect(rowOf(id, codes[3]!).company_data_last_event_id).toBe(ev.id);
  });

  test('Stop while Google fails a write: its retries end with the run, nothing is sent again after Stop', async () => {
    const id = spreadsheet();
    const ev = await change(codes[4]!, 'tax', 'tax_debt');
    const stop = new AbortController();
    let sentAfterStop = 0;
    // The first write of the run: Stop is pressed while it is on its way, and Google answers 503 (retried when not stopped).
    const hook = (r: { httpMethod: string; spreadsheetId: string }) => {
      if (r.spreadsheetId !== id || r.httpMethod === 'GET') return;
      if (stop.signal.aborted) sentAfterStop++;
      else stop.abort();
      throw new StandinRefusal(503, 'UNAVAILABLE', 'The service is currently unavailable.');
    };
    g.beforeRequest.push(hook);
    try {
      const err = await run(id, triggerItems([ev]), {}, { signal: stop.signal }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(NodeOperationError);
      expect((err as NodeOperationError).message).toBe('The run was stopped');
      expect(sentAfterStop).toBe(0);
    } finally {
      g.beforeRequest.splice(g.beforeRequest.indexOf(hook), 1);
    }
  });

  test('the events sheet cannot be the watched sheet', async () => {
    const id = spreadsheet();
    const ev = await change(codes[2]!, 'court', 'court_case');
    const err = await run(id, triggerItems([ev]), { eventsSheet: 'leads' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NodeOperationError);
    expect((err as Error).message).toMatch(/^Events Sheet: "leads" is the watched sheet itself/);
  });
});

describe('waiting for the writer lock', () => {
  /** A clock whose sleep moves time on at once: the wait's bound is checked without waiting. */
  const steppingClock = (onSleep: (slept: number) => void = () => {}) => {
    let t = 0;
    let slept = 0;
    return {
      now: () => t,
      sleep: async (ms: number) => {
        t += ms;
        onSleep(++slept);
      },
    };
  };
  const sheet = { id: 'gsheet:lock-test#Leads', label: 'lock-test / Leads' };

  test('takes the lock once the other execution lets go', async () => {
    const other = inProcessWriterLocks.acquire(sheet) as { release(): void };
    const clock = steppingClock((n) => n === 3 && other.release());
    const held = await waitingLocks(inProcessWriterLocks, clock).acquire(sheet);
    expect(clock.now()).toBe(600);
    await held.release();
  });

  test('gives up after its bound with the lock’s own refusal, naming the sheet', async () => {
    const other = inProcessWriterLocks.acquire(sheet) as { release(): void };
    try {
      const clock = steppingClock();
      await expect(waitingLocks(inProcessWriterLocks, clock, { maxWaitMs: 5_000 }).acquire(sheet)).rejects.toThrow(
        /^lock: lock-test \/ Leads is being written by another execution/,
      );
      expect(clock.now()).toBe(5_000);
      expect(LOCK_WAIT_MS).toBe(600_000);
    } finally {
      other.release();
    }
  });
});
