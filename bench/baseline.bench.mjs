#!/usr/bin/env node
/**
 * Per-row baseline: what an n8n workflow of "HTTP Request" node over a sheet does without this package.
 * One GET per row (GET /companies/{code}, or /companies/by-vat/{vat} for VAT numbers), paced like the
 * HTTP Request node's batching option at the sandbox's 10 requests/s limit (10 items per batch, then a
 * 1000 ms batch interval; requests of a batch go out together). Duplicates are fetched again and invalid
 * rows are sent too (that loop has no dedupe or validation); values are trimmed, to be fair to it.
 *
 * 20,000 rows this way take over half an hour, so a sample (--rows, default 200) of the same row mix as
 * the enrich benchmark is timed and the rate is extrapolated (stated as such in the table).
 * Run: node bench/baseline.bench.mjs [--rows 200]
 */
import { arg, forkSandbox, load, realCompanies, report, sleep } from './support.mjs';

const SAMPLE = Number(arg('rows', 200));
const LATENCY = Number(arg('latency-ms', 300));
const BATCH = 10;
const INTERVAL_MS = 1000;

const lib = await load(
  'baseline',
  "export { buildDataset } from './packages/company-data/src/sandbox/dataset'; export { makeRows } from './bench/rows';",
);
// The same distant service as the enrich and Lookup node figures (round trip --latency-ms, default 300).
const sb = await forkSandbox({ port: 0, seed: 1, companies: 20_000, latency: { latencyMs: LATENCY, perQueryMs: 0.5, jitter: 0.5 } });
try {
  /** @type {string[]} */
  const rows = lib.makeRows(20_000, realCompanies(lib.buildDataset(1, 20_000), 20_000)).slice(0, SAMPLE);
  /** @type {Record<number, number>} */
  const statuses = {};
  const get = async (/** @type {string} */ row) => {
    const v = row.trim();
    const path = /^ee/i.test(v) ? `/companies/by-vat/${encodeURIComponent(v)}` : `/companies/${encodeURIComponent(v)}`;
    const res = await fetch(sb.url + path, { headers: { 'x-api-key': sb.apiKey } });
    await res.arrayBuffer();
    statuses[res.status] = (statuses[res.status] ?? 0) + 1;
  };
  const t0 = performance.now();
  /** @type {Promise<void>[]} */
  const inFlight = [];
  let lastBatchAt = 0;
  for (let i = 0; i < rows.length; i++) {
    if (i > 0 && i % BATCH === 0) {
      await sleep(INTERVAL_MS);
      lastBatchAt = performance.now() - t0;
    }
    inFlight.push(get(rows[i]));
  }
  await Promise.all(inFlight);
  const seconds = (performance.now() - t0) / 1000;
  // Steady rate: rows sent before the last batch over the time until it went out (a short sample
  // would otherwise gain the missing interval after its last batch).
  const rate = (rows.length - BATCH) / (lastBatchAt / 1000);
  console.log(
    `baseline at ${LATENCY} ms: ${rows.length} rows, one GET each, ${seconds.toFixed(1)} s, ${rate.toFixed(2)} rows/s; statuses ${JSON.stringify(statuses)}; 20,000 rows would take ${(20_000 / rate / 60).toFixed(1)} min`,
  );
  report('baseline', {
    latencyMs: LATENCY,
    sampleRows: rows.length,
    seconds,
    rowsPerSecond: rate,
    requestsPerRow: 1,
    rateLimited: statuses[429] ?? 0,
    statuses,
    extrapolatedSeconds20k: 20_000 / rate,
  });
} finally {
  await sb.close();
}
