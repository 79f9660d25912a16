/**
 * Child process of bench/enrich.bench.ts: enriches a CSV of ROWS rows against BASE_URL and prints
 * its peak resident memory, so the figure is this run alone (no sandbox, no bench harness).
 * Bundled with esbuild and run under plain node.
 */
import { CompanyDataClient } from '../packages/company-data/src/index';
import { CsvTable } from '../packages/company-data/src/sheets/csv-table';
import { enrichTable } from '../packages/company-data/src/sheets/enrich';

async function main() {
  const [file, stateDir] = [process.env.BENCH_FILE!, process.env.BENCH_STATE!];
  // BENCH_NO_LIMIT=1 (with a sandbox without limit) measures memory quickly; the bench itself keeps the limit.
  const client = new CompanyDataClient({
    baseUrl: process.env.BENCH_BASE_URL!,
    apiKey: process.env.BENCH_API_KEY!,
    ...(process.env.BENCH_NO_LIMIT ? { rateLimit: false as const } : {}),
  });
  const t0 = performance.now();
  const table = new CsvTable(file);
  const report = await enrichTable({ table, client, stateDir });
  const seconds = (performance.now() - t0) / 1000;
  await client.close();
  if (process.env.BENCH_HEAP) (globalThis as { gc?: () => void }).gc?.();
  if (process.env.BENCH_HEAP)
    process.stderr.write(JSON.stringify({ ...process.memoryUsage(), rows: (await table.read()).rows.length }) + '\n');
  process.stdout.write(
    JSON.stringify({
      maxRssMb: process.resourceUsage().maxRSS / 1024,
      seconds,
      rows: report.rows,
      billed: report.billedQueries,
      unique: report.uniqueQueries,
    }) + '\n',
  );
}

main().catch((e) => {
  process.stderr.write(String((e as Error).stack ?? e) + '\n');
  process.exit(1);
});
