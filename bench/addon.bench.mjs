#!/usr/bin/env node
/**
 * The Google Sheets add-on (packages/sheets-addon/dist, built here) on the Apps Script stand-in
 * (test/support/apps-script) against the sandbox, each UrlFetchApp request costing --latency-ms (default
 * 300) of virtual time: a sheet of --rows rows (default 10,000; the lookup benchmarks' mix: 75% distinct
 * identifiers, 20% repeats written differently, 5% invalid) enriched by enrichSheet and its continuations
 * (time-driven triggers) until done. Figures:
 *  - requests the add-on made against `company-data enrich`'s (the CLI's library, enrichTable over a CSV of
 *    the same rows) on a second sandbox over the same dataset (goal: no more than the CLI's);
 *  - executions needed (the first run plus its continuations);
 *  - unique rows per second of virtual time as a ratio of the service's bound (10 requests/s × 100
 *    queries = 1000/s): over the executions' own time, and over the clock from the press of the button to
 *    the last continuation's end (the waits between continuations included);
 *  - billed queries against the unique ones (goal: equal).
 * The sandbox of the add-on counts its rate limit on the stand-in's virtual clock, as a real service would
 * see the add-on's requests; the CLI's sandbox on real time.
 * Run: node bench/addon.bench.mjs [--rows 10000] [--latency-ms 300]
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { arg, realCompanies, report, root } from './support.mjs';

const rows = Number(arg('rows', 10_000));
const latencyMs = Number(arg('latency-ms', 300));
const BOUND = 10 * 100;
process.chdir(root);

/**
 * Bundles the TypeScript this benchmark needs; esbuild stays external (the stand-in bundles its worker with it at run time).
 * @returns {Promise<any>} the bundle's exports (any: bundled TypeScript, not type-checked from here)
 */
async function loadLib() {
  const { build } = await import('esbuild');
  const dir = join(root, 'node_modules/.cache/company-data-bench');
  mkdirSync(dir, { recursive: true });
  const outfile = join(dir, 'addon-bench.cjs');
  await build({
    stdin: {
      contents: `export { startSandbox } from './packages/company-data/src/sandbox';
        export { createAppsScriptWorld } from './test/support/apps-script';
        export { makeRows } from './bench/rows';
        export { lookupQueryProblem } from './packages/core/validation';
        export { lookupKey } from './packages/core/lookup';
        export { CompanyDataClient } from './packages/company-data/src/index';
        export { CsvTable } from './packages/company-data/src/sheets/csv-table';
        export { enrichTable } from './packages/company-data/src/sheets/enrich';`,
      resolveDir: root,
      loader: 'ts',
      sourcefile: 'addon-bench.ts',
    },
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    outfile,
    external: ['n8n-workflow', 'esbuild'],
    logLevel: 'error',
  });
  return createRequire(import.meta.url)(outfile);
}

execFileSync(process.execPath, [join(root, 'packages/sheets-addon/build.mjs')], { stdio: 'inherit' });
const dist = join(root, 'packages/sheets-addon/dist');
const files = readdirSync(dist).map((f) => join(dist, f));
const lib = await loadLib();

const addonKey = `sk_api_${'a'.repeat(40)}`;
const cliKey = `sk_api_${'c'.repeat(40)}`;
/** @type {{ now(): number } | undefined} */
let clock;
const sbAddon = await lib.startSandbox({
  port: 0,
  seed: 1,
  companies: 10_000,
  keys: [{ key: addonKey, plan: 'api' }],
  rateLimitNow: () => clock?.now() ?? Date.now(),
});
const sbCli = await lib.startSandbox({ port: 0, dataset: sbAddon.dataset, keys: [{ key: cliKey, plan: 'api' }] });
const dir = mkdtempSync(join(tmpdir(), 'addon-bench-'));

