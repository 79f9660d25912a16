/**
 * A poisoned event among good ones never stops the events writer, now or after a restart: a field
 * longer than a cell holds is cut with a visible marker (Google 50,000, Excel 32,767; a CSV keeps it
 * whole), an event the sheet refuses becomes a stub row naming it, a malformed event one row holding it
 * as received, an event without an id is reported and skipped; each is said on stderr with its id.
 * The user's own columns in the events sheet are kept. Polls go through the command as users run it
 * (its own process) with the sandbox as the event source; webhooks are signed deliveries over HTTP.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompanyDataClient } from '../../../packages/company-data/src/index';
import { startWebhookReceiver } from '../../../packages/company-data/src/sheets/event-sources';
import { EventLedger } from '../../../packages/company-data/src/sheets/event-ledger';
import { EVENT_COLUMNS, EventSheetWriter } from '../../../packages/company-data/src/sheets/events-to-rows';
import { CsvTable } from '../../../packages/company-data/src/sheets/csv-table';
import { GoogleSheetTable } from '../../../packages/company-data/src/sheets/google-table';
import { MAX_CELL_CHARS, type Table } from '../../../packages/company-data/src/sheets/table';
import { XlsxTable } from '../../../packages/company-data/src/sheets/xlsx-table';
import { MAX_XLSX_CELL_CHARS } from '../../../packages/company-data/src/sheets/xlsx/package';
import { signWebhook } from '@company-data/core/webhooks';
import { runCli } from '../../drills/support/cli';
import { startEventsSandbox, type EventsSandbox } from '../sandbox/monitoring/support/sandbox';
import { startSheetsStandin, type SheetsStandin } from '../../support/sheets-standin';
import { startSheetsProxy } from '../../support/sheets-standin-proxy';
import { tempDirs } from '../../support/temp-dirs';
import { taxDebtChange } from './support/events';
import { SheetsError } from '@company-data/core/sheets/errors';
import { inCliWords } from '../../../packages/company-data/src/cli/sheets-errors';

const tempDir = tempDirs();
const MARKER = / … \[cut: [\d,]+ characters in all\]$/;

let h: EventsSandbox;
let client: CompanyDataClient;
let standin: SheetsStandin;
let poisonId: string;
beforeAll(async () => {
  [h, standin] = await Promise.all([startEventsSandbox({ companies: 10 }), startSheetsStandin()]);
  client = new CompanyDataClient({ baseUrl: h.url, apiKey: h.apiKey });
  const list = (await client.monitoring.createList({ name: 'Customers' })).data as { id: string };
  await client.monitoring.addCompanies({ list_id: list.id, add: h.codes.slice(0, 5).map((registry_code) => ({ registry_code })) });
  await change(h.codes[0]!);
  poisonId = await change(h.codes[1]!, { note: 'p'.repeat(60_000) });
  await change(h.codes[2]!);
});
afterAll(async () => {
  await client.close();
  await Promise.all([h.close(), standin.close()]);
});

/** A court case for the company now (the sandbox's control endpoint); `details` keys are added to the event's. */
async function change(code: string, details?: Record<string, unknown>): Promise<string> {
  const res = await fetch(`${h.url}/sandbox/changes`, {
    method: 'POST',
    headers: { 'x-api-key': h.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ registry_code: code, category: 'court', ...(details ? { details } : {}) }),
  });
  const j = (await res.json()) as { data: { events: string[] } };
  expect(res.ok).toBe(true);
  return j.data.events[0]!;
}

/** Every event of the account so far, oldest first: what a sheet polled from the start must hold, once each. */
async function allEventIds(): Promise<string[]> {
  const ids: string[] = [];
  for await (const e of client.iterateEvents()) ids.push(e.id);
  return ids;
}

const apiEnv = () => ({ COMPANY_DATA_BASE_URL: h.url, COMPANY_DATA_API_KEY: h.apiKey });
const googleEnv = (rootUrl = standin.url) => ({
  ...apiEnv(),
  COMPANY_DATA_GOOGLE_TOKEN: standin.accessToken,
  COMPANY_DATA_SHEETS_ROOT_URL: rootUrl,
});

async function xlsxGrid(path: string, sheet?: string): Promise<string[][]> {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.readFile(path);
  const grid: string[][] = [];
  (sheet ? wb.getWorksheet(sheet)! : wb.worksheets[0]!).eachRow((row, n) => {
    grid[n - 1] = (row.values as unknown[]).slice(1).map((v) => (v === undefined || v === null ? '' : String(v)));
  });
  return grid;
}

