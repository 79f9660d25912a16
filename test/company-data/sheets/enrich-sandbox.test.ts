/**
 * Enrich over real HTTP: the sandbox (seed 1) for lookups and billing, files on disk and the Google
 * Sheets stand-in for tables.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { buildSync } from 'esbuild';
import ExcelJS from 'exceljs';
import { beforeAll, describe, expect, it } from 'vitest';
import { CompanyDataClient } from '../../../packages/company-data/src/index';
import { CsvTable } from '../../../packages/company-data/src/sheets/csv-table';
import { enrichTable } from '../../../packages/company-data/src/sheets/enrich';
import { GoogleSheetTable } from '../../../packages/company-data/src/sheets/google-table';
import { XlsxTable } from '../../../packages/company-data/src/sheets/xlsx-table';
import type { SheetsStandin } from '../../support/sheets-standin';
import { useSandboxAndSheets, type Sandbox } from './support/sandbox-and-sheets';

const world = useSandboxAndSheets('enrich-sb-');
let sb: Sandbox;
let standin: SheetsStandin;
let client: CompanyDataClient;
let dir: string;
const fx = () => sb.fixtures.companies;

beforeAll(() => {
  ({ sb, standin, client, dir } = world);
});

const billed = () => world.billed();

function keyRows(): string[] {
  const c = fx();
  return [
    c.active!.registry_code,
    ` ${c.active!.registry_code} `,
    c.active!.vat_number!,
    c.vat_group_a!.vat_number!,
    c.vat_ended!.vat_number!,
    'Lõunaranna Tarkvara',
    sb.fixtures.unknown_registry_code,
    c.active!.registry_code.slice(0, 7) + String((Number(c.active!.registry_code[7]) + 1) % 10),
    'ab',
    c.status_deleted!.registry_code,
  ];
}

/** A row's status as one text: the word, and its reason after a colon when there is one. */
const said = (status: unknown, reason: unknown) => (reason ? `${String(status)}: ${String(reason)}` : String(status ?? ''));

const expected = () => [
  ['matched', fx().active!.name],
  ['matched', fx().active!.name],
  ['matched', fx().active!.name],
  ['vat_group: 3 holders', fx().vat_group_a!.name],
  ['matched: last VAT holder', fx().vat_ended!.name],
  ['matched', fx().active!.name],
  ['no_match', ''],
  ['invalid: registry code has a wrong check digit (last digit)', ''],
  ['skipped: needs a word of 3 or more characters', ''],
  ['matched', fx().status_deleted!.name],
];

