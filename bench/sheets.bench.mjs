#!/usr/bin/env node
/**
 * 1. Enrichment of a CSV file of --csv-rows rows (default 100,000; 20% duplicates, 5% invalid) against the
 *    sandbox at its 10 requests/s limit: peak resident memory of the enriching process (goal < 300 MiB),
 *    billed queries per unique valid identifier (the sandbox's usage counter), and what a second run bills.
 *    (Speed against the bound is measured end to end by bench/distant.bench.mjs.)
 * 2. Enrichment of a Google sheet (the local Sheets API stand-in, test/support/sheets-standin.ts, with
 *    Google's default quotas: 60 reads and 60 writes per minute per user over a real 60-second window) of
 *    10,000 and 100,000 rows holding one distinct registry code per 50 rows (2,000 in 100,000; sandbox
 *    companies, so every row matches and all output columns are filled), against the sandbox at its 10
 *    requests/s limit: Sheets API reads and writes, requests answered 429 (goal 0), the largest request body
 *    in bytes (goal under Google's recommended 2 MB), and the peak resident memory of the enriching process
 *    (a child of its own, so the figure is the enrich run alone, not the sandbox or the stand-in; goal
 *    < 300 MiB for 100,000 rows); then the same run again on the enriched sheet (nothing to write or bill,
 *    the whole sheet read): its calls and peak memory.
 * 3. `company-data enrich` (the built CLI, dist/) on an XLSX workbook of the largest size: its peak memory
 *    (goal < 300 MiB), and that the saved workbook opens in exceljs with a status in every row.
 * Memory is in MiB (2^20 bytes): maxRSS is reported by the kernel in KiB.
 * Each run is a child process; the parent (sandbox, stand-in) keeps serving while it runs.
 * Run: node bench/sheets.bench.mjs [--csv-rows 10000] [--sizes 10000,100000] [--xlsx-rows 0]
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { buildIfStale } from '../e2e/lib/build.mjs';
import { countCalls } from '../e2e/lib/sheets-standin.mjs';
import { arg, benchSheet, bundleFile, load, realCompanies, report, root } from './support.mjs';

if (process.argv[2] === 'child') {
  const { CompanyDataClient, CsvTable, GoogleSheetTable, enrichTable } = (await import('node:module')).createRequire(import.meta.url)(
    process.argv[3],
  );
  const e = process.env;
  const client = new CompanyDataClient({ baseUrl: e.BENCH_BASE_URL, apiKey: e.BENCH_API_KEY });
  const table = e.BENCH_CSV
    ? new CsvTable(e.BENCH_CSV)
    : new GoogleSheetTable({
        spreadsheetId: e.BENCH_SHEET_ID,
        sheet: 'Leads',
        auth: { accessToken: e.BENCH_TOKEN },
        rootUrl: e.BENCH_ROOT,
      });
  const t0 = performance.now();
  const r = await enrichTable({ table, client, stateDir: e.BENCH_STATE });
  const seconds = (performance.now() - t0) / 1000;
  await client.close();
  process.stdout.write(
    JSON.stringify({
      maxRssMb: process.resourceUsage().maxRSS / 1024,
      seconds,
      rows: r.rows,
      unique: r.uniqueQueries,
      billed: r.billedQueries,
      errors: r.errors,
    }) + '\n',
  );
  process.exit(0);
}

const sizes = String(arg('sizes', '10000,100000')).split(',').filter(Boolean).map(Number);
const csvRows = Number(arg('csv-rows', 100_000));
const BOUND = 1000;
const lib = await load(
  'sheets-parent',
  `export { startSandbox } from './packages/company-data/src/sandbox';
   export { lookupQueryProblem } from './packages/core/validation';
   export { makeRows } from './bench/rows';
   export { lookupKey } from './packages/core/lookup';
   export { startSheetsStandin } from './test/support/sheets-standin';`,
);
const childBundle = await bundleFile(
  'sheets-child',
  `export { CompanyDataClient } from './packages/company-data/src/index';
   export { GoogleSheetTable } from './packages/company-data/src/sheets/google-table';
   export { CsvTable } from './packages/company-data/src/sheets/csv-table';
   export { enrichTable } from './packages/company-data/src/sheets/enrich';`,
);

const sb = await lib.startSandbox({ port: 0, seed: 1, companies: 10_000 });
// Google's default quotas per user, over Google's own one-minute window.
const standin = await lib.startSheetsStandin({ readsPerMinute: 60, writesPerMinute: 60, windowMs: 60_000 });
const dir = mkdtempSync(join(tmpdir(), 'sheets-bench-'));
/** @type {Record<string, object>} */
const figures = {};
/**
 * Runs `node args` with `env` added; resolves with its standard output.
 * @param {string[]} args
 * @param {Record<string, string>} env
 * @returns {Promise<string>}
 */