const googleGrid = (id: string, sheet = 'Events') => standin.values(id, sheet).map((r) => r.map(String));
const col = (grid: string[][], name: string) => grid[0]!.indexOf(name);
const rowOf = (grid: string[][], id: string) => grid.find((r) => r[col(grid, 'event_id')] === id)!;
const idsIn = (grid: string[][]) => grid.slice(1).map((r) => r[col(grid, 'event_id')]);

describe('an over-long event among good ones, polled by the command, and polled again after a restart', () => {
  async function scenario(target: string[], env: Record<string, string>, read: () => Promise<string[][]>, limit?: number) {
    const state = join(tempDir('poison-state-'), 'state');
    const args = ['events-to-sheet', ...target, '--once', '--state-dir', state];
    const first = await runCli(args, env);
    expect(first.stderr).not.toMatch(/Error|failed/);
    expect(first.code).toBe(0);
    if (limit) {
      expect(first.stderr).toContain(
        `${poisonId}: details cut to ${limit.toLocaleString('en-US')} characters, the most a cell of this sheet holds`,
      );
      expect(first.stdout).toMatch(/Written other than sent \(see the lines above\): with cells cut: 1\n/);
    } else expect(first.stderr).not.toContain('cut');

    // A restart: the poisoned event is not tried again, the new one is written.
    const fresh = await change(h.codes[3]!);
    const second = await runCli(args, env);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('Events appended: 1 (1 rows)');

    const grid = await read();
    expect(idsIn(grid)).toEqual(await allEventIds());
    expect(idsIn(grid)).toContain(fresh);
    const details = rowOf(grid, poisonId)[col(grid, 'details')]!;
    if (limit) {
      expect(details.length).toBeLessThanOrEqual(limit);
      expect(details.length).toBeGreaterThan(limit - 60);
      expect(details).toMatch(MARKER);
      expect(grid.flat().every((v) => v.length <= limit)).toBe(true);
    } else expect(details).toContain('p'.repeat(60_000));
  }

  it('Google Sheets: the field is cut to 50,000 characters with the marker', async () => {
    standin.create('poll-g', [{ title: 'Events' }]);
    await scenario(['--spreadsheet', 'poll-g', '--sheet', 'Events'], googleEnv(), async () => googleGrid('poll-g'), MAX_CELL_CHARS);
  });

  it('XLSX: the field is cut to 32,767 characters with the marker', async () => {
    const file = join(tempDir('poison-xlsx-'), 'events.xlsx');
    await scenario([file], apiEnv(), () => xlsxGrid(file), MAX_XLSX_CELL_CHARS);
  });

  it('CSV: the field is kept whole (a CSV cell has no limit)', async () => {
    const file = join(tempDir('poison-csv-'), 'events.csv');
    await scenario([file], apiEnv(), async () => parse(readFileSync(file, 'utf8')) as string[][]);
  });
});

