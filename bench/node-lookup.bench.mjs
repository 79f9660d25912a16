#!/usr/bin/env node
/**
 * The Companies node's Lookup operation, execute() over 10,000 input items (20% duplicates, 5% invalid),
 * against the sandbox at its 10 requests/s limit. The execution context is a plain object (no mocking
 * library): its HTTP helpers make real requests to the sandbox and add the key header the way the
 * credential's authenticate rule does. Reports rows/s against the 1,000 rows/s bound, billed queries per
 * unique valid identifier (from the sandbox's usage counter) and what a second execution bills when it is
 * fed the first one's output, as Google Sheets (read) → Lookup → Google Sheets (update) run again would
 * (the rows come back carrying the lookup's output columns; Skip Items Already Looked Up is on by default).
 * Run: node bench/node-lookup.bench.mjs [--rows 10000]
 */
import { arg, httpRequest, load, n8nAuthenticated, realCompanies, report } from './support.mjs';

const ROWS = Number(arg('rows', 10_000));
const BOUND = 1000;

const lib = await load(
  'node-lookup',
  `export { startSandbox } from './packages/cli/src/sandbox';
   export { lookupQueryProblem } from './src/core/validation';
   export { makeRows } from './bench/rows';
   export { lookupKey } from './src/core/lookup';
   export { CompanyDataCompanies } from './nodes/CompanyDataCompanies/CompanyDataCompanies.node';`,
);

function context(items, credentials, params) {
  const node = { id: 'bench', name: 'Company Data: Companies', type: 'n8n-nodes-company-data.companyDataCompanies', typeVersion: 1, position: [0, 0], parameters: {} };
  const warnings = [];
  return {
    getNode: () => node,
    getInputData: () => items,
    continueOnFail: () => false,
    getCredentials: async () => credentials,
    getNodeParameter: (name, _i, fallback) => params[name] ?? fallback,
    logger: { warn: (m) => warnings.push(m), info() {}, debug() {}, error: (m) => warnings.push(m) },
    helpers: {
      httpRequest,
      httpRequestWithAuthentication: n8nAuthenticated(credentials),
    },
    warnings,
  };
}

const sb = await lib.startSandbox({ port: 0, seed: 1, companies: 10_000 });
try {
  const rows = lib.makeRows(ROWS, realCompanies(sb.dataset));
  const unique = new Set(rows.filter((r) => !lib.lookupQueryProblem(r)).map((r) => lib.lookupKey(r).key)).size;
  const items = rows.map((r, i) => ({ json: { registry_code: r, owner: `owner ${i % 50}` } }));
  const params = { operation: 'lookup', querySource: 'field', queryField: 'registry_code', options: {} };
  const node = new lib.CompanyDataCompanies();
  const billed = () => sb.usage(sb.apiKey).billed_lookup_queries;

  const run = async (input) => {
    const ctx = context(input, { apiKey: sb.apiKey, baseUrl: sb.url }, params);
    const b0 = billed();
    const t0 = performance.now();
    const out = await node.execute.call(ctx);
    const seconds = (performance.now() - t0) / 1000;
    const statuses = {};
    for (const it of out[0]) statuses[it.json.company_data_status] = (statuses[it.json.company_data_status] ?? 0) + 1;
    return { seconds, billed: billed() - b0, out: out[0], outItems: out[0].length, statuses, warnings: ctx.warnings.length };
  };
  const first = await run(items);
  await new Promise((r) => setTimeout(r, 1100));
  // What the sheet gives back on the next read: the updated rows as fresh items.
  const second = await run(first.out.map((o) => ({ json: structuredClone(o.json) })));
  const rps = ROWS / first.seconds;
  console.log(`node lookup: ${ROWS} items in ${first.seconds.toFixed(2)} s (${rps.toFixed(0)} rows/s, ${(rps / BOUND).toFixed(2)} of the bound); billed ${first.billed} for ${unique} unique; statuses ${JSON.stringify(first.statuses)}; second execution over the first one's output billed ${second.billed} in ${second.seconds.toFixed(2)} s`);
  report('node-lookup', {
    rows: ROWS,
    uniqueValid: unique,
    seconds: first.seconds,
    rowsPerSecond: rps,
    ofBound: rps / BOUND,
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
