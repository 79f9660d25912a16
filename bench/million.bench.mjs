#!/usr/bin/env node
/**
 * `company-data enrich` (the built CLI, as users run it) on a CSV of --rows rows (default 1,000,000)
 * holding --distinct registry codes (default 10,000; sandbox companies first, then made-up valid codes),
 * each row's code written as typed or with spaces around it, against the sandbox (its own process) at
 * its 10 requests/s limit. Figures: peak resident memory of the CLI process (goal < 300 MiB: the CSV is
 * streamed, never held whole), seconds, billed queries per distinct code (goal 1.00), rows with a status.
 * --cli <main.js> measures another build (the version before issue 21: /work/main's dist) the same way.
 * Run: node bench/million.bench.mjs [--rows 1000000] [--distinct 10000] [--cli path/to/main.js]
 */
import { execFile } from 'node:child_process';
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse';
import { buildIfStale } from '../e2e/lib/build.mjs';
import { arg, forkSandbox, load, report, root } from './support.mjs';

const rows = Number(arg('rows', 1_000_000));
const distinct = Number(arg('distinct', 10_000));
const lib = await load('million-parent', `export { withRegistryCheckDigit } from './packages/core/validation';`);
let cli = arg('cli', '');
if (!cli) {
  await buildIfStale(root, (m) => console.log(`[build] ${m}`));
  cli = join(root, 'packages', 'company-data', 'dist', 'cli', 'main.js');
}
const sb = await forkSandbox({ port: 0, seed: 1, companies: 2000 });
const dir = mkdtempSync(join(tmpdir(), 'million-bench-'));
try {
  const seen = new Set(sb.codes);
  for (let i = 0; seen.size < distinct; i++) seen.add(lib.withRegistryCheckDigit(String(1_300_000 + i)));
  const codes = [...seen].slice(0, distinct);
  const file = join(dir, 'rows.csv');
  // Written as a stream: the benchmark itself must not hold a million rows either.
  const out = createWriteStream(file);
  out.write('registry code,owner\n');
  for (let i = 0; i < rows; i++) {
    const c = codes[(i * 7919) % distinct];
    if (!out.write(`${i % 5 === 3 ? ` ${c} ` : c},owner ${i % 50}\n`)) await new Promise((r) => out.once('drain', () => r(undefined)));
  }
  await new Promise((r) => out.end(() => r(undefined)));
  const rssFile = join(dir, 'rss.json');
  const billed0 = await sb.billed();
  const t0 = performance.now();
  await new Promise((resolve, reject) =>
    execFile(
      process.execPath,
      ['--require', new URL('./rss-hook.cjs', import.meta.url).pathname, cli, 'enrich', file, '--state-dir', join(dir, 'state')],
      {
        env: { ...process.env, COMPANY_DATA_BASE_URL: sb.url, COMPANY_DATA_API_KEY: sb.apiKey, BENCH_RSS_FILE: rssFile },
        maxBuffer: 1 << 20,
      },
      (e, stdout, stderr) => (e ? reject(new Error(`enrich failed: ${stderr}`)) : resolve(stdout)),
    ),
  );
  const seconds = (performance.now() - t0) / 1000;
  const billed = (await sb.billed()) - billed0;
  let header;
  let withStatus = 0;
  let n = -1;
  // Parsed as CSV (names and addresses hold commas), as a stream.
  for await (const cells of createReadStream(file).pipe(parse({ relax_column_count: true }))) {
    if (n++ < 0) header = cells.indexOf('company_data_status');
    else if (/^(matched|no_match)/.test(cells[header] ?? '')) withStatus++;
  }
  const { maxRssMb } = JSON.parse(readFileSync(rssFile, 'utf8'));
  console.log(
    `csv ${rows} rows, ${distinct} distinct codes: peak RSS ${maxRssMb.toFixed(0)} MiB, ${seconds.toFixed(1)} s, billed ${billed} (${(billed / distinct).toFixed(2)} per distinct code), ${withStatus}/${n} rows matched or no_match`,
  );
  report('million', { rows, distinct, maxRssMb, seconds, billedPerDistinct: billed / distinct, rowsWithStatus: withStatus, cli });
} finally {
  await sb.close();
  rmSync(dir, { recursive: true, force: true });
}
