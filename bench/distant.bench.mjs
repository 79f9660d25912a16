#!/usr/bin/env node
/**
 * `company-data enrich` against a distant service, end to end: the built CLI (packages/company-data/dist) as its own
 * process, timed from spawn to exit, on a CSV of --rows rows (default 20,000: 15,000 unique identifiers, 20%
 * repeats written differently, 5% invalid), against the sandbox in a child process with its latency model:
 * a round trip of --latencies ms (default 0,100,300,1000) plus 0.5 ms service time per query ±50%, rate limit
 * 10 requests/s. Figure: unique billed rows per second divided by the bound, 1,000 unique/s (10 requests/s ×
 * 100 queries); duplicates and invalid rows are not counted, they cost nothing. Billing from the sandbox's
 * usage counter: first run = unique; the same file enriched again with another --out (the README's own
 * example) bills 0 thanks to the answer cache.
 * Run: node bench/distant.bench.mjs [--rows 20000] [--latencies 0,100,300,1000]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildIfStale } from '../e2e/lib/build.mjs';
import { arg, forkSandbox, load, realCompanies, report, root, sleep } from './support.mjs';

const ROWS = Number(arg('rows', 20_000));
const LATENCIES = String(arg('latencies', '0,100,300,1000')).split(',').map(Number);
const BOUND = 1000;

const lib = await load(
  'distant',
  `export { makeRows } from './bench/rows';
   export { lookupQueryProblem } from './packages/core/validation';
   export { lookupKey } from './packages/core/lookup';
   export { buildDataset } from './packages/company-data/src/sandbox/dataset';`,
);
await buildIfStale(root, (m) => console.log(`[build] ${m}`));
const cli = join(root, 'packages', 'company-data', 'dist', 'cli', 'main.js');
const dir = mkdtempSync(join(tmpdir(), 'distant-bench-'));

/**
 * Runs the CLI; resolves with its wall time (spawn to exit), code and output.
 * @param {string[]} args
 * @param {Record<string, string>} env
 * @returns {Promise<{ seconds: number, code: number | null, out: string }>}
 */
function enrich(args, env) {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [cli, 'enrich', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('close', (code) => resolve({ seconds: (performance.now() - t0) / 1000, code, out }));
  });
}

/** @type {string[]} */
const rows = lib.makeRows(ROWS, realCompanies(lib.buildDataset(1, 20_000), 20_000));
const unique = new Set(rows.filter((r) => !lib.lookupQueryProblem(r)).map((r) => lib.lookupKey(r).key)).size;
const file = join(dir, 'rows.csv');
writeFileSync(file, 'registry code,owner\n' + rows.map((r, i) => `"${r}",owner ${i % 50}`).join('\n') + '\n');

const figures = { rows: ROWS, unique, bound: BOUND, runs: /** @type {Record<number, object>} */ ({}) };
// One sandbox for all latencies: PUT /sandbox/latency sets the next one (billing is read as differences).
const sb = await forkSandbox({ port: 0, seed: 1, companies: 20_000 });
try {
  for (const latencyMs of LATENCIES) {
    const set = await fetch(`${sb.url}/sandbox/latency`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ latency_ms: latencyMs, per_query_ms: 0.5, jitter: 0.5 }),
    });
    if (!set.ok) throw new Error(`PUT /sandbox/latency answered ${set.status}`);
    const env = { COMPANY_DATA_BASE_URL: sb.url, COMPANY_DATA_API_KEY: sb.apiKey };
    const state = join(dir, `state-${latencyMs}`);
    const b0 = await sb.billed();
    await sleep(1100);
    const first = await enrich([file, '--out', join(dir, `out-${latencyMs}.csv`), '--state-dir', state], env);
    await sleep(1100);
    const b1 = await sb.billed();
    await sleep(1100);
    const again = await enrich([file, '--out', join(dir, `again-${latencyMs}.csv`), '--state-dir', state], env);
    await sleep(1100);
    const b2 = await sb.billed();
    if (first.code !== 0 || again.code !== 0) throw new Error(`enrich failed at ${latencyMs} ms:\n${first.out}\n${again.out}`);
    const rate = unique / first.seconds;
    const f = {
      latencyMs,
      seconds: first.seconds,
      uniquePerSecond: rate,
      ofBound: rate / BOUND,
      billed: b1 - b0,
      rerunBilled: b2 - b1,
      rerunSeconds: again.seconds,
    };
    figures.runs[latencyMs] = f;
    console.log(
      `latency ${latencyMs} ms: ${ROWS} rows (${unique} unique) in ${f.seconds.toFixed(2)} s from process start to exit: ${rate.toFixed(0)} unique/s = ${f.ofBound.toFixed(3)} of the bound; billed ${f.billed}; again with another --out: billed ${f.rerunBilled} in ${f.rerunSeconds.toFixed(2)} s`,
    );
  }
} finally {
  await sb.close();
}
report('distant', figures);
