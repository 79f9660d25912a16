/**
 * Excel holds at most 32,767 characters in a cell; a workbook with a longer one opens with "We found a
 * problem with some content". A longer value written to an .xlsx by the tool (enrich, events) is cut
 * with the same visible marker as Google's 50,000-character cap; a CSV keeps it whole.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_XLSX_CELL_CHARS } from '../../../packages/company-data/src/sheets/xlsx/package';
import { XlsxTable } from '../../../packages/company-data/src/sheets/xlsx-table';
import { runCli } from '../../drills/support/cli';
import { tempDirs } from '../../support/temp-dirs';
import { startLookupServer, type LookupServer } from './support/lookup-server';

const tempDir = tempDirs();

let server: LookupServer;
beforeAll(async () => {
  server = await startLookupServer();
});
afterAll(() => server.close());

async function sheetOf(path: string): Promise<string[][]> {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.readFile(path);
  const grid: string[][] = [];
  wb.worksheets[0]!.eachRow((row, n) => {
    grid[n - 1] = (row.values as unknown[]).slice(1).map((v) => (v === undefined || v === null ? '' : String(v)));
  });
  return grid;
}

/** A company name of exactly `n` characters; the lookup server answers a name query with that name. */
const longName = (n: number) => `Firma ${'x'.repeat(n - 6)}`;

describe("Excel's 32,767-character cell limit", () => {
  it('enrich through the command: a 40,000-character answer is cut to the limit with the marker; a CSV keeps it whole', async () => {
    const dir = tempDir('xlsx-limits-');
    const name = longName(40_000);
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('Leads');
    ws.addRow(['company', 'owner']);
    ws.addRow([name, 'Mari']);
    ws.addRow(['Lühike Nimi OÜ', 'Jaan']);
    const xlsx = join(dir, 'leads.xlsx');
    await wb.xlsx.writeFile(xlsx);
    writeFileSync(join(dir, 'leads.csv'), `company,owner\n${name},Mari\nLühike Nimi OÜ,Jaan\n`);
    const env = { COMPANY_DATA_BASE_URL: server.url, COMPANY_DATA_API_KEY: server.apiKey };

    for (const file of ['leads.xlsx', 'leads.csv']) {
      const run = await runCli(
        ['enrich', join(dir, file), '--column', 'company', '--fields', 'name', '--state-dir', join(dir, 'state')],
        env,
      );
      expect(run.stderr + run.stdout).toMatch(/Done\. Key column: company/);
      expect(run.code).toBe(0);
    }

    const grid = await sheetOf(xlsx);
    const col = grid[0]!.indexOf('company_data_match_name');
    expect(col).toBeGreaterThan(1);
    const cell = grid[1]![col]!;
    expect(cell.length).toBeLessThanOrEqual(MAX_XLSX_CELL_CHARS);
    expect(cell.length).toBeGreaterThan(MAX_XLSX_CELL_CHARS - 50);
    expect(cell).toMatch(/^Firma x+ … \[cut: 40,000 characters in all\]$/);
    // Every cell the tool wrote fits (the key cell is the user's, as they typed it); the user's cells
    // and the short answer are as they were.
    expect(grid.flatMap((r) => r.slice(2)).every((v) => v.length <= MAX_XLSX_CELL_CHARS)).toBe(true);
    expect(grid[1]![0]).toBe(name);
    expect(grid.map((r) => r[1])).toEqual(['owner', 'Mari', 'Jaan']);
    expect(grid[2]![col]).toBe('Lühike Nimi OÜ');

    const csv = parse(readFileSync(join(dir, 'leads.csv'), 'utf8')) as string[][];
    expect(csv[1]![csv[0]!.indexOf('company_data_match_name')]).toBe(name);
  });

  it('the table cuts any value over the limit and keeps one of exactly 32,767 whole', async () => {
    const dir = tempDir('xlsx-limits-table-');
    const path = join(dir, 'cells.xlsx');
    const table = new XlsxTable(path, { sheet: 'S' });
    const exact = 'e'.repeat(MAX_XLSX_CELL_CHARS);
    // A surrogate pair at the cut: never split into half a character.
    const emoji = `${'a'.repeat(MAX_XLSX_CELL_CHARS - 40)}${'😀'.repeat(100)}`;
    await table.write([
      { row: 0, col: 0, value: 'a' },
      { row: 0, col: 1, value: 'b' },
      { row: 0, col: 2, value: 'c' },
      { row: 1, col: 0, value: exact },
      { row: 1, col: 1, value: 'y'.repeat(100_000) },
      { row: 1, col: 2, value: emoji },
    ]);
    await table.flush();
    await table.append([['short', 'z'.repeat(32_768), '']]);
    const grid = await sheetOf(path);
    expect(grid[1]![0]).toBe(exact);
    expect(grid[1]![1]).toMatch(/^y+ … \[cut: 100,000 characters in all\]$/);
    expect(grid[1]![1]!.length).toBeLessThanOrEqual(MAX_XLSX_CELL_CHARS);
    expect(grid[1]![2]!.length).toBeLessThanOrEqual(MAX_XLSX_CELL_CHARS);
    expect(grid[1]![2]).toMatch(/^a+(😀)+ … \[cut: 32,927 characters in all\]$/);
    expect(grid[2]![1]).toMatch(/^z+ … \[cut: 32,768 characters in all\]$/);
    expect(table.maxCellChars).toBe(MAX_XLSX_CELL_CHARS);
  });
});
