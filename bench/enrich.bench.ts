/**
 * Enrichment benchmark: `npx vite-node bench/enrich.bench.ts` (ROWS=10000 RSS_ROWS=100000 by default).
 *
 * Against the sandbox at its 10 requests/s limit, with rows that are 20% duplicates (also written
 * differently: spaces, lower-case "ee") and 5% invalid (wrong check digits):
 * - unique billed queries/s as a fraction of the 1,000/s bound (10 requests/s x 100 queries; goal >= 0.9):
 *   duplicates and invalid rows cost nothing and are not counted (all rows/s is shown, not graded);
 * - billed queries / unique identifiers (goal 1.00), from the sandbox's usage counter;
 * - Sheets API calls for the same rows in a Google sheet (stand-in; goal <= 1 read + 3 writes);
 * - billed queries of a second run (goal 0);
 * - peak RSS of a separate process enriching RSS_ROWS rows from CSV (goal < 300 MiB).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import { CompanyDataClient } from '../packages/company-data/src/index';
import { CsvTable } from '../packages/company-data/src/sheets/csv-table';
import { enrichTable, type EnrichReport } from '../packages/company-data/src/sheets/enrich';
import { GoogleSheetTable } from '../packages/company-data/src/sheets/google-table';
import { startSheetsStandin } from '../test/support/sheets-standin';
import { makeRows } from './rows';

const ROWS = Number(process.env.ROWS ?? 10_000);
const RSS_ROWS = Number(process.env.RSS_ROWS ?? 100_000);
const BOUND = 1000;

interface Sandbox {
  url: string;
  apiKey: string;
  close(): Promise<void>;
}

async function billed(client: CompanyDataClient): Promise<number> {
  const u = await client.reference.usage();
  return (u.data as { billed_lookup_queries?: number }).billed_lookup_queries ?? 0;
}

function csv(rows: string[]): string {
  return 'registry code,owner\n' + rows.map((r, i) => `"${r}",owner ${i % 50}`).join('\n') + '\n';
}

async function main() {
  const mod = (await import('../packages/company-data/src/sandbox' as string)) as { startSandbox(o: object): Promise<Sandbox> };
  const sb = await mod.startSandbox({ port: 0, seed: 1, companies: 10_000 });
  const dir = mkdtempSync(join(tmpdir(), 'enrich-bench-'));
  const out: Record<string, string | number> = {};
  try {
    const lister = new CompanyDataClient({ baseUrl: sb.url, apiKey: sb.apiKey });
    const real: { code: string; vat: string | null }[] = [];
    for await (const c of lister.iterate(lister.ops.companies.search, { limit: 100 }, { maxItems: 5000 })) {
      const s = c as { registry_code: string; vat_number: string | null };
      real.push({ code: s.registry_code, vat: s.vat_number });
    }
    await lister.close();
    process.stderr.write(`listed ${real.length} sandbox companies\n`);
    await new Promise((r) => setTimeout(r, 1100));

    const rows = makeRows(ROWS, real);
    const file = join(dir, 'rows.csv');
    writeFileSync(file, csv(rows));

    const run = async (table: CsvTable | GoogleSheetTable, stateDir: string) => {
      const client = new CompanyDataClient({ baseUrl: sb.url, apiKey: sb.apiKey });
      const before = await billed(client);
      await new Promise((r) => setTimeout(r, 1100));
      const t0 = performance.now();
      const report = await enrichTable({ table, client, stateDir });
      const seconds = (performance.now() - t0) / 1000;
      const after = await billed(client);
      await client.close();
      return { report, seconds, billed: after - before };
    };

    // CSV, first run and re-run.
    process.stderr.write('CSV run...\n');
    const first = await run(new CsvTable(file), join(dir, 'state-csv'));
    const again = await run(new CsvTable(file), join(dir, 'state-csv'));
    const r: EnrichReport = first.report;
    out['rows'] = ROWS;
    out['unique identifiers'] = r.uniqueQueries;
    out['invalid rows (never sent)'] = r.invalid;
    out['lookup requests'] = r.requests;
    out['seconds (CSV)'] = first.seconds.toFixed(2);
    out['rows/s'] = (ROWS / first.seconds).toFixed(0);
    out['unique/s / 1000 bound (goal >= 0.9)'] = (r.uniqueQueries / first.seconds / BOUND).toFixed(2);
    out['billed / unique (goal 1.00)'] = (first.billed / r.uniqueQueries).toFixed(2);
    out['re-run billed queries (goal 0)'] = again.billed;
    out['re-run seconds'] = again.seconds.toFixed(2);

    // Google Sheets (stand-in) with the same rows.
    process.stderr.write('Google Sheets run...\n');
    const standin = await startSheetsStandin();
    try {
      standin.create('bench', [
        {
          title: 'Leads',
          rows: [['registry code', 'owner'], ...rows.map((v, i) => [v, `owner ${i % 50}`])],
          rowCount: ROWS + 1,
          columnCount: 26,
        },
      ]);
      const table = new GoogleSheetTable({
        spreadsheetId: 'bench',
        sheet: 'Leads',
        auth: { accessToken: standin.accessToken },
        rootUrl: standin.url,
      });
      const g = await run(table, join(dir, 'state-gs'));
      out['seconds (Google Sheets)'] = g.seconds.toFixed(2);
      out['Sheets API reads (goal <= 1)'] = standin.count('read', false);
      out['Sheets API writes (goal <= 3)'] = standin.count('write', false);
      out['Sheets calls answered 429'] = standin.calls.filter((c) => c.status === 429).length;
      out['Sheets billed / unique'] = (g.billed / g.report.uniqueQueries).toFixed(2);
    } finally {
      await standin.close();
    }

    // Peak memory of a separate process for RSS_ROWS rows.
    process.stderr.write(`peak memory run, ${RSS_ROWS} rows...\n`);
    const big = join(dir, 'big.csv');
    writeFileSync(big, csv(makeRows(RSS_ROWS, real)));
    const bundle = join(dir, 'enrich-rss.cjs');
    buildSync({
      entryPoints: [join(__dirname, 'enrich-rss.ts')],
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      outfile: bundle,
      logLevel: 'error',
    });
    await new Promise((r) => setTimeout(r, 1100));
    // Asynchronously: the sandbox answering the child runs in this process.
    const { stdout } = await promisify(execFile)(process.execPath, [bundle], {
      env: { ...process.env, BENCH_FILE: big, BENCH_STATE: join(dir, 'state-big'), BENCH_BASE_URL: sb.url, BENCH_API_KEY: sb.apiKey },
      encoding: 'utf8',
      maxBuffer: 1 << 20,
    });
    const child = JSON.parse(stdout) as { maxRssMb: number; seconds: number; rows: number; billed: number; unique: number };
    out[`peak RSS MiB, ${RSS_ROWS} rows (goal < 300)`] = child.maxRssMb.toFixed(0);
    out[`rows/s, ${RSS_ROWS} rows`] = (child.rows / child.seconds).toFixed(0);
  } finally {
    await sb.close();
  }
  const width = Math.max(...Object.keys(out).map((k) => k.length));
  for (const [k, v] of Object.entries(out)) process.stdout.write(`${k.padEnd(width)}  ${v}\n`);
}

main().catch((e) => {
  process.stderr.write(String((e as Error).stack ?? e) + '\n');
  process.exit(1);
});
