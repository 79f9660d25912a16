/**
 * Writes follow the row, not the index: a colleague inserts, deletes, sorts or edits keys in a shared
 * Google sheet while enrich runs (the stand-in over real HTTP, the sandbox as the service). Each act is
 * timed twice: before the save's re-read (the save must find the rows where they went), and between the
 * re-read and the write (the write lands on moved rows; the check after it must put that right). At the
 * end every row's tool columns belong to its own key, or are empty and counted as left alone.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CompanyDataClient } from '../../../packages/company-data/src/index';
import { formatReport } from '../../../packages/company-data/src/cli/commands/enrich';
import { enrichTable, type EnrichReport } from '../../../packages/company-data/src/sheets/enrich';
import { GoogleSheetTable } from '../../../packages/company-data/src/sheets/google-table';
import { sameQuery } from '@company-data/core/lookup';
import type { SheetsStandin } from '../../support/sheets-standin';
import { useSandboxAndSheets } from './support/sandbox-and-sheets';
import { Colleague, type RequestName } from '../../support/sheets-standin-colleague';

// Not a quota test: a file of many short runs would pass Google's 60 reads a minute of one account.
const world = useSandboxAndSheets('row-follow-', { readsPerMinute: 600, writesPerMinute: 600 });
let standin: SheetsStandin;
let client: CompanyDataClient;
let dir: string;
/** Registry code → company name, read the plain way (GET /companies), not through the code under test. */
let names = new Map<string, string>();
let codes: string[];

beforeAll(async () => {
  ({ standin, client, dir } = world);
  names = await world.companyNames(1, 40);
  codes = [...names.keys()];
});

const billed = () => world.billed();

let sheets = 0;
function sheet(keys: string[]): { id: string; table: () => GoogleSheetTable; colleague: Colleague } {
  const id = `follow-${++sheets}`;
  standin.create(id, [{ title: 'Leads', rows: [['Registry code', 'Note'], ...keys.map((k, i) => [k, `typed ${i + 1}`])] }]);
  return {
    id,
    table: () =>
      new GoogleSheetTable({ spreadsheetId: id, sheet: 'Leads', auth: { accessToken: standin.accessToken }, rootUrl: standin.url }),
    colleague: new Colleague(standin, id, 'Leads'),
  };
}

const run = (table: GoogleSheetTable, state: string, extra: Partial<Parameters<typeof enrichTable>[0]> = {}) =>
  enrichTable({ table, client, fields: ['name', 'registry_code'], stateDir: join(dir, state), ...extra });

/**
 * Every row's tool columns are its own key's company, or all empty (left alone); returns the rows left
 * empty. Also: the person's Note column stayed with its row's key.
 */
function checkRows(id: string, notes: Map<string, string>): { empty: string[]; enriched: number } {
  const v = standin.values(id, 'Leads').map((r) => r.map(String));
  const h = v[0]!;
  const at = (name: string) => h.indexOf(name);
  expect(at('company_data_status')).toBeGreaterThan(1);
  const empty: string[] = [];
  let enriched = 0;
  for (const row of v.slice(1)) {
    const key = row[0] ?? '';
    const cell = (name: string) => row[at(name)] ?? '';
    const tool = [
      'company_data_status',
      'company_data_query',
      'company_data_reason',
      'company_data_match_name',
      'company_data_match_registry_code',
      'company_data_enriched_at',
    ].map(cell);
    if (key === '') {
      expect(tool.join('')).toBe('');
      continue;
    }
    if (notes.has(key)) expect(row[1]).toBe(notes.get(key));
    if (cell('company_data_query') === '') {
      expect(tool.join(''), `row of ${key}`).toBe('');
      empty.push(key);
      continue;
    }
    expect(sameQuery(cell('company_data_query'), key), `row of ${key}`).toBe(true);
    expect(cell('company_data_status')).toBe('matched');
    expect(cell('company_data_match_registry_code')).toBe(key);
    expect(cell('company_data_match_name')).toBe(names.get(key));
    enriched++;
  }
  return { empty, enriched };
}

