#!/usr/bin/env node
/**
 * Sandbox throughput: lookup of 100 queries and q search on a large dataset.
 * Run: node bench/sandbox.bench.mjs [--companies 300000] [--requests 2000] [--concurrency 8]
 * Bundles packages/company-data/src/sandbox with esbuild (no build step), serves it from a child process (one core),
 * and reports p50/p99 latency and requests per second. Target: 200 requests/s (20x the rate limit).
 */
import { fork } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The number after `--name` on the command line, else `def`.
 * @param {string} name
 * @param {number} def
 */
const arg = (name, def) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};

if (process.argv[2] === 'serve') {
  const { startSandbox } = await import(process.argv[3]);
  const sb = await startSandbox({ companies: Number(process.argv[4]), rateLimit: false });
  /** @type {{ companies: { name: string, code: string, vat?: string | null }[], buildMs: number }} */
  const ds = sb.dataset;
  const pick = (/** @type {number} */ k) => ds.companies[(k * 7919) % ds.companies.length];
  const names = Array.from({ length: 400 }, (_, k) => pick(k).name);
  const codes = Array.from({ length: 400 }, (_, k) => pick(k + 400).code);
  const vats = ds.companies
    .filter((c) => c.vat)
    .slice(0, 400)
    .map((c) => c.vat);
  process.send?.({ url: sb.url, apiKey: sb.apiKey, names, codes, vats, buildMs: ds.buildMs, rss: process.memoryUsage().rss });
  process.on('message', async () => {
    await sb.close();
    process.exit(0);
  });
} else {
  const companies = arg('companies', 300_000);
  const requests = arg('requests', 2000);
  const concurrency = arg('concurrency', 8);
  const root = join(fileURLToPath(import.meta.url), '../..');
  const out = join(mkdtempSync(join(tmpdir(), 'sb-bench-')), 'sandbox.cjs');
  const { buildSync } = await import('esbuild');
  buildSync({
    entryPoints: [join(root, 'packages/company-data/src/sandbox/index.ts')],
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    outfile: out,
    logLevel: 'error',
  });
  const t0 = Date.now();
  const child = fork(fileURLToPath(import.meta.url), ['serve', out, String(companies)]);
  /** @type {{ url: string, apiKey: string, names: string[], codes: string[], vats: string[], buildMs: number, rss: number }} */
  const info = await new Promise((resolve) => child.once('message', resolve));
  console.log(
    `dataset: ${companies} companies generated and indexed in ${info.buildMs} ms (server ready in ${Date.now() - t0} ms, rss ${Math.round(info.rss / 1e6)} MB)`,
  );

  const headers = { 'x-api-key': info.apiKey, 'content-type': 'application/json' };
  /**
   * @param {string} label
   * @param {(k: number) => [string, RequestInit]} make the path and request of the k-th request
   */
  async function run(label, make) {
    /** @type {number[]} */
    const times = [];
    let next = 0;
    let failed = 0;
    const start = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < requests) {
          const k = next++;
          const [path, init] = make(k);
          const t = performance.now();
          const res = await fetch(info.url + path, { headers, ...init });
          await res.arrayBuffer();
          if (res.status !== 200) failed++;
          times.push(performance.now() - t);
        }
      }),
    );
    const secs = (performance.now() - start) / 1000;
    times.sort((a, b) => a - b);
    const q = (/** @type {number} */ p) => times[Math.min(times.length - 1, Math.floor(p * times.length))].toFixed(1);
    console.log(
      `${label}: ${requests} requests, ${(requests / secs).toFixed(0)} req/s, p50 ${q(0.5)} ms, p99 ${q(0.99)} ms${failed ? `, ${failed} failed` : ''}`,
    );
  }
  const words = ['Ehitus', 'Kase', 'Tamme Invest', 'Põhja', 'Kinnisvara', 'Mere Haldus', 'Auto', 'Lepa Grupp', 'IT', 'Rebase'];
  await run('lookup, 100 queries each (names, codes, VAT numbers)', (k) => {
    const queries = Array.from({ length: 100 }, (_, j) => {
      const n = (k * 100 + j) % 400;
      return j % 3 === 0 ? info.codes[n] : j % 3 === 1 ? info.vats[n % info.vats.length] : info.names[n];
    });
    return ['/companies/lookup', { method: 'POST', body: JSON.stringify({ queries, limit: 1 }) }];
  });
  await run('search with q', (k) => [
    `/companies?q=${encodeURIComponent(k % 2 ? words[k % words.length] : info.names[k % 400].split(' ').slice(0, 2).join(' '))}&limit=25`,
    {},
  ]);
  child.send('stop');
}
