#!/usr/bin/env node
/**
 * The Companies node's Lookup operation, execute() over 10,000 input items (20% duplicates, 5% invalid),
 * against the sandbox at its 10 requests/s limit. The execution context is a plain object (no mocking
 * library): its HTTP helpers make real requests to the sandbox and add the key header the way the
 * credential's authenticate rule does. Reports rows/s against the 1,000 rows/s bound, billed queries per
 * unique valid identifier (from the sandbox's usage counter) and what a second execution bills.
 * Run: node bench/node-lookup.bench.mjs [--rows 10000]
 */
import { arg, load, makeRows, realCompanies, report } from './support.mjs';

const ROWS = Number(arg('rows', 10_000));
const BOUND = 1000;

const lib = await load(
  'node-lookup',
  `export { startSandbox } from './src/sandbox';
   export { withRegistryCheckDigit, lookupQueryProblem } from './src/core/validation';
   export { lookupKey } from './src/core/bulk-lookup';
   export { CompanyDataCompanies } from './nodes/CompanyDataCompanies/CompanyDataCompanies.node';`,
);

/** n8n's httpRequest contract (returnFullResponse, ignoreHttpStatusErrors, encoding text, timeout) over fetch. */
async function httpRequest(o) {
  const url = new URL(o.url, o.baseURL);
  for (const [k, v] of Object.entries(o.qs ?? {})) url.searchParams.append(k, String(v));
  const body = o.body === undefined ? undefined : typeof o.body === 'string' ? o.body : JSON.stringify(o.body);
  const res = await fetch(url, {
    method: o.method ?? 'GET',
    headers: o.headers,
    body,
    redirect: o.disableFollowRedirect ? 'manual' : 'follow',
    signal: o.timeout ? AbortSignal.timeout(o.timeout) : undefined,
  });
  const text = await res.text();
  if (!o.ignoreHttpStatusErrors && res.status >= 400) throw Object.assign(new Error(`Request failed with status code ${res.status}`), { httpCode: String(res.status) });
  const parsed = o.encoding === 'text' || o.json === false ? text : text ? JSON.parse(text) : undefined;
  return o.returnFullResponse ? { statusCode: res.status, headers: Object.fromEntries(res.headers), body: parsed } : parsed;
}

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
      // What the credential's generic authenticate rule adds (credentials/CompanyDataApi.credentials.ts).
      httpRequestWithAuthentication: async (type, o) => {
        if (type !== 'companyDataApi') throw new Error(`unexpected credential ${type}`);
        return httpRequest({ ...o, headers: { ...o.headers, 'X-API-Key': credentials.apiKey } });
      },
    },
    warnings,
  };
}

const sb = await lib.startSandbox({ port: 0, seed: 1, companies: 10_000 });
try {
  const rows = makeRows(ROWS, realCompanies(sb.dataset), lib.withRegistryCheckDigit);
  const unique = new Set(rows.filter((r) => !lib.lookupQueryProblem(r)).map((r) => lib.lookupKey(r).key)).size;
  const items = rows.map((r, i) => ({ json: { registry_code: r, owner: `owner ${i % 50}` } }));
  const params = { operation: 'lookup', querySource: 'field', queryField: 'registry_code', options: {} };
  const node = new lib.CompanyDataCompanies();
  const billed = () => sb.usage(sb.apiKey).billed_lookup_queries;

  const run = async () => {
    const ctx = context(items, { apiKey: sb.apiKey, baseUrl: sb.url }, params);
    const b0 = billed();
    const t0 = performance.now();
    const out = await node.execute.call(ctx);
    const seconds = (performance.now() - t0) / 1000;
    const statuses = {};
    for (const it of out[0]) statuses[it.json.company_data_status] = (statuses[it.json.company_data_status] ?? 0) + 1;
    return { seconds, billed: billed() - b0, outItems: out[0].length, statuses, warnings: ctx.warnings.length };
  };
  const first = await run();
  await new Promise((r) => setTimeout(r, 1100));
  const second = await run();
  const rps = ROWS / first.seconds;
  console.log(`node lookup: ${ROWS} items in ${first.seconds.toFixed(2)} s (${rps.toFixed(0)} rows/s, ${(rps / BOUND).toFixed(2)} of the bound); billed ${first.billed} for ${unique} unique; statuses ${JSON.stringify(first.statuses)}; second execution billed ${second.billed}`);
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