describe('an event the sheet refuses becomes a stub row naming it; later events are written', () => {
  it('Google Sheets answering 400 for one of its values: a stub row, and no second row after a restart', async () => {
    standin.create('refuse-g', [{ title: 'Events' }]);
    const refusedId = await change(h.codes[4]!, { note: 'VALUE-GOOGLE-REFUSES' });
    const proxy = await startSheetsProxy(standin.url, (r) =>
      r.path.includes(':append') && r.body.includes('VALUE-GOOGLE-REFUSES') ? 'refuse' : 'pass',
    );
    try {
      const state = join(tempDir('refuse-g-'), 'state');
      const args = ['events-to-sheet', '--spreadsheet', 'refuse-g', '--sheet', 'Events', '--once', '--state-dir', state];
      const first = await runCli(args, googleEnv(proxy.url));
      expect(first.code).toBe(0);
      expect(first.stderr).toContain(
        `${refusedId}: written as a stub row (event id and registry code only): Google Sheets 400 INVALID_ARGUMENT: Invalid values[1][5]`,
      );
      expect(first.stdout).toContain('refused by the sheet (stub rows): 1');
      // The events are appended in one batch: Google refuses the whole request, and the batch is halved until
      // the refused event is alone (the last refusal holds its row only); the others go in.
      const refusals = proxy.refused.length;
      expect(refusals).toBeGreaterThanOrEqual(1);
      expect(JSON.parse(proxy.refused.at(-1)!.body).values).toHaveLength(1);
      const later = await change(h.codes[0]!);
      const second = await runCli(args, googleEnv(proxy.url));
      expect(second.code).toBe(0);
      // A restart does not send the refused event again.
      expect(proxy.refused).toHaveLength(refusals);

      const grid = googleGrid('refuse-g');
      expect(idsIn(grid)).toEqual(await allEventIds());
      expect(idsIn(grid)).toContain(later);
      const stub = rowOf(grid, refusedId);
      expect(stub[col(grid, 'registry_code')]).toBe(h.codes[4]);
      expect(stub[col(grid, 'type')]).toBe('monitoring.change');
      expect(stub[col(grid, 'details')] ?? '').toBe('');
      expect(stub[col(grid, 'summary')]).toMatch(/^Not written in full: the sheet refused a value of this event/);
    } finally {
      await proxy.close();
    }
  });

  it('a Windows-1257 CSV and a Cyrillic value: a stub row; the file keeps its encoding and the user columns', async () => {
    const refusedId = await change(h.codes[2]!, { note: 'Дом' });
    const dir = tempDir('refuse-csv-');
    const file = join(dir, 'events.csv');
    const win1257 = (s: string) => Buffer.from(s, 'latin1'); // ä is 0xE4 in Windows-1257 as in Latin-1
    writeFileSync(file, win1257('Owner;event_id;Märkus\r\nMari;;helista tagasi\r\n'));
    const run = await runCli(['events-to-sheet', file, '--once', '--state-dir', join(dir, 'state')], apiEnv());
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(
      new RegExp(`${refusedId}: written as a stub row \\(event id and registry code only\\): file: .* is Windows-1257`),
    );

    const bytes = readFileSync(file);
    expect(() => new TextDecoder('utf-8', { fatal: true }).decode(bytes)).toThrow();
    const grid = parse(new TextDecoder('windows-1257').decode(bytes), { delimiter: ';' }) as string[][];
    expect(grid[0]!.slice(0, 3)).toEqual(['Owner', 'event_id', 'Märkus']);
    expect(grid[1]!.slice(0, 3)).toEqual(['Mari', '', 'helista tagasi']);
    expect(grid.slice(2).map((r) => r[1])).toEqual(await allEventIds());
    const stub = rowOf(grid, refusedId);
    expect(stub[col(grid, 'summary')]).toMatch(/^Not written in full/);
    expect(stub[col(grid, 'registry_code')]).toBe(h.codes[2]);
    expect(grid.slice(2).every((r) => r[0] === '' && r[2] === '')).toBe(true);
    expect(rowOf(grid, poisonId)[col(grid, 'details')]).toContain('p'.repeat(60_000));
  });

  it('an event refused while a crash left it half done: the next start writes its stub instead of failing on it', async () => {
    const dir = tempDir('refuse-restart-');
    const file = join(dir, 'events.csv');
    writeFileSync(file, Buffer.from('event_id;type;M\u00e4rkus\r\n', 'latin1')); // Windows-1257: ä is 0xE4
    const stateDir = join(dir, 'state');
    const first = new EventSheetWriter({ table: new CsvTable(file), stateDir });
    await first.open();
    await first.close();
    // The crash: begun in the ledger (with a value this file cannot hold), never appended.
    const ledger = new EventLedger(first.ledger.path);
    ledger.begin('evt_77', [{ event_id: 'evt_77', type: 'monitoring.change', registry_code: '10137319', company_name: 'Дом OÜ' }]);
    ledger.close();

    for (const round of [1, 2]) {
      const problems: string[] = [];
      const w = new EventSheetWriter({ table: new CsvTable(file), stateDir, onProblem: (id, p) => problems.push(`${id}: ${p}`) });
      await w.open();
      expect(w.stats).toMatchObject(round === 1 ? { reconciled: 1, stubbed: 1 } : { reconciled: 0, stubbed: 0 });
      expect(problems).toEqual(round === 1 ? [expect.stringMatching(/^evt_77: written as a stub row/)] : []);
      expect(await w.accept(taxDebtChange(round) as never)).toBe('appended');
      await w.close();
    }
    const grid = parse(new TextDecoder('windows-1257').decode(readFileSync(file)), { delimiter: ';' }) as string[][];
    expect(idsIn(grid)).toEqual(['evt_77', 'evt_1', 'evt_2']);
    expect(rowOf(grid, 'evt_77')[col(grid, 'company_name')]).toBe('');
  });
});

