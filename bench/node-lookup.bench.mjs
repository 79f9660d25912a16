#!/usr/bin/env node
/**
 * The Companies node's Lookup operation, execute() over --rows input items (default 20,000: 15,000 unique,
 * 20% duplicates, 5% invalid), against the sandbox (a child process of its own) at its 10 requests/s limit,
 * with a round trip of --latency-ms (default 300) plus 0.5 ms service time per query ±50%. Figure: unique
 * billed rows per second ÷ the bound (1,000 unique/s); duplicates and invalid items cost nothing and are not
 * counted. The execution context is a plain object (no mocking
 * library): its HTTP helpers make real requests to the sandbox and add the key header the way the
 * credential's authenticate rule does. Reports rows/s against the 1,000 rows/s bound, billed queries per
 * unique valid identifier (from the sandbox's usage counter) and what a second execution bills when it is
 * fed the first one's output, as Google Sheets (read) → Lookup → Google Sheets (update) run again would
 * (the rows come back carrying the lookup's output columns; Skip Items Already Looked Up is on by default).
 * Run: node bench/node-lookup.bench.mjs [--rows 10000]
 */
import { arg, forkSandbox, httpRequest, load, n8nAuthenticated, realCompanies, report } from './support.mjs';

const ROWS = Number(arg('rows', 20_000));
const LATENCY = Number(arg('latency-ms', 300));
const BOUND = 1000;

const lib = await load(
  'node-lookup',
  `export { buildDataset } from './packages/company-data/src/sandbox/dataset';
   export { lookupQueryProblem } from './packages/core/validation';
   export { makeRows } from './bench/rows';
   export { lookupKey } from './packages/core/lookup';
   export { CompanyDataCompanies } from './nodes/CompanyDataCompanies/CompanyDataCompanies.node';`,
);

/** @typedef {{ json: Record<string, unknown> }} Item */

/**
 * The execution context execute() is called with: the parts of n8n's IExecuteFunctions the node uses.
 * @param {Item[]} items
 * @param {{ apiKey: string, baseUrl: string }} credentials
 * @param {Record<string, unknown>} params
 */
function context(items, credentials, params) {
  const node = {
    id: 'bench',
    name: 'Company Data: Companies',
    type: 'n8n-nodes-company-data.companyDataCompanies',
    typeVersion: 1,
    position: [0, 0],
    parameters: {},
  };
  /** @type {string[]} */
  const warnings = [];
  /** @type {string[]} */
  const hints = [];
  return {
    getNode: () => node,
    getInputData: () => items,
    continueOnFail: () => false,
    getCredentials: async () => credentials,
    getNodeParameter: (/** @type {string} */ name, /** @type {number} */ _i, /** @type {unknown} */ fallback) => params[name] ?? fallback,
    addExecutionHints: (/** @type {{ message: string }[]} */ ...h) => hints.push(...h.map((x) => x.message)),
    logger: {
      warn: (/** @type {string} */ m) => warnings.push(m),
      info() {},
      debug() {},
      error: (/** @type {string} */ m) => warnings.push(m),
    },
    helpers: {
      httpRequest,
      httpRequestWithAuthentication: n8nAuthenticated(credentials),
    },
    warnings,
    hints,
  };
}

const sb = await forkSandbox({ port: 0, seed: 1, companies: 20_000, latency: { latencyMs: LATENCY, perQueryMs: 0.5, jitter: 0.5 } });
try {
  /** @type {string[]} */
  const rows = lib.makeRows(ROWS, realCompanies(lib.buildDataset(1, 20_000), 20_000));
  const unique = new Set(rows.filter((r) => !lib.lookupQueryProblem(r)).map((r) => lib.lookupKey(r).key)).size;
  const items = rows.map((r, i) => ({ json: { registry_code: r, owner: `owner ${i % 50}` } }));
  const params = { operation: 'lookup', querySource: 'field', queryField: 'registry_code', options: {} };
  const node = new lib.CompanyDataCompanies();
  const pause = () => new Promise((r) => setTimeout(r, 1100));

  const run = async (/** @type {Item[]} */ input) => {
    const ctx = context(input, { apiKey: sb.apiKey, baseUrl: sb.url }, params);
    const b0 = await sb.billed();
    await pause();
    const t0 = performance.now();
    /** @type {Item[][]} */
    const out = await node.execute.call(ctx);
    const seconds = (performance.now() - t0) / 1000;
    await pause();
    /** @type {Record<string, number>} */
    const statuses = {};
    for (const it of out[0]) statuses[String(it.json.company_data_status)] = (statuses[String(it.json.company_data_status)] ?? 0) + 1;
    return {
      seconds,
      billed: (await sb.billed()) - b0,
      out: out[0],
      outItems: out[0].length,
      statuses,
      warnings: ctx.warnings.length,
      hints: ctx.hints,
    };
  };
  const first = await run(items);
  // What the sheet gives back on the next read: the updated rows as fresh items.
  const second = await run(first.out.map((o) => ({ json: structuredClone(o.json) })));
  const rate = unique / first.seconds;
  console.log(
    `node lookup at ${LATENCY} ms: ${ROWS} items (${unique} unique) in ${first.seconds.toFixed(2)} s: ${rate.toFixed(0)} unique/s = ${(rate / BOUND).toFixed(3)} of the bound; billed ${first.billed}; statuses ${JSON.stringify(first.statuses)}; hint "${first.hints.join(' ')}"; second execution over the first one's output billed ${second.billed} in ${second.seconds.toFixed(2)} s`,
  );
  report('node-lookup', {
    rows: ROWS,
    latencyMs: LATENCY,
    uniqueValid: unique,
    seconds: first.seconds,
    uniquePerSecond: rate,
    ofBound: rate / BOUND,
    billed: first.billed,
    billedPerUnique: first.billed / unique,
    outItems: first.outItems,
    statuses: first.statuses,
    secondRunBilled: second.billed,
    secondRunSeconds: second.seconds,
  });
} finally {
  await sb.close();
}
