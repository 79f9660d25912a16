#!/usr/bin/env node
/**
 * Webhooks.
 * 1. verifyWebhook + MemoryDedupeStore.checkAndAdd per event (goal < 0.2 ms), over signed monitoring.change
 *    bodies of realistic size, each id new.
 * 2. 1,000 events end to end: the sandbox detects 1,000 changes (detection_rate 1 over 1,000 monitored
 *    companies), signs and delivers them over HTTP to a local receiver, which hands each delivery to the
 *    trigger node's webhook() (activated against the sandbox, so it holds the real signing secret).
 *    Reports the time from the detection run to the 1,000th execution, and webhook() time per delivery.
 * Run: node bench/webhook.bench.mjs [--events 20000] [--deliveries 1000]
 */
import { createServer } from 'node:http';
import { arg, httpRequest, load, n8nAuthenticated, quantile, report, sleep } from './support.mjs';

const N = Number(arg('events', 20_000));
const DELIVERIES = Number(arg('deliveries', 1000));

const lib = await load(
  'webhook',
  `export { startSandbox } from './packages/company-data/src/sandbox';
   export { signWebhook, verifyWebhook, MemoryDedupeStore } from './packages/core/webhooks';
   export { CompanyDataTrigger } from './nodes/CompanyDataTrigger/CompanyDataTrigger.node';`,
);

// --- 1. verify + dedupe -------------------------------------------------------------------------
const secret = 'whsec_bench_0123456789abcdef';
const event = (/** @type {number} */ n) => ({
  id: `evt_${n}`,
  type: 'monitoring.change',
  created_at: '2026-11-20T07:00:01.123Z',
  data: {
    company: { registry_code: '13545698', name: 'Lõunaranna Tarkvara OÜ' },
    lists: [{ id: 'lst_a1b2c3d4e5f6', name: 'Key clients', external_ref: 'CRM-991' }],
    category: 'tax',
    kind: 'tax_debt',
    tone: 'bad',
    details: { old: 0, new: 1234.56, snapshot_date: '2026-11-19' },
    detected_at: '2026-11-20T07:00:00.000Z',
  },
});
const nowS = Math.floor(Date.now() / 1000);
const signed = Array.from({ length: N }, (_, n) => {
  const body = JSON.stringify(event(n));
  const h = lib.signWebhook({ secret, body, timestamp: nowS, eventId: `evt_${n}` });
  return { rawBody: Buffer.from(body), headers: Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v])) };
});
const store = new lib.MemoryDedupeStore({ maxEntries: N * 2 });
// Warm-up on a copy of the first events, then the timed pass over fresh ids.
const warm = new lib.MemoryDedupeStore();
for (const d of signed.slice(0, 1000)) await warm.checkAndAdd(lib.verifyWebhook({ rawBody: d.rawBody, headers: d.headers, secret }).id);
const t0 = performance.now();
let fresh = 0;
for (const d of signed) {
  const ev = lib.verifyWebhook({ rawBody: d.rawBody, headers: d.headers, secret });
  if (await store.checkAndAdd(ev.id)) fresh++;
}
const perEventMs = (performance.now() - t0) / N;
console.log(`verify + dedupe: ${N} events, ${(perEventMs * 1000).toFixed(1)} µs per event (${fresh} new)`);

// --- 2. 1,000 events through the trigger --------------------------------------------------------
const node = {
  id: 'bench-trigger',
  name: 'Company Data Trigger',
  type: 'n8n-nodes-company-data.companyDataTrigger',
  typeVersion: 1,
  position: [0, 0],
  parameters: {},
};
const quiet = { warn() {}, info() {}, debug() {}, error() {} };
const param = (/** @type {string} */ name, /** @type {unknown} */ fallback) =>
  name === 'events' ? ['monitoring.change', 'search.matches', 'webhook.test'] : fallback;

