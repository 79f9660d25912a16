/**
 * Child process of bench/enrich.bench.ts: enriches a CSV of ROWS rows against BASE_URL and prints
 * its peak resident memory, so the figure is this run alone (no sandbox, no bench harness).
 * Bundled with esbuild and run under plain node.
 */
import { CompanyDataClient } from '../src/index';
import { CsvTable } from '../src/sheets/csv-table';
import { enrichTable } from '../src/sheets/enrich';

async function main() {
  const [file, stateDir] = [process.env.BENCH_FILE!, process.env.BENCH_STATE!];
  const client = new CompanyDataClient({ baseUrl: process.env.BENCH_BASE_URL!, apiKey: process.env.BENCH_API_KEY! });
  const t0 = performance.now();
  const report = await enrichTable({ table: new CsvTable(file), client, stateDir });
  const seconds = (performance.now() - t0) / 1000;
  await client.close();
  process.stdout.write(JSON.stringify({ maxRssMb: process.resourceUsage().maxRSS / 1024, seconds, rows: report.rows, billed: report.billedQueries, unique: report.uniqueQueries }) + '\n');
}

main().catch((e) => {
  process.stderr.write(String((e as Error).stack ?? e) + '\n');
  process.exit(1);
});
