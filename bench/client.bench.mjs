#!/usr/bin/env node
/**
 * Client overhead: the same sandbox call (GET /companies/{registry_code}, a full profile) made with
 * CompanyDataClient and with raw undici (a Pool on the same origin, body read and JSON-parsed, as any
 * caller must), one request at a time, rate limit off on both sides. The sandbox runs in a child process
 * (its own core). Rounds alternate between the two so drift in machine load hits both alike.
 * Goal: client time per request <= 1.2x raw undici.
 * Run: node bench/client.bench.mjs [--rounds 10] [--per-round 200]
 */
import { Pool } from 'undici';
import { arg, forkSandbox, load, quantile, report } from './support.mjs';

const ROUNDS = Number(arg('rounds', 20));
const PER_ROUND = Number(arg('per-round', 200));

const lib = await load('client', "export { CompanyDataClient } from './packages/company-data/src/index';");
const sb = await forkSandbox({ port: 0, seed: 1, companies: 2000, rateLimit: false });
const client = new lib.CompanyDataClient({ baseUrl: sb.url, apiKey: sb.apiKey, rateLimit: false });
const origin = new URL(sb.url);
const pool = new Pool(origin.origin, { connections: 10 });
const codes = sb.codes;

/** @param {string} code */
async function raw(code) {
  const res = await pool.request({
    method: 'GET',
    path: `/companies/${code}`,
    headers: { 'x-api-key': sb.apiKey, accept: 'application/json' },
  });
  const body = JSON.parse(await res.body.text());
  if (res.statusCode !== 200) throw new Error(`raw: ${res.statusCode}`);
  return body.data;
}
/** @param {string} code */
async function viaClient(code) {
  return (await client.companies.get({ registry_code: code })).data;
}

/**
 * @param {(code: string) => Promise<unknown>} fn
 * @param {number} offset
 */
async function timed(fn, offset) {
  /** @type {number[]} */
  const times = [];
  for (let i = 0; i < PER_ROUND; i++) {
    const t = performance.now();
    await fn(codes[(offset + i) % codes.length]);
    times.push(performance.now() - t);
  }
  return times;
}

try {
  // Warm-up: connections, JIT, the dataset's lazy sections.
  await timed(raw, 0);
  await timed(viaClient, 0);
  /** @typedef {'raw' | 'client'} Side */
  /** @type {Record<Side, number[]>} */
  const all = { raw: [], client: [] };
  const mean = (/** @type {number[]} */ a) => a.reduce((s, x) => s + x, 0) / a.length;
  /** @type {number[]} */
  const roundRatios = [];
  for (let r = 0; r < ROUNDS; r++) {
    /** @type {Side[]} */
    const order = r % 2 ? ['client', 'raw'] : ['raw', 'client'];
    /** @type {Record<Side, number[]>} */
    const got = { raw: [], client: [] };
    for (const side of order) got[side] = await timed(side === 'raw' ? raw : viaClient, r * PER_ROUND);
    for (const side of order) all[side].push(...got[side]);
    roundRatios.push(mean(got.client) / mean(got.raw));
  }
  roundRatios.sort((a, b) => a - b);
  // The median of per-round ratios: a load spike on this shared machine moves one round, not the figure.
  const medianRatio = quantile(roundRatios, 0.5);
  const stats = Object.fromEntries(
    Object.entries(all).map(([k, v]) => {
      const s = [...v].sort((a, b) => a - b);
      return [k, { meanMs: mean(v), p50Ms: quantile(s, 0.5), p99Ms: quantile(s, 0.99) }];
    }),
  );
  const ratio = stats.client.meanMs / stats.raw.meanMs;
  console.log(
    `client overhead: ${ROUNDS * PER_ROUND} requests each; raw undici mean ${stats.raw.meanMs.toFixed(3)} ms (p50 ${stats.raw.p50Ms.toFixed(3)}), client mean ${stats.client.meanMs.toFixed(3)} ms (p50 ${stats.client.p50Ms.toFixed(3)}); ratio of means ${ratio.toFixed(2)}x, median of ${ROUNDS} round ratios ${medianRatio.toFixed(2)}x, p50 ratio ${(stats.client.p50Ms / stats.raw.p50Ms).toFixed(2)}x; ${((stats.client.meanMs - stats.raw.meanMs) * 1000).toFixed(0)} µs added per request`,
  );
  report('client', {
    requests: ROUNDS * PER_ROUND,
    ...Object.fromEntries(Object.entries(stats).flatMap(([k, v]) => Object.entries(v).map(([m, x]) => [`${k}_${m}`, x]))),
    ratio,
    medianRatio,
    addedMs: stats.client.meanMs - stats.raw.meanMs,
    p50Ratio: stats.client.p50Ms / stats.raw.p50Ms,
  });
} finally {
  await client.close();
  await pool.close();
  await sb.close();
}