const sb = await lib.startSandbox({ port: 0, seed: 1, companies: 5000, rateLimit: false });
const trigger = new lib.CompanyDataTrigger();
const staticData = {};
const creds = { apiKey: sb.apiKey, baseUrl: sb.url };
/** @type {number[]} */
const handled = [];
let executions = 0;
let rejected = 0;
const receiver = createServer(async (req, res) => {
  /** @type {Buffer[]} */
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const rawBody = Buffer.concat(chunks);
  const response = { statusCode: 200 };
  /** @type {{ status: (c: number) => typeof r, json: () => typeof r, end: () => typeof r }} */
  const r = {
    status: (c) => ((response.statusCode = c), r),
    json: () => r,
    end: () => r,
  };
  const ctx = {
    getRequestObject: () => ({ rawBody, headers: req.headers, body: {} }),
    getResponseObject: () => r,
    getWorkflowStaticData: () => staticData,
    getCredentials: async () => creds,
    getNodeParameter: param,
    getNode: () => node,
    getWorkflow: () => ({ id: 'wf-bench', active: true }),
    helpers: { returnJsonArray: (/** @type {unknown[]} */ items) => items.map((json) => ({ json })) },
    logger: quiet,
  };
  const t = performance.now();
  const out = await trigger.webhook.call(ctx);
  handled.push(performance.now() - t);
  if (out.workflowData) executions++;
  if (response.statusCode === 401) rejected++;
  res.writeHead(response.statusCode);
  res.end();
});
await new Promise((r) => receiver.listen(0, '127.0.0.1', () => r(undefined)));
const receiverUrl = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (receiver.address()).port}/webhook`;

try {
  /**
   * @param {string} method
   * @param {string} path
   * @param {object} [body]
   */
  const api = async (method, path, body) => {
    const res = await fetch(sb.url + path, {
      method,
      headers: { 'x-api-key': sb.apiKey, 'content-type': 'application/json' },
      body: body && JSON.stringify(body),
    });
    // any: the sandbox's answers, read by field name below
    const j = /** @type {any} */ (await res.json());
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(j.error)}`);
    return j.data;
  };
  await trigger.webhookMethods.default.create.call({
    getNode: () => node,
    getNodeWebhookUrl: () => receiverUrl,
    getWorkflowStaticData: () => staticData,
    getCredentials: async () => creds,
    getNodeParameter: param,
    helpers: { httpRequest, httpRequestWithAuthentication: n8nAuthenticated(creds) },
    logger: quiet,
  });
  const list = await api('POST', '/monitoring/lists', { name: 'Bench' });
  /** @type {string[]} */
  const codes = sb.dataset.companies.slice(0, DELIVERIES).map((/** @type {{ code: string }} */ c) => c.code);
  await api('POST', `/monitoring/lists/${list.id}/companies`, { add: codes.map((registry_code) => ({ registry_code })) });
  await api('PUT', '/sandbox/settings', { detection_rate: 1, duplicate_rate: 0 });
  const t1 = performance.now();
  const run = await api('POST', '/sandbox/runs', { kind: 'detection' });
  // A run skips changes that cannot apply to a company; court cases always can, so they make up the rest.
  let events = run.detection_events;
  for (let i = 0; events < DELIVERIES; i++) {
    await api('POST', '/sandbox/changes', { registry_code: codes[i % codes.length], category: 'court' });
    events++;
  }
  const deadline = Date.now() + 120_000;
  while (executions < events && Date.now() < deadline) await sleep(5);
  const seconds = (performance.now() - t1) / 1000;
  handled.sort((a, b) => a - b);
  console.log(
    `trigger end to end: ${events} events, ${executions} executions, ${rejected} rejected, ${seconds.toFixed(2)} s (${(executions / seconds).toFixed(0)} events/s); webhook() p50 ${quantile(handled, 0.5).toFixed(2)} ms, p99 ${quantile(handled, 0.99).toFixed(2)} ms`,
  );
  report('webhook', {
    verifyDedupeMs: perEventMs,
    events: N,
    e2eEvents: events,
    e2eExecutions: executions,
    e2eRejected: rejected,
    e2eSeconds: seconds,
    e2eEventsPerSecond: executions / seconds,
    webhookP50Ms: quantile(handled, 0.5),
    webhookP99Ms: quantile(handled, 0.99),
  });
} finally {
  receiver.closeAllConnections();
  await new Promise((r) => receiver.close(r));
  await sb.close();
}