describe('malformed deliveries among good ones (signed webhooks)', () => {
  const secret = 'whsec_poison_only';
  async function deliver(url: string, event: object, headerId: string): Promise<{ status: number; body: string }> {
    const body = JSON.stringify(event);
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...signWebhook({ secret, body, eventId: headerId }) },
      body,
    });
    return { status: res.status, body: await res.text() };
  }
  const at = '2025-01-02T07:00:00.000Z';
  const deliveries: [object, string][] = [
    [taxDebtChange(1), 'evt_1'],
    [{ id: 'evt_2', type: 'monitoring.change', created_at: at, data: { category: 'tax', kind: 'tax_debt' } }, 'evt_2'],
    [{ type: 'monitoring.change', created_at: at, data: { company: { registry_code: '10137319' } } }, 'evt_noid'],
    [{ id: 'evt_3', type: 'search.matches', created_at: at, data: { search: { id: 's', name: 'S' }, companies: 'none' } }, 'evt_3'],
    [taxDebtChange(4, { details: { old: 0, new: { text: 'q'.repeat(70_000) } } }), 'evt_4'],
    [taxDebtChange(5), 'evt_5'],
  ];

  async function scenario(makeTable: () => Table, read: () => Promise<string[][]>) {
    const stateDir = tempDir('malformed-state-');
    for (const round of [1, 2]) {
      const problems: string[] = [];
      const outcomes: string[] = [];
      const writer = new EventSheetWriter({ table: makeTable(), stateDir, onProblem: (id, p) => problems.push(`${id}: ${p}`) });
      await writer.open();
      const rx = await startWebhookReceiver({ writer, secrets: [secret], onEvent: (id, o) => outcomes.push(`${id}: ${o}`) });
      try {
        for (const [event, id] of deliveries) expect((await deliver(rx.url, event, id)).status).toBe(200);
      } finally {
        await rx.close();
        await writer.close();
      }
      if (round === 1) {
        expect(outcomes).toEqual([
          'evt_1: appended',
          'evt_2: appended',
          'an event without an id: refused',
          'evt_3: appended',
          'evt_4: appended',
          'evt_5: appended',
        ]);
        expect(problems.slice(0, 3)).toEqual([
          'evt_2: written as one row holding the event as received (details): data.company.registry_code is missing or not a code; report it to the service',
          'an event: not written: its id is missing or not an event id, so it could not be written exactly once; report it to the service',
          'evt_3: written as one row holding the event as received (details): data.companies is not a list; report it to the service',
        ]);
        expect(writer.stats).toMatchObject({ appended: 5, unreadable: 2, refused: 1 });
      } else {
        // Redelivered after a restart: nothing is written twice; the id-less event is refused again.
        expect(outcomes.filter((o) => o.endsWith('duplicate'))).toHaveLength(5);
        expect(writer.stats).toMatchObject({ appended: 0, duplicates: 5, refused: 1 });
      }
    }
    const grid = await read();
    expect(idsIn(grid)).toEqual(['evt_1', 'evt_2', 'evt_3', 'evt_4', 'evt_5']);
    const two = rowOf(grid, 'evt_2');
    expect(two[col(grid, 'summary')]).toMatch(
      /^Not readable: data\.company\.registry_code is missing or not a code\. The event as received is in details/,
    );
    expect(JSON.parse(two[col(grid, 'details')]!)).toEqual(deliveries[1]![0]);
    expect(rowOf(grid, 'evt_3')[col(grid, 'registry_code')] ?? '').toBe('');
    return grid;
  }

  it('Google Sheets', async () => {
    standin.create('malformed', [{ title: 'Events' }]);
    const table = () =>
      new GoogleSheetTable({
        spreadsheetId: 'malformed',
        sheet: 'Events',
        auth: { accessToken: standin.accessToken },
        rootUrl: standin.url,
      });
    const grid = await scenario(table, async () => googleGrid('malformed'));
    expect(rowOf(grid, 'evt_4')[col(grid, 'details')]).toMatch(MARKER);
  });

  it('XLSX', async () => {
    const file = join(tempDir('malformed-xlsx-'), 'events.xlsx');
    const grid = await scenario(
      () => new XlsxTable(file, { sheet: 'Events' }),
      () => xlsxGrid(file, 'Events'),
    );
    expect(rowOf(grid, 'evt_4')[col(grid, 'details')]!.length).toBeLessThanOrEqual(MAX_XLSX_CELL_CHARS);
  });

  it('CSV', async () => {
    const file = join(tempDir('malformed-csv-'), 'events.csv');
    const grid = await scenario(
      () => new CsvTable(file),
      async () => parse(readFileSync(file, 'utf8')) as string[][],
    );
    expect(rowOf(grid, 'evt_4')[col(grid, 'details')]).toContain('q'.repeat(70_000));
  });
});