try {
  /** @type {string[]} */
  const codes = lib.makeRows(rows, realCompanies(sbAddon.dataset));
  const unique = new Set(codes.filter((r) => !lib.lookupQueryProblem(r)).map((r) => lib.lookupKey(r).key)).size;

  // The CLI's way: enrichTable over a CSV of the same rows (what `company-data enrich rows.csv` runs).
  const csv = join(dir, 'rows.csv');
  writeFileSync(csv, 'registry code,owner\n' + codes.map((r, i) => `"${r}",owner ${i % 50}`).join('\n') + '\n');
  const client = new lib.CompanyDataClient({ baseUrl: sbCli.url, apiKey: cliKey });
  await lib.enrichTable({ table: new lib.CsvTable(csv), client, stateDir: join(dir, 'state') });
  await client.close();
  const cli = sbCli.usage(cliKey);

  // The add-on's way: the same rows typed into a sheet, enrichSheet, then each continuation the trigger runs.
  const world = lib.createAppsScriptWorld({ files, fetchLatencyMs: latencyMs });
  clock = world.clock;
  const saved = await world.run('saveSettings', [{ apiKey: addonKey, baseUrl: sbAddon.url }]);
  if (!saved.ok) throw new Error(`saveSettings: ${saved.error}`);
  const before = sbAddon.usage(addonKey);
  world.spreadsheet.addSheet('Leads', [['registry code', 'owner'], ...codes.map((c, i) => [c, `owner ${i % 50}`])]);
  const t0 = world.clock.now();
  let r = await world.run('enrichSheet', [{ sheetName: 'Leads' }]);
  const results = [r];
  while (r?.ok && /** @type {{ status?: string }} */ (r.value)?.status === 'continuing' && results.length < 100) {
    r = await world.runNextTrigger();
    if (r) results.push(r);
  }
  const elapsedMs = world.clock.now() - t0;
  await world.close();
  const last = results[results.length - 1];
  if (!last?.ok) throw new Error(`the add-on's run failed: ${last?.error}`);
  const after = sbAddon.usage(addonKey);
  const fetches = results.reduce((n, x) => n + x.fetches, 0);
  const execMs = results.reduce((n, x) => n + x.virtualMs, 0);
  const perExecSecond = unique / (execMs / 1000);
  const perClockSecond = unique / (elapsedMs / 1000);
  const figures = {
    rows,
    unique,
    latencyMs,
    addonRequests: after.requests - before.requests,
    addonFetches: fetches,
    cliRequests: cli.requests,
    requestsVsCli: (after.requests - before.requests) / cli.requests,
    executions: results.length,
    executionSeconds: execMs / 1000,
    clockSeconds: elapsedMs / 1000,
    uniquePerExecutionSecond: perExecSecond,
    ofBound: perExecSecond / BOUND,
    uniquePerClockSecond: perClockSecond,
    ofBoundClock: perClockSecond / BOUND,
    billed: after.billed_lookup_queries - before.billed_lookup_queries,
    cliBilled: cli.billed_lookup_queries,
    status: /** @type {{ status?: string }} */ (last.value)?.status,
  };
  console.log(
    `add-on, ${rows} rows (${unique} unique) at ${latencyMs} ms a request: ${figures.addonRequests} requests (CLI: ${cli.requests}, ratio ${figures.requestsVsCli.toFixed(2)}), ` +
      `${results.length} execution(s), ${figures.executionSeconds.toFixed(1)} s of execution time: ${perExecSecond.toFixed(0)} unique/s (${figures.ofBound.toFixed(2)} of the bound); ` +
      `${figures.clockSeconds.toFixed(1)} s on the clock with the waits between continuations: ${perClockSecond.toFixed(0)} unique/s (${figures.ofBoundClock.toFixed(2)}); ` +
      `billed ${figures.billed} for ${unique} unique (CLI billed ${cli.billed_lookup_queries}); last status ${figures.status}`,
  );
  report('addon', figures);
} finally {
  await sbAddon.close();
  await sbCli.close();
}