const runNode = (args, env) =>
  new Promise((resolve, reject) =>
    execFile(process.execPath, args, { env: { ...process.env, ...env }, maxBuffer: 1 << 20 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout),
    ),
  );
/**
 * What one child run reports (its last line).
 * @typedef {{ seconds: number, maxRssMb: number, billed: number, errors: number, unique: number }} ChildFigures
 */
/**
 * @param {Record<string, string>} env
 * @returns {Promise<ChildFigures>}
 */
const child = async (env) =>
  JSON.parse(
    await runNode([new URL(import.meta.url).pathname, 'child', childBundle], { BENCH_BASE_URL: sb.url, BENCH_API_KEY: sb.apiKey, ...env }),
  );
const billed = () => sb.usage(sb.apiKey).billed_lookup_queries;
const pause = () => new Promise((r) => setTimeout(r, 1100));
try {
  const real = realCompanies(sb.dataset);
  if (csvRows > 0) {
    /** @type {string[]} */
    const rows = lib.makeRows(csvRows, real);
    const unique = new Set(rows.filter((r) => !lib.lookupQueryProblem(r)).map((r) => lib.lookupKey(r).key)).size;
    const file = join(dir, 'rows.csv');
    writeFileSync(file, 'registry code,owner\n' + rows.map((r, i) => `"${r}",owner ${i % 50}`).join('\n') + '\n');
    const env = { BENCH_CSV: file, BENCH_STATE: join(dir, 'state-csv') };
    const b0 = billed();
    const first = await child(env);
    await pause();
    const b1 = billed();
    const second = await child(env);
    const b2 = billed();
    const rate = unique / first.seconds;
    console.log(
      `csv ${csvRows} rows: ${first.seconds.toFixed(2)} s, ${rate.toFixed(0)} unique/s (${(rate / BOUND).toFixed(2)} of the bound, on loopback); peak RSS ${first.maxRssMb.toFixed(0)} MiB; billed ${b1 - b0} for ${unique} unique; second run billed ${b2 - b1} in ${second.seconds.toFixed(2)} s`,
    );
    figures.csv = {
      rows: csvRows,
      unique,
      seconds: first.seconds,
      uniquePerSecond: rate,
      ofBound: rate / BOUND,
      billed: b1 - b0,
      billedPerUnique: (b1 - b0) / unique,
      rerunBilled: b2 - b1,
      rerunSeconds: second.seconds,
      maxRssMb: first.maxRssMb,
    };
    await pause();
  }
  for (const n of sizes) {
    const id = `bench-${n}`;
    // A large sheet repeats its companies: one distinct code per 50 rows, every fifth row typed with spaces.
    const { distinct, rows } = benchSheet(n, real);
    standin.create(id, [{ title: 'Leads', rows, rowCount: n + 1, columnCount: 26 }]);
    const before = standin.calls.length;
    const out = await child({
      BENCH_SHEET_ID: id,
      BENCH_TOKEN: standin.accessToken,
      BENCH_ROOT: standin.url,
      BENCH_STATE: join(dir, `state-${n}`),
    });
    const { reads, writes, rateLimited: limited, largestBody } = countCalls(standin.calls.slice(before));
    /** @type {unknown[][]} */
    const values = standin.values(id, 'Leads');
    const status = values[0].indexOf('company_data_status');
    const filled = values.slice(1).filter((r) => String(r[status] ?? '') !== '').length;
    console.log(
      `sheets ${n} rows (${distinct} distinct codes): ${reads} reads, ${writes} writes, ${limited} answered 429, largest request body ${largestBody} bytes, ${out.seconds.toFixed(1)} s, peak RSS ${out.maxRssMb.toFixed(0)} MiB (${(out.maxRssMb / 300).toFixed(2)} of the 300 MiB bound), ${filled}/${n} rows have a status`,
    );
    await pause();
    // Again on the enriched sheet: nothing to write, but the whole sheet (now 11 columns) is read and parsed.
    const beforeRerun = standin.calls.length;
    const rerun = await child({
      BENCH_SHEET_ID: id,
      BENCH_TOKEN: standin.accessToken,
      BENCH_ROOT: standin.url,
      BENCH_STATE: join(dir, `state-${n}`),
    });
    /** @type {{ kind: string }[]} */
    const rerunCalls = standin.calls.slice(beforeRerun);
    const rerunWrites = rerunCalls.filter((c) => c.kind === 'write').length;
    console.log(
      `  again on the enriched sheet: ${rerunCalls.length - rerunWrites} reads, ${rerunWrites} writes, billed ${rerun.billed}, ${rerun.seconds.toFixed(1)} s, peak RSS ${rerun.maxRssMb.toFixed(0)} MiB`,
    );
    await pause();
    figures[n] = {
      rerun: {
        reads: rerunCalls.length - rerunWrites,
        writes: rerunWrites,
        billed: rerun.billed,
        seconds: rerun.seconds,
        maxRssMb: rerun.maxRssMb,
      },
      distinct,
      largestBody,
      reads,
      writes,
      rateLimited: limited,
      seconds: out.seconds,
      maxRssMb: out.maxRssMb,
      rowsWithStatus: filled,
      errors: out.errors,
      billed: out.billed,
      unique: out.unique,
    };
  }
  const xlsxRows = Number(arg('xlsx-rows', Math.max(0, ...sizes)));
  if (xlsxRows > 0) {
    await buildIfStale(root, (m) => console.log(`[build] ${m}`));
    const file = join(dir, 'rows.xlsx');
    const writer = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: file });
    const ws = writer.addWorksheet('Leads');
    ws.addRow(['registry code', 'owner']).commit();
    lib.makeRows(xlsxRows, real).forEach((/** @type {string} */ v, /** @type {number} */ i) => ws.addRow([v, `owner ${i % 50}`]).commit());
    await ws.commit();
    await writer.commit();
    // The real command, as users run it: `company-data enrich rows.xlsx`, with only the RSS hook preloaded.
    const rssFile = join(dir, 'xlsx-rss.json');
    const t0 = performance.now();
    const cli = await runNode(
      [
        '--require',
        new URL('./rss-hook.cjs', import.meta.url).pathname,
        join(root, 'packages', 'company-data', 'dist', 'cli', 'main.js'),
        'enrich',
        file,
        '--state-dir',
        join(dir, 'state-xlsx'),
      ],
      { COMPANY_DATA_BASE_URL: sb.url, COMPANY_DATA_API_KEY: sb.apiKey, BENCH_RSS_FILE: rssFile },
    );
    const out = {
      seconds: (performance.now() - t0) / 1000,
      ...JSON.parse(readFileSync(rssFile, 'utf8')),
      errors: Number(/errors (\d+)/.exec(cli)?.[1] ?? NaN),
    };
    const back = new ExcelJS.Workbook();
    await back.xlsx.readFile(file);
    const sheet = back.getWorksheet('Leads');
    if (!sheet) throw new Error('the enriched workbook has no Leads sheet');
    const status = /** @type {import('exceljs').CellValue[]} */ (sheet.getRow(1).values).indexOf('company_data_status');
    let filled = 0;
    sheet.eachRow((row, i) => void (i > 1 && row.getCell(status).value ? filled++ : 0));
    console.log(
      `xlsx ${xlsxRows} rows: ${out.seconds.toFixed(1)} s, peak RSS ${out.maxRssMb.toFixed(0)} MiB, ${filled}/${xlsxRows} rows have a status when exceljs reads the file back`,
    );
    figures.xlsx = { rows: xlsxRows, seconds: out.seconds, maxRssMb: out.maxRssMb, rowsWithStatus: filled, errors: out.errors };
  }
  report('sheets', figures);
} finally {
  await standin.close();
  await sb.close();
}
