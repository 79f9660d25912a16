#!/usr/bin/env node
/**
 * What an MCP tool call adds to the client call it makes: `companies_get` for a few registry codes against
 * one sandbox (a child process, rate limit off), made three ways in the same run:
 *   direct  CompanyDataClient.companies.get in this process;
 *   stdio   the official SDK Client over StdioClientTransport to `company-data mcp` (built CLI, its own process);
 *   http    the same over StreamableHTTPClientTransport to `company-data mcp --http`, with the bearer token.
 * Both servers get the sandbox through --base-url/--api-key (env), so their client is the direct one's.
 * Calls go one at a time, a round (one call of each way, order rotated) every --pace-ms (120): the servers
 * keep the service's client-side limit of 10 requests/s, and an assistant calls far slower than that, so the
 * limiter never waits and the figures are the call path itself. The direct client has the same default
 * limiter and pace, so it is the same call minus MCP. Figures: p50/p95 per call, MCP ÷ direct at p50 and
 * the milliseconds added, and each server process's peak RSS (VmHWM).
 * Run: node bench/mcp-overhead.bench.mjs [--calls 300] [--codes 5] [--pace-ms 120]
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { buildIfStale } from '../e2e/lib/build.mjs';
import { arg, forkSandbox, load, peakRssMb, quantile, report, root, sleep, startMcpHttpProcess } from './support.mjs';

const CALLS = Number(arg('calls', 300));
const CODES = Number(arg('codes', 5));
const PACE_MS = Number(arg('pace-ms', 120));
const WARMUP = 20;

const lib = await load('mcp-overhead', "export { CompanyDataClient } from './packages/company-data/src/index';");
await buildIfStale(root, (m) => console.log(`[build] ${m}`));
const mainJs = join(root, 'packages', 'company-data', 'dist', 'cli', 'main.js');

const sb = await forkSandbox({ port: 0, seed: 1, companies: 2000, rateLimit: false });
const codes = sb.codes.slice(0, CODES);
const env = { COMPANY_DATA_BASE_URL: sb.url, COMPANY_DATA_API_KEY: sb.apiKey };
const token = randomBytes(24).toString('base64url');
const direct = new lib.CompanyDataClient({ baseUrl: sb.url, apiKey: sb.apiKey });
const stdioTransport = new StdioClientTransport({
  command: process.execPath,
  args: [mainJs, 'mcp'],
  env: { ...getDefaultEnvironment(), ...env },
  stderr: 'ignore',
});
const stdio = new Client({ name: 'mcp-overhead-bench', version: '1' });
/** @type {Awaited<ReturnType<typeof startMcpHttpProcess>> | undefined} */
let httpServer;
const http = new Client({ name: 'mcp-overhead-bench', version: '1' });

/**
 * One MCP companies_get; fails the run on a tool error or a different company, so only real answers are timed.
 * @param {Client} client
 */
const viaMcp = (client) => async (/** @type {string} */ code) => {
  const r = await client.callTool({ name: 'companies_get', arguments: { registry_code: code } });
  const answer = /** @type {{ items?: { registry_code?: string }[] } | undefined} */ (r.structuredContent);
  const got = answer?.items?.[0]?.registry_code;
  if (r.isError || got !== code) throw new Error(`companies_get ${code}: ${JSON.stringify(r.content).slice(0, 300)}`);
};
/** @type {Record<string, (code: string) => Promise<void>>} */
const ways = {
  direct: async (code) => {
    const r = await direct.companies.get({ registry_code: code });
    if (r.data.registry_code !== code) throw new Error(`direct ${code}: got ${r.data.registry_code}`);
  },
  stdio: viaMcp(stdio),
  http: viaMcp(http),
};
const names = Object.keys(ways);

try {
  await stdio.connect(stdioTransport);
  const server = await startMcpHttpProcess(mainJs, { ...env, COMPANY_DATA_MCP_TOKEN: token });
  httpServer = server;
  await http.connect(
    new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
  );

  /** @type {Record<string, number[]>} */
  const times = Object.fromEntries(names.map((n) => [n, []]));
  for (let i = -WARMUP; i < CALLS; i++) {
    const start = performance.now();
    // Rotated order: no way always goes first after the pause (or right after another's answer).
    for (let k = 0; k < names.length; k++) {
      const name = names[((((i % names.length) + names.length) % names.length) + k) % names.length];
      const t = performance.now();
      await ways[name](codes[((i % codes.length) + codes.length) % codes.length]);
      if (i >= 0) times[name].push(performance.now() - t);
    }
    await sleep(Math.max(0, PACE_MS - (performance.now() - start)));
  }

  const stats = Object.fromEntries(
    names.map((n) => {
      const s = [...times[n]].sort((a, b) => a - b);
      return [n, { p50Ms: quantile(s, 0.5), p95Ms: quantile(s, 0.95), maxMs: s[s.length - 1] }];
    }),
  );
  /** @type {Record<string, number>} */
  const rss = { stdioServerPeakRssMb: peakRssMb(stdioTransport.pid), httpServerPeakRssMb: peakRssMb(server.pid) };
  /** @type {Record<string, number>} */
  const figures = { calls: CALLS, codes: codes.length, paceMs: PACE_MS };
  for (const n of names) for (const [k, v] of Object.entries(stats[n])) figures[`${n}_${k}`] = v;
  for (const n of ['stdio', 'http']) {
    figures[`${n}_p50Ratio`] = stats[n].p50Ms / stats.direct.p50Ms;
    figures[`${n}_addedP50Ms`] = stats[n].p50Ms - stats.direct.p50Ms;
    figures[`${n}_addedP95Ms`] = stats[n].p95Ms - stats.direct.p95Ms;
  }
  Object.assign(figures, rss);
  const f = (/** @type {number} */ x) => x.toFixed(2);
  console.log(
    `mcp overhead: ${CALLS} companies_get calls each way over ${codes.length} registry codes, one round every ${PACE_MS} ms, sandbox rate limit off`,
  );
  for (const n of names) {
    const extra =
      n === 'direct'
        ? ''
        : `; ${f(figures[`${n}_p50Ratio`])}x direct at p50, +${f(figures[`${n}_addedP50Ms`])} ms p50, +${f(figures[`${n}_addedP95Ms`])} ms p95; server peak RSS ${rss[`${n}ServerPeakRssMb`].toFixed(0)} MiB`;
    console.log(`  ${n.padEnd(6)} p50 ${f(stats[n].p50Ms)} ms, p95 ${f(stats[n].p95Ms)} ms, max ${f(stats[n].maxMs)} ms${extra}`);
  }
  report('mcp-overhead', figures);
} finally {
  await stdio.close().catch(() => undefined);
  await http.close().catch(() => undefined);
  await httpServer?.close();
  await direct.close();
  await sb.close();
}
