#!/usr/bin/env node
/**
 * The Company Data: Google Sheets node (issue 28, point 5) against the CLI on the same sheet: a sheet of --rows
 * rows (default 100,000; bench/sheets.bench.mjs's sheet: one distinct sandbox code per 50 rows, every fifth typed
 * with spaces) in the Google Sheets stand-in at Google's quotas (60 reads and 60 writes a minute per user, a real
 * 60-second window), the sandbox answering the lookups. Two copies of the sheet, each shared with its own service
 * account (so each run has its own quota):
 *   1. the built CLI, `company-data enrich --spreadsheet … --google-key-file …`, as users run it: wall time from
 *      process start to exit, Sheets API requests counted at the stand-in, its peak RSS;
 *   2. the node in a real n8n 2.41.1 (the example workflow, examples/enrich-google-sheet.json, pointed at the
 *      stand-in): wall time from the editor's "Execute workflow" request to the finished execution, requests,
 *      n8n's resident memory sampled every 100 ms (growth over its level just before the run);
 *   3. the node again on its enriched sheet: billed queries and writes.
 * Goals: 0 answered 429; the node's requests <= the CLI's; n8n's memory growth < 300 MiB; the node's wall time
 * <= 1.2 x the CLI's. Run: node bench/google-sheets-node.bench.mjs [--rows 100000]
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildIfStale } from '../e2e/lib/build.mjs';
import { adaptExample, CREDENTIAL_NAME, GOOGLE_CREDENTIAL_TYPE, readExample, SHEETS_NODE_TYPE } from '../e2e/lib/examples.mjs';
import { createCredential, createWorkflow, rest, startN8n, waitForExecution } from '../e2e/lib/n8n.mjs';
import { ensureRuntime } from '../e2e/lib/runtime.mjs';
import { countCalls, loadSheetsStandin } from '../e2e/lib/sheets-standin.mjs';
import { arg, benchSheet, load, realCompanies, report, root, runCliWithRss } from './support.mjs';

const rowsN = Number(arg('rows', 100_000));
const dir = mkdtempSync(join(tmpdir(), 'sheets-node-bench-'));
const lib = await load('sheets-node-parent', "export { startSandbox } from './packages/company-data/src/sandbox';");
const { startSheetsStandin } = await loadSheetsStandin(dir);
await buildIfStale(root, (m) => console.log(`[build] ${m}`));
const runtime = await ensureRuntime({ log: (m) => console.log(`[runtime] ${m}`) });

const sb = await lib.startSandbox({ port: 0, seed: 1, companies: 10_000 });
const standin = await startSheetsStandin({ readsPerMinute: 60, writesPerMinute: 60, windowMs: 60_000 });
/** @returns {number} */
const billed = () => sb.usage(sb.apiKey).billed_lookup_queries;
const { distinct, rows } = benchSheet(rowsN, realCompanies(sb.dataset));
/**
 * A copy of the bench sheet shared with its own service account only; returns the account's key.
 * @param {string} id
 */
const sheetFor = (id) => {
  standin.create(id, [{ title: 'Leads', rows: rows.map((r) => [...r]), rowCount: rowsN + 1, columnCount: 26 }]);
  const email = `${id}@bench.iam.gserviceaccount.com`;
  standin.share(id, [email]);
  return standin.serviceAccountKey(email);
};
/** @param {string} id */
const rowsWithStatus = (id) => {
  /** @type {unknown[][]} */
  const values = standin.values(id, 'Leads');
  const status = values[0].indexOf('company_data_status');
  return status < 0 ? 0 : values.slice(1).filter((r) => String(r[status] ?? '') !== '').length;
};
/** @param {number} pid */
const rssMb = (pid) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;