describe('enrich against the sandbox', () => {
  it('CSV: results, statuses, billing equals distinct queries, re-run bills nothing', async () => {
    const file = join(dir, 'a.csv');
    writeFileSync(
      file,
      'company,phone\n' +
        keyRows()
          .map((k) => `"${k}",+3725550000`)
          .join('\n') +
        '\n',
    );
    const b0 = await billed();
    const r = await enrichTable({ table: new CsvTable(file), client, fields: ['name', 'status', 'vat_number'], stateDir: join(dir, 's1') });
    const b1 = await billed();
    const rows = parse(readFileSync(file, 'utf8')) as string[][];
    const h = rows[0]!;
    expect(
      rows
        .slice(1)
        .map((x) => [
          said(x[h.indexOf('company_data_status')], x[h.indexOf('company_data_reason')]),
          x[h.indexOf('company_data_match_name')],
        ]),
    ).toEqual(expected());
    expect(rows[1]![h.indexOf('phone')]).toBe('+3725550000');
    // active code, active VAT (same company, a different query), group VAT, ended VAT, name, unknown code, deleted code.
    expect(r.uniqueQueries).toBe(7);
    expect(b1 - b0).toBe(7);
    expect(r.billedQueries).toBe(7);
    await enrichTable({ table: new CsvTable(file), client, stateDir: join(dir, 's1') });
    expect(await billed()).toBe(b1);
  });

  it('XLSX: writes text cells, keeps leading zeros and formulas of other cells', async () => {
    const file = join(dir, 'a.xlsx');
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('Leads');
    ws.addRow(['Registry code', 'code copy', 'sum']);
    ws.addRow([fx().active!.registry_code, '00123', { formula: '1+1', result: 2 }]);
    ws.addRow([Number(fx().large_as!.registry_code), '=1+1', 5]);
    await wb.xlsx.writeFile(file);
    await enrichTable({ table: new XlsxTable(file), client, fields: ['name', 'registered_on'], stateDir: join(dir, 's2') });
    const back = new ExcelJS.Workbook();
    await back.xlsx.readFile(file);
    const s = back.getWorksheet('Leads')!;
    expect(s.getRow(1).values).toEqual([
      undefined,
      'Registry code',
      'code copy',
      'sum',
      'company_data_status',
      'company_data_query',
      'company_data_reason',
      'company_data_match_name',
      'company_data_match_registered_on',
      'company_data_enriched_at',
    ]);
    expect(s.getCell('G2').value).toBe(fx().active!.name);
    expect(s.getCell('G3').value).toBe(fx().large_as!.name);
    expect(s.getCell('B2').value).toBe('00123');
    expect(s.getCell('B3').value).toBe('=1+1');
    expect(s.getCell('C2').value).toEqual({ formula: '1+1', result: 2 });
    expect(typeof s.getCell('H2').value).toBe('string');
  });

  it('Google Sheets: RAW writes, one read and a re-read before and after the write, one batched write, grid grown', async () => {
    standin.create('leads', [
      { title: 'Leads', rows: [['company', 'phone'], ...keyRows().map((k) => [k, '+3725550000'])], rowCount: 11, columnCount: 3 },
    ]);
    const table = new GoogleSheetTable({
      spreadsheetId: 'leads',
      sheet: 'Leads',
      auth: { accessToken: standin.accessToken },
      rootUrl: standin.url,
    });
    const before = standin.calls.length;
    await enrichTable({ table, client, fields: ['name', 'registry_code'], stateDir: join(dir, 's3') });
    const calls = standin.calls.slice(before);
    // The checks before paying (metadata, then a write that changes nothing: the probe of write access);
    // the save re-reads header and key (and our columns) first and checks them after: each one values.batchGet.
    // Around it all, the sheet's lease: made first, deleted last (each one spreadsheets.batchUpdate).
    expect(calls.map((c) => c.method)).toEqual([
      'spreadsheets.batchUpdate',
      'values.get',
      'spreadsheets.get',
      'values.update',
      'values.batchGet',
      'spreadsheets.batchUpdate',
      'values.batchUpdate',
      'values.batchGet',
      'spreadsheets.batchUpdate',
    ]);
    expect(calls[3]!.valueInputOption).toBe('RAW');
    expect(calls[6]!.valueInputOption).toBe('RAW');
    const v = standin.values('leads', 'Leads');
    expect(v[0]).toEqual([
      'company',
      'phone',
      'company_data_status',
      'company_data_query',
      'company_data_reason',
      'company_data_match_name',
      'company_data_match_registry_code',
      'company_data_enriched_at',
    ]);
    expect(v.slice(1).map((r) => [said(r[2], r[4]), r[5] ?? ''])).toEqual(expected());
    expect(v[1]![6]).toBe(fx().active!.registry_code);
    expect(typeof v[1]![6]).toBe('string');
    expect(v[1]![1]).toBe('+3725550000');
  });

  it('dry run and --max-billed-queries against the sandbox usage', async () => {
    const file = join(dir, 'b.csv');
    const codes = Object.values(fx()).map((c) => c.registry_code);
    writeFileSync(file, 'registry code\n' + [...codes, ...codes.slice(0, 5)].join('\n') + '\n');
    const b0 = await billed();
    const dry = await enrichTable({ table: new CsvTable(file), client, dryRun: true, stateDir: join(dir, 's4') });
    expect(dry).toMatchObject({
      rows: codes.length + 5,
      uniqueQueries: new Set(codes).size,
      requests: 1,
      billedQueries: new Set(codes).size,
    });
    expect(await billed()).toBe(b0);
    const before = readFileSync(file, 'utf8');
    // Above the cap: refused before anything is sent, naming what it would bill; the file is untouched.
    await expect(enrichTable({ table: new CsvTable(file), client, maxBilledQueries: 10, stateDir: join(dir, 's4') })).rejects.toThrow(
      new RegExp(`^maxBilledQueries: is 10, but this run would bill ${new Set(codes).size} unique queries`),
    );
    expect(await billed()).toBe(b0);
    expect(readFileSync(file, 'utf8')).toBe(before);
    const atCap = await enrichTable({
      table: new CsvTable(file),
      client,
      maxBilledQueries: new Set(codes).size,
      stateDir: join(dir, 's4'),
    });
    expect(atCap.billedQueries).toBe(new Set(codes).size);
    expect(await billed()).toBe(b0 + new Set(codes).size);
  });
});