const acts: { name: string; act: (c: Colleague, keys: string[]) => void; leftAlone: (keys: string[]) => string[] }[] = [
  { name: 'inserts a row at the top', act: (c) => c.insertRow(2, [codes[30]!, 'new lead']), leftAlone: () => [codes[30]!] },
  { name: 'deletes a row', act: (c) => c.deleteRow(5), leftAlone: () => [] },
  { name: 'sorts the rows by the key, descending', act: (c) => c.sortBy(0, 'desc'), leftAlone: () => [] },
  { name: 'edits a key to another company', act: (c) => c.edit('A7', codes[31]!), leftAlone: () => [codes[31]!] },
];
const timings: { name: string; before: RequestName }[] = [
  { name: 'before the save re-reads the keys', before: 'values.batchGet' },
  { name: 'between the re-read and the write', before: 'values.batchUpdate' },
];

describe('a colleague edits the sheet while enrich runs', () => {
  for (const t of timings)
    for (const a of acts)
      it(`${a.name}, ${t.name}: every row keeps its own company; the changed rows are left alone and counted`, async () => {
        const keys = codes.slice(0, 12);
        const s = sheet(keys);
        const notes = new Map(keys.map((k, i) => [k, `typed ${i + 1}`]));
        notes.set(codes[30]!, 'new lead');
        s.colleague.before(t.before, (c) => a.act(c, keys));
        const b0 = await billed();
        const report = await run(s.table(), `s-${t.before}-${a.name}`);
        expect(s.colleague.done).toHaveLength(1);
        expect(await billed()).toBe(b0 + 12);
        const { empty } = checkRows(s.id, notes);
        expect(empty).toEqual(a.leftAlone(keys));
        expect(report.leftAlone).toBe(empty.length);
        if (empty.length)
          expect(formatReport(report)).toContain(
            `${empty.length} row(s) changed by someone else during the run were left alone; run again to enrich them.`,
          );
        // The next run enriches what was left alone, paying only for that.
        const again = await run(s.table(), `s-${t.before}-${a.name}`);
        expect(again.leftAlone).toBe(0);
        expect(await billed()).toBe(b0 + 12 + empty.length);
        expect(checkRows(s.id, notes).empty).toEqual([]);
      }, 60_000);

  it('rows enriched by an earlier run that a sort moves under the write get their own cells back, free', async () => {
    const old = codes.slice(0, 10);
    const s = sheet(old);
    await run(s.table(), 'restore');
    // Six new leads at the bottom; the colleague sorts while the second run writes them.
    for (const [i, k] of codes.slice(10, 16).entries()) s.colleague.insertRow(12 + i, [k, `added ${i}`]);
    s.colleague.before('values.batchUpdate', (c) => c.sortBy(0, 'desc'));
    const b0 = await billed();
    const report = await run(s.table(), 'restore', { maxAgeDays: 0 });
    expect(s.colleague.done.at(-1)).toBe('sort by column 1 desc');
    expect(await billed()).toBe(b0 + 6);
    expect(report.leftAlone).toBe(0);
    const { empty, enriched } = checkRows(s.id, new Map());
    expect(empty).toEqual([]);
    expect(enriched).toBe(16);
  }, 60_000);

  it('a save reads at most twice (the re-read and the check after the write), each one request', async () => {
    const s = sheet(codes.slice(0, 8));
    const before = standin.calls.length;
    const report: EnrichReport = await run(s.table(), 'reads');
    const calls = standin.calls.slice(before).map((c) => c.method);
    expect(report.matched).toBe(8);
    expect(calls.filter((m) => m === 'values.batchUpdate')).toHaveLength(1);
    expect(calls.filter((m) => m === 'values.batchGet')).toHaveLength(2);
    expect(calls.filter((m) => m === 'values.get')).toHaveLength(1);
  }, 60_000);
});
