/**
 * A person's cell is never written: the tool writes only its own company_data_ columns, beside a
 * sheet's own "Name" (contact persons) and "Status" (sales stage), also with --mode all and --force.
 * And a file changed on disk while enrich runs is never written over: the run says so, and the answers
 * it paid for make the next run free. Real HTTP: the sandbox as the service, the Google stand-in.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { beforeAll, describe, expect, it } from 'vitest';
import { CompanyDataClient } from '../../../packages/company-data/src/index';
import { formatReport } from '../../../packages/company-data/src/cli/commands/enrich';
import { CsvTable } from '../../../packages/company-data/src/sheets/csv-table';
import { enrichTable } from '../../../packages/company-data/src/sheets/enrich';
import { GoogleSheetTable } from '../../../packages/company-data/src/sheets/google-table';
import { XlsxTable } from '../../../packages/company-data/src/sheets/xlsx-table';
import type { Table } from '../../../packages/company-data/src/sheets/table';
import type { SheetsStandin } from '../../support/sheets-standin';
import { useSandboxAndSheets } from './support/sandbox-and-sheets';

const world = useSandboxAndSheets('own-columns-');
let standin: SheetsStandin;
let client: CompanyDataClient;
let dir: string;
let names = new Map<string, string>();
let codes: string[];

beforeAll(async () => {
  ({ standin, client, dir } = world);
  names = await world.companyNames(2, 20);
  codes = [...names.keys()];
});

const billed = () => world.billed();

const people = ['Mari Maasikas', 'Jüri Juurikas', '', 'Kati Karu'];
const stages = ['lead', 'won', 'lost', ''];
const personRows = () => [['Registry code', 'Name', 'Status'], ...codes.slice(0, 4).map((c, i) => [c, people[i]!, stages[i]!])];

/** Both runs, the second with --mode all and --force: Name and Status as typed, the company data in company_data_ columns. */
async function twoRuns(table: () => Table, grid: () => Promise<string[][]>, state: string): Promise<void> {
  const first = await enrichTable({ table: table(), client, fields: ['name', 'status', 'status_label'], stateDir: join(dir, state) });
  expect(first.personColumns).toEqual(['Name', 'Status']);
  expect(formatReport(first)).toContain(
    'Your column(s) "Name", "Status" were left as they are; company data goes to the company_data_ columns.',
  );
  await enrichTable({ table: table(), client, fields: ['name', 'status'], stateDir: join(dir, state), mode: 'all', force: true });
  const g = await grid();
  const h = g[0]!;
  expect(h.slice(0, 3)).toEqual(['Registry code', 'Name', 'Status']);
  const rows = g.slice(1);
  expect(rows.map((r) => r[1] ?? '')).toEqual(people);
  expect(rows.map((r) => r[2] ?? '')).toEqual(stages);
  expect(rows.map((r) => r[h.indexOf('company_data_match_name')])).toEqual(codes.slice(0, 4).map((c) => names.get(c)));
  expect(rows.map((r) => r[h.indexOf('company_data_status')])).toEqual(['matched', 'matched', 'matched', 'matched']);
  // Status is the register's code, as the n8n Lookup writes it; the label has a column of its own.
  expect(rows.every((r) => /^[RLND]$/.test(r[h.indexOf('company_data_match_status')] ?? ''))).toBe(true);
  expect(rows.every((r) => (r[h.indexOf('company_data_match_status_label')] ?? '') !== '')).toBe(true);
}

describe("a sheet's own Name and Status columns", () => {
  it('Google sheet: never written, also by a second run with --mode all and --force', async () => {
    standin.create('people', [{ title: 'Leads', rows: personRows() }]);
    const table = () =>
      new GoogleSheetTable({ spreadsheetId: 'people', sheet: 'Leads', auth: { accessToken: standin.accessToken }, rootUrl: standin.url });
    await twoRuns(table, async () => standin.values('people', 'Leads').map((r) => r.map(String)), 'g');
  }, 60_000);

  it('CSV file: the same', async () => {
    const file = join(dir, 'people.csv');
    writeFileSync(
      file,
      personRows()
        .map((r) => r.join(','))
        .join('\n') + '\n',
    );
    await twoRuns(
      () => new CsvTable(file),
      async () => parse(readFileSync(file, 'utf8')) as string[][],
      'c',
    );
  }, 60_000);

  it('XLSX file: the same', async () => {
    const file = join(dir, 'people.xlsx');
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('Leads');
    for (const r of personRows()) ws.addRow(r);
    await wb.xlsx.writeFile(file);
    await twoRuns(
      () => new XlsxTable(file),
      async () => {
        const t = await new XlsxTable(file).read();
        return [t.header, ...t.rows];
      },
      'x',
    );
  }, 60_000);
});

describe('a file changed on disk while enrich runs', () => {
  for (const kind of ['csv', 'xlsx'] as const)
    it(`${kind.toUpperCase()}: not written over, the run says so, and the next run bills nothing for the answers`, async () => {
      const keys = kind === 'csv' ? codes.slice(4, 12) : codes.slice(12, 20);
      const write = async (path: string, rows: string[][]) => {
        if (kind === 'csv') return writeFileSync(path, rows.map((r) => r.join(',')).join('\n') + '\n');
        const wb = new ExcelJS.Workbook();
        const ws = wb.addWorksheet('Leads');
        for (const r of rows) ws.addRow(r);
        await wb.xlsx.writeFile(path);
      };
      const file = join(dir, `changed.${kind}`);
      const table = () => (kind === 'csv' ? new CsvTable(file) : new XlsxTable(file));
      const rows = [['Registry code', 'Note'], ...keys.map((k) => [k, 'x'])];
      await write(file, rows);
      // The colleague's save: their own row on top. Made beforehand, so it lands at once, while the lookups are answered.
      await write(join(dir, `theirs.${kind}`), [rows[0]!, ['', 'added by a colleague'], ...rows.slice(1)]);
      const theirs = readFileSync(join(dir, `theirs.${kind}`));
      let saved = false;
      const b0 = await billed();
      const state = join(dir, `state-${kind}`);
      await expect(
        enrichTable({
          table: table(),
          client,
          stateDir: state,
          onProgress: () => {
            if (!saved) writeFileSync(file, theirs);
            saved = true;
          },
        }),
      ).rejects.toThrow(/was changed on disk while enrich ran; it was not overwritten \(the answers paid for are kept/);
      expect(saved).toBe(true);
      expect(readFileSync(file).equals(theirs)).toBe(true);
      expect(await billed()).toBe(b0 + keys.length);

      // Run again: every answer comes from what was paid for; the colleague's row stays.
      const again = await enrichTable({ table: table(), client, stateDir: state });
      expect(again.billedQueries).toBe(0);
      expect(await billed()).toBe(b0 + keys.length);
      expect(again.matched).toBe(keys.length);
      const t = await table().read();
      expect(t.rows[0]!.slice(0, 2)).toEqual(['', 'added by a colleague']);
      expect(t.rows.slice(1).map((r) => r[t.header.indexOf('company_data_match_name')])).toEqual(keys.map((k) => names.get(k)));
    }, 60_000);
});