describe('resume after a killed run', () => {
  it('a process killed mid-run (SIGKILL) is resumed without paying twice', async () => {
    const bundle = join(dir, 'child.cjs');
    buildSync({
      entryPoints: [join(__dirname, 'support/enrich-child.ts')],
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      outfile: bundle,
      logLevel: 'error',
    });
    const file = join(dir, 'kill.csv');
    const stateDir = join(dir, 'kill-state');
    const n = 2500;
    const codes = Array.from({ length: n }, (_, i) => String(i));
    // Distinct names: each is a billed query; the sandbox answers no_match or a match, both billed.
    writeFileSync(file, 'company\n' + codes.map((i) => `Firm number ${i}`).join('\n') + '\n');
    const b0 = await billed();
    const child = spawn(process.execPath, [bundle], {
      env: { ...process.env, CHILD_BASE_URL: sb.url, CHILD_API_KEY: sb.apiKey, CHILD_FILE: file, CHILD_STATE: stateDir },
      stdio: 'ignore',
    });
    // Kill once some answers are journalled (after a few requests), before the run can finish.
    await new Promise<void>((resolve, reject) => {
      const t = setInterval(() => {
        const j = existsSync(stateDir) ? readdirSync(stateDir).find((f) => f.startsWith('enrich-')) : undefined;
        const lines = j ? readFileSync(join(stateDir, j), 'utf8').split('\n').length : 0;
        if (lines > 450) {
          clearInterval(t);
          child.kill('SIGKILL');
          resolve();
        }
      }, 20);
      child.once('exit', () => (clearInterval(t), reject(new Error('child finished before it was killed'))));
    });
    await new Promise((r) => child.once('exit', r));
    const paidByChild = (await billed()) - b0;
    expect(paidByChild).toBeGreaterThanOrEqual(400);
    expect(paidByChild).toBeLessThan(n);

    const r = await enrichTable({ table: new CsvTable(file), client, stateDir });
    const total = (await billed()) - b0;
    // Answers the child received are reused from its journal; only the requests in flight at the kill
    // (billed by the service, answers never seen; at most one burst of 10) are paid again.
    expect(r.fromJournal).toBeGreaterThanOrEqual(400);
    expect(r.billedQueries).toBe(n - r.fromJournal);
    expect(total).toBeGreaterThanOrEqual(n);
    expect(total - n).toBeLessThanOrEqual(1000);
    const rows = parse(readFileSync(file, 'utf8')) as string[][];
    const st = rows[0]!.indexOf('company_data_status');
    expect(rows.slice(1).filter((x) => !/^(matched|no_match)/.test(x[st] ?? ''))).toEqual([]);
  });
});