/** @type {Record<string, any>} */
const figures = { rows: rowsN, distinct };
/** @type {Awaited<ReturnType<typeof startN8n>> | undefined} */
let n8n;
try {
  // 1. The CLI.
  {
    const id = 'bench-cli-sheet';
    const keyFile = join(dir, 'cli-key.json');
    writeFileSync(keyFile, JSON.stringify(sheetFor(id)));
    const rssFile = join(dir, 'cli-rss.json');
    const before = standin.calls.length;
    const b0 = billed();
    const run = await runCliWithRss(
      [
        'enrich',
        '--spreadsheet',
        id,
        '--sheet',
        'Leads',
        '--google-key-file',
        keyFile,
        '--sheets-root-url',
        standin.url,
        '--state-dir',
        join(dir, 'cli-state'),
      ],
      { COMPANY_DATA_BASE_URL: sb.url, COMPANY_DATA_API_KEY: sb.apiKey },
      rssFile,
    );
    const { seconds, stdout: out } = run;
    const calls = countCalls(standin.calls.slice(before));
    figures.cli = {
      seconds,
      ...calls,
      requests: calls.reads + calls.writes,
      billed: billed() - b0,
      maxRssMb: run.maxRssMb,
      rowsWithStatus: rowsWithStatus(id),
    };
    console.log(`CLI: ${JSON.stringify(figures.cli)}\n${String(out).trim().split('\n').slice(0, 3).join('\n')}`);
  }

  // 2. and 3. The node in a real n8n.
  n8n = await startN8n({ runtime, packageDir: root, log: (m) => console.log(`[n8n] ${m}`) });
  const id = 'bench-node-sheet';
  const key = sheetFor(id);
  const credential = await createCredential(n8n, {
    name: CREDENTIAL_NAME,
    type: 'companyDataApi',
    data: { apiKey: sb.apiKey, baseUrl: sb.url, authStyle: 'xApiKey', webhookSigningSecret: '' },
  });
  const googleCredential = await createCredential(n8n, {
    name: 'Google service account (bench)',
    type: GOOGLE_CREDENTIAL_TYPE,
    data: { serviceAccountKey: JSON.stringify(key) },
  });
  const wf = adaptExample(readExample('enrich-google-sheet.json'), {
    credential,
    googleCredential,
    spreadsheetId: id,
    sheetsApiUrl: standin.url,
  });
  const node = wf.nodes.find((nd) => nd.type === SHEETS_NODE_TYPE);
  if (!node?.parameters) throw new Error(`the example has no ${SHEETS_NODE_TYPE} node`);
  // The same sheet and work as the CLI's run: its tab, its key column, no spending cap.
  Object.assign(node.parameters, { sheet: { __rl: true, mode: 'name', value: 'Leads' }, keyColumn: 'registry code', maxBilledQueries: 0 });
  const stored = await createWorkflow(n8n, wf);
  const pid = n8n.pid;
  if (!pid) throw new Error('n8n has no pid');

  /**
   * One execution of the workflow, as the editor's "Execute workflow" starts it, with n8n's memory sampled.
   * @param {NonNullable<typeof n8n>} target
   */
  const runNode = async (target) => {
    const before = standin.calls.length;
    const b0 = billed();
    const baseMb = rssMb(pid);
    let peakMb = baseMb;
    const sampler = setInterval(() => (peakMb = Math.max(peakMb, rssMb(pid))), 100);
    const t0 = performance.now();
    const started = await rest(target, 'POST', `/workflows/${stored.id}/run`, { triggerToStartFrom: { name: 'Run' } });
    const ex = await waitForExecution(target, (started.data ?? started).executionId, { timeoutMs: 30 * 60_000 });
    const seconds = (performance.now() - t0) / 1000;
    clearInterval(sampler);
    peakMb = Math.max(peakMb, rssMb(pid));
    if (ex.status !== 'success') throw new Error(`the node's run ended ${ex.status}: ${ex.data?.resultData?.error?.message}`);
    const calls = countCalls(standin.calls.slice(before));
    return {
      seconds,
      ...calls,
      requests: calls.reads + calls.writes,
      billed: billed() - b0,
      baseRssMb: baseMb,
      peakRssMb: peakMb,
      rssGrowthMb: peakMb - baseMb,
    };
  };
  const first = await runNode(n8n);
  figures.node = { ...first, rowsWithStatus: rowsWithStatus(id) };
  console.log(`node: ${JSON.stringify(figures.node)}`);
  const again = await runNode(n8n);
  figures.rerun = {
    seconds: again.seconds,
    reads: again.reads,
    writes: again.writes,
    billed: again.billed,
    rssGrowthMb: again.rssGrowthMb,
  };
  console.log(`node again on its enriched sheet: ${JSON.stringify(figures.rerun)}`);
  figures.timeRatio = figures.node.seconds / figures.cli.seconds;
  console.log(
    `sheets node ${rowsN} rows (${distinct} distinct): ${figures.node.seconds.toFixed(1)} s vs CLI ${figures.cli.seconds.toFixed(1)} s (${figures.timeRatio.toFixed(2)}x); requests ${figures.node.requests} vs ${figures.cli.requests}; 429: ${figures.node.rateLimited} / ${figures.cli.rateLimited}; n8n memory growth ${figures.node.rssGrowthMb.toFixed(0)} MiB`,
  );
  report('google-sheets-node', figures);
} finally {
  await n8n?.stop();
  await standin.close();
  await sb.close();
  rmSync(dir, { recursive: true, force: true });
}
