#!/usr/bin/env node
// An Excel workbook enriched by `company-data enrich` opens in a real spreadsheet program: LibreOffice
// Calc (Debian's libreoffice-calc, installed with apt-get when missing) converts the result to CSV, and
// every cell must be what our own reader sees; the input columns and the other sheet stay as they were.
// Our XLSX writer changes one worksheet's XML in place (packages/company-data/src/sheets/xlsx), so this is the independent
// check that what it writes is a workbook other programs read the same way.
// Usage: node e2e/xlsx-libreoffice.mjs [--keep]. Prints "N passed, N failed"; exits 1 when a check failed.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { buildIfStale } from './lib/build.mjs';
import { assert, assertEqual, checkRun } from './lib/checks.mjs';
import { installDebianPackage, which } from './lib/debian.mjs';

const repoDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const keep = process.argv.includes('--keep');
const { log, check, cleanups, finish } = checkRun();

const soffice = () =>
  which('soffice') ??
  installDebianPackage('libreoffice-calc', {
    what: 'LibreOffice (soffice)',
    found: () => which('soffice'),
    options: ['--no-install-recommends'],
    log: (m) => log(`[libreoffice] ${m}`),
  });

/**
 * Every sheet of `file` as CSV, the way LibreOffice Calc reads it: { sheetName: string[][] }.
 * @param {string} bin
 * @param {string} file
 * @param {string} outDir
 * @param {string} profile
 */
function libreOfficeSheets(bin, file, outDir, profile) {
  fs.mkdirSync(outDir, { recursive: true });
  // Filter options: comma, double quote, UTF-8, from row 1, ..., every sheet to its own file (-1).
  const filter = 'csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,false,false,false,-1';
  execFileSync(
    bin,
    [`-env:UserInstallation=file://${profile}`, '--headless', '--norestore', '--convert-to', filter, '--outdir', outDir, file],
    { stdio: 'ignore', timeout: 180_000 },
  );
  const base = path.basename(file, '.xlsx');
  /** @type {Record<string, string[][]>} */
  const out = {};
  for (const name of fs.readdirSync(outDir)) {
    if (name.startsWith(`${base}-`) && name.endsWith('.csv'))
      out[name.slice(base.length + 1, -4)] = parse(fs.readFileSync(path.join(outDir, name), 'utf8'), { relax_column_count: true });
  }
  return out;
}

/** A grid without trailing empty cells and rows, so two readers' paddings compare equal. */
const trimmed = (/** @type {string[][]} */ grid) => {
  const rows = grid.map((r) => {
    const c = [...r];
    while (c.length && c[c.length - 1] === '') c.pop();
    return c;
  });
  while (rows.length && rows[rows.length - 1].length === 0) rows.pop();
  return rows;
};

/** examples/companies.csv as a workbook a person made in Excel: styled header, a formula, a date, a notes sheet. */
async function leadsWorkbook(/** @type {string} */ file) {
  /** @type {string[][]} */
  const lines = parse(fs.readFileSync(path.join(repoDir, 'examples', 'companies.csv'), 'utf8'));
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('Leads');
  ws.addRow([...lines[0], 'chars', 'added on']);
  lines
    .slice(1)
    .forEach((l, i) => ws.addRow([...l, { formula: `LEN(A${i + 2})`, result: l[0].length }, new Date(Date.UTC(2026, 10, 2 + (i % 20)))]));
  ws.getRow(1).font = { bold: true };
  ws.getColumn(1).width = 28;
  ws.getColumn(5).numFmt = 'yyyy-mm-dd';
  const notes = wb.addWorksheet('Notes');
  notes.addRow(['Leads from the autumn fair', '', 'owner: Kati']);
  notes.mergeCells('A1:B1');
  notes.addRow([0.5, '00123', 'text with "quotes", commas']);
  await wb.xlsx.writeFile(file);
}

async function main() {
  log('XLSX written by `company-data enrich`, read back by LibreOffice Calc');
  await buildIfStale(repoDir, (m) => log(`[build] ${m}`));
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'company-data-xlsx-'));
  cleanups.push(async () => (keep ? log(`[keep] ${work}`) : fs.rmSync(work, { recursive: true, force: true })));
  const profile = path.join(work, 'lo-profile');
  /** @type {string | undefined} */
  let found;
  await check('LibreOffice Calc is there (installed from Debian packages when missing)', async () => {
    const bin = soffice();
    found = bin;
    assert(bin, 'no soffice after installing libreoffice-calc');
    log(`        ${execFileSync(bin, [`-env:UserInstallation=file://${profile}`, '--version'], { encoding: 'utf8' }).trim()}`);
  });
  if (!found) return;
  const bin = found;

  const file = path.join(work, 'leads.xlsx');
  await leadsWorkbook(file);
  const before = libreOfficeSheets(bin, file, path.join(work, 'before'), profile);
  await check('`company-data enrich leads.xlsx` on the embedded sandbox enriches every row', async () => {
    const env = { ...process.env, COMPANY_DATA_BASE_URL: '', COMPANY_DATA_API_KEY: '' };
    const out = execFileSync(
      process.execPath,
      [path.join(repoDir, 'packages', 'company-data', 'dist', 'cli', 'main.js'), 'enrich', file, '--state-dir', path.join(work, 'state')],
      { encoding: 'utf8', env },
    );
    assert(/Rows enriched this run: 27\b/.test(out), `enrich output: ${out}`);
    log(`        ${out.split('\n').find((l) => l.startsWith('Matched'))}`);
  });

  await check(
    'LibreOffice reads every cell of the enriched sheet as our reader does; input columns and the other sheet unchanged',
    async () => {
      const after = libreOfficeSheets(bin, file, path.join(work, 'after'), profile);
      assertEqual(Object.keys(after).sort(), ['Leads', 'Notes'], 'sheets LibreOffice found');
      const { XlsxTable } = createRequire(import.meta.url)(path.join(repoDir, 'packages', 'company-data', 'dist', 'sheets.js'));
      const ours = await new XlsxTable(file, { sheet: 'Leads' }).read();
      const lo = trimmed(after.Leads);
      assertEqual(lo, trimmed([ours.header, ...ours.rows]), 'Leads as LibreOffice reads it vs as our reader does');
      const header = lo[0];
      for (const col of ['company_data_match_name', 'company_data_match_registry_code', 'company_data_status', 'company_data_enriched_at'])
        assert(header.includes(col), `no ${col} column: ${header}`);
      const status = header.indexOf('company_data_status');
      assert(
        lo.slice(1).every((r) => /^(matched|no_match|vat_group|invalid|skipped)/.test(r[status] ?? '')),
        'every row has a status',
      );
      const inputWidth = before.Leads[0].length;
      assertEqual(
        lo.map((r) => r.slice(0, inputWidth)),
        trimmed(before.Leads).map((r) => [...r, ...Array(Math.max(0, inputWidth - r.length)).fill('')].slice(0, inputWidth)),
        'input columns (with the formula results and dates)',
      );
      assertEqual(after.Notes, before.Notes, 'the Notes sheet');
      log(
        `        ${lo.length - 1} rows x ${header.length} columns identical; e.g. ${JSON.stringify(lo[1].slice(inputWidth, inputWidth + 2))}`,
      );
    },
  );
}

await finish(main);