describe("the user's own columns in the events sheet", () => {
  const table = (id: string) =>
    new GoogleSheetTable({ spreadsheetId: id, sheet: 'Events', auth: { accessToken: standin.accessToken }, rootUrl: standin.url });

  it('are kept: tool columns found by name, new ones after the last used column, rows appended without shifting', async () => {
    standin.create('own', [
      {
        title: 'Events',
        rows: [
          ['Owner', 'event_id', 'Notes', 'type'],
          ['Mari', 'evt_old', 'call back', 'monitoring.change', '', '', 'no header here'],
        ],
      },
    ]);
    const stateDir = tempDir('own-');
    let w = new EventSheetWriter({ table: table('own'), stateDir });
    await w.open();
    expect(await w.accept(taxDebtChange(1) as never)).toBe('appended');
    expect(await w.accept({ ...taxDebtChange(2), id: 'evt_old' } as never)).toBe('duplicate');
    await w.close();

    let grid = googleGrid('own');
    // Columns E and F are empty, G holds the user's data without a header: the tool's start at H.
    expect(grid[0]!.slice(0, 8)).toEqual(['Owner', 'event_id', 'Notes', 'type', '', '', '', 'created_at']);
    expect(grid[0]!.slice(7)).toEqual(EVENT_COLUMNS.filter((c) => c !== 'event_id' && c !== 'type'));
    expect(grid[1]).toEqual(['Mari', 'evt_old', 'call back', 'monitoring.change', '', '', 'no header here']);
    const row = grid[2]!;
    expect(row.slice(0, 7)).toEqual(['', 'evt_1', '', 'monitoring.change', '', '', '']);
    expect(row[col(grid, 'registry_code')]).toBe('10137319');
    expect(row[col(grid, 'details')]).toBe('{"old":0,"new":1200}');

    // The user renames "details" and adds a column at the end; a crash left evt_3 begun in the ledger.
    grid[0]![col(grid, 'details')] = 'Details (JSON)';
    grid[0]!.push('Checked');
    standin.create('own', [{ title: 'Events', rows: grid }]);
    const ledger = new EventLedger(w.ledger.path);
    ledger.begin('evt_3', [{ event_id: 'evt_3', type: 'monitoring.change', registry_code: '10137319', summary: 'from the ledger' }]);
    ledger.close();
    w = new EventSheetWriter({ table: table('own'), stateDir });
    await w.open();
    expect(await w.accept(taxDebtChange(4) as never)).toBe('appended');
    await w.close();

    grid = googleGrid('own');
    const width = grid[0]!.length;
    expect(grid[0]![width - 1]).toBe('details');
    expect(grid[0]![width - 2]).toBe('Checked');
    expect(grid[0]).toContain('Details (JSON)');
    expect(idsIn(grid)).toEqual(['evt_old', 'evt_1', 'evt_3', 'evt_4']);
    const renamed = col(grid, 'Details (JSON)');
    expect(rowOf(grid, 'evt_1')[renamed]).toBe('{"old":0,"new":1200}');
    expect(rowOf(grid, 'evt_4')[renamed] ?? '').toBe('');
    expect(rowOf(grid, 'evt_4')[col(grid, 'details')]).toBe('{"old":0,"new":1200}');
    expect(rowOf(grid, 'evt_3')[col(grid, 'summary')]).toBe('from the ledger');
    expect(rowOf(grid, 'evt_4')[col(grid, 'Checked')] ?? '').toBe('');
    expect(grid[1]).toEqual(['Mari', 'evt_old', 'call back', 'monitoring.change', '', '', 'no header here']);
  });

  it('a deleted event_id column is refused on start, with what to do', async () => {
    standin.create('noid', [{ title: 'Events' }]);
    const stateDir = tempDir('noid-');
    const w = new EventSheetWriter({ table: table('noid'), stateDir });
    await w.open();
    await w.accept(taxDebtChange(1) as never);
    await w.close();
    const grid = googleGrid('noid').map((r) => r.filter((_, i) => i !== 0));
    standin.create('noid', [{ title: 'Events', rows: grid }]);
    const err: unknown = await new EventSheetWriter({ table: table('noid'), stateDir }).open().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SheetsError);
    expect(err).toMatchObject({ code: 'no_event_id_column', field: 'eventsSheet' });
    expect((err as Error).message).toMatch(
      /has no event_id column, though this tool wrote events to it before; it is how each event is written once/,
    );
    // What to do, in the CLI's words (watch names its events sheet with --events-sheet).
    expect(inCliWords(err)).toMatch(/\. Name that column event_id again, or set --events-sheet to a new sheet\.$/);
  });
});
