#!/usr/bin/env node
/**
 * `company-data mcp --http` (the built CLI, its own process) under what a team serving it would meet (issue 30):
 *   nested    ten 4 MB bodies of JSON nested 2,000,000 deep (`[[[…]]]`) sent at once with the token (five with
 *             Content-Length, five chunked);
 *   wide      ten bodies just under the size limit that are valid JSON-RPC (a tools/call whose arguments hold
 *             one object per 3 bytes, the most objects a body of that size parses to), at once, on a session;
 *   sessions  --clients (150) official SDK clients in a row that never send DELETE (the SDK's close()).
 * For the two attacks: the server's peak RSS above what it used just before (VmHWM, reset through
 * /proc/<pid>/clear_refs before each; sampled VmRSS where that is not allowed), what RSS it keeps afterwards,
 * the answers, and how long a companies_get of an ordinary client sent right after the bodies took.
 * For the sessions: clients served, sessions open at most, and RSS after the cap was reached against after all
 * clients (the memory a session costs stays bounded: it does not grow with the clients that come and go).
 * Run: node bench/mcp-limits.bench.mjs [--clients 150] [--cli path/to/main.js (another build, e.g. before issue 30)]
 *   [--max-body 262144 (the size of the wide bodies: the limit of the build measured)]
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { buildIfStale } from '../e2e/lib/build.mjs';
import { arg, forkSandbox, peakRssMb, report, root, sleep, startMcpHttpProcess } from './support.mjs';

const CLIENTS = Number(arg('clients', 150));
const BODIES = 10;
const MiB = 1024 * 1024;

let mainJs = arg('cli');
if (!mainJs) {
  await buildIfStale(root, (m) => console.log(`[build] ${m}`));
  mainJs = join(root, 'packages', 'company-data', 'dist', 'cli', 'main.js');
}

/** @param {number | undefined} pid */
const rssMb = (pid) => Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;

/**
 * Starts a new peak: VmHWM is reset to the current RSS (Linux: "5" to clear_refs); false where not allowed.
 * @param {number | undefined} pid
 */
function resetPeak(pid) {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/**
 * One raw POST; resolves with the status (0 when the connection was cut before an answer).
 * @param {string} url
 * @param {Record<string, string>} headers
 * @param {Buffer[]} chunks sent one by one; with Content-Length when there is one chunk
 */
function post(url, headers, chunks) {
  const u = new URL(url);
  const whole = chunks.length === 1 ? { 'content-length': String(chunks[0].length) } : {};
  return new Promise((resolve) => {
    const req = request({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: { ...headers, ...whole } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(0));
    for (const c of chunks) req.write(c);
    req.end();
  });
}

/** @param {number[]} statuses */
const tally = (statuses) =>
  Object.entries(statuses.reduce((/** @type {Record<string, number>} */ t, s) => ((t[s] = (t[s] ?? 0) + 1), t), {}))
    .map(([s, n]) => `${n}x ${s || 'cut'}`)
    .join(', ');

const sb = await forkSandbox({ port: 0, seed: 1, companies: 2000, rateLimit: false });
const token = randomBytes(24).toString('base64url');
const server = await startMcpHttpProcess(mainJs, {
  COMPANY_DATA_BASE_URL: sb.url,
  COMPANY_DATA_API_KEY: sb.apiKey,
  COMPANY_DATA_MCP_TOKEN: token,
});
const auth = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` };
const transportOptions = { requestInit: { headers: { authorization: `Bearer ${token}` } } };

/** An SDK client of the server, connected. */
async function connect() {
  const client = new Client({ name: 'mcp-limits-bench', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url), transportOptions));
  return client;
}

/** @param {Client} client */
const getCompany = async (client) => {
  const r = await client.callTool({ name: 'companies_get', arguments: { registry_code: sb.codes[0] } });
  if (r.isError) throw new Error(`companies_get: ${JSON.stringify(r.content).slice(0, 200)}`);
};

/**
 * Sends `bodies` at once while an ordinary client asks for a company; figures of the server's memory.
 * @param {Client} client
 * @param {() => Promise<number>[]} send
 */
async function attack(client, send) {
  await getCompany(client);
  await sleep(500);
  const before = rssMb(server.pid);
  const peakReset = resetPeak(server.pid);
  let sampledPeak = before;
  const sampler = setInterval(() => (sampledPeak = Math.max(sampledPeak, rssMb(server.pid))), 10);
  const started = performance.now();
  const answers = send();
  // The next client: sent right after the bodies, answered when?
  await getCompany(client);
  const servedMs = performance.now() - started;
  const statuses = await Promise.all(answers);
  await sleep(3000); // refused bodies are drained for up to 2 s, then their connections closed
  clearInterval(sampler);
  const peak = peakReset ? peakRssMb(server.pid) : sampledPeak;
  const after = rssMb(server.pid);
  return {
    beforeMb: before,
    peakMb: peak,
    peakRiseMb: peak - before,
    afterMb: after,
    servedMs,
    statuses: tally(statuses),
    peakFrom: peakReset ? 'VmHWM' : 'sampled',
  };
}

try {
  const client = await connect();
  const baselineMb = rssMb(server.pid);

  // 1. Nested: 4 MB, 2,000,000 deep, each; half with Content-Length, half chunked in 64 KiB pieces.
  const nestedBody = Buffer.from(`${'['.repeat(2_000_000)}${']'.repeat(2_000_000)}`);
  const nestedChunks = Array.from({ length: Math.ceil(nestedBody.length / (64 * 1024)) }, (_, i) =>
    nestedBody.subarray(i * 64 * 1024, (i + 1) * 64 * 1024),
  );
  const nested = await attack(client, () =>
    Array.from({ length: BODIES }, (_, i) => post(server.url, auth, i % 2 ? [nestedBody] : nestedChunks)),
  );

  // 2. Wide: valid JSON-RPC just under the size limit on a session: arguments.x holds {} after {} (3 bytes each).
  const sessionClient = new StreamableHTTPClientTransport(new URL(server.url), transportOptions);
  const owner = new Client({ name: 'mcp-limits-bench-wide', version: '1' });
  await owner.connect(sessionClient);
  const head = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"companies_get","arguments":{"x":[';
  const n = Math.floor((Number(arg('max-body', 256 * 1024)) - head.length - 8) / 3);
  const wideBody = Buffer.from(`${head}${'{},'.repeat(n - 1)}{}]}}}`);
  const sessionHeaders = {
    ...auth,
    'mcp-session-id': String(sessionClient.sessionId),
    'mcp-protocol-version': String(sessionClient.protocolVersion),
  };
  const wide = await attack(client, () => Array.from({ length: BODIES }, () => post(server.url, sessionHeaders, [wideBody])));
  await owner.close();
  await client.close();

  // 3. Sessions: clients in a row, each connects, asks for a company and closes without DELETE.
  let served = 0;
  let refused = 0;
  let atCapMb = 0;
  const beforeClientsMb = rssMb(server.pid);
  for (let i = 0; i < CLIENTS; i++) {
    try {
      const c = await connect();
      await getCompany(c);
      await c.close();
      served++;
    } catch {
      refused++;
    }
    if (i === 99) atCapMb = rssMb(server.pid);
  }
  const mostOpen = Math.max(0, ...[...server.stderr().matchAll(/\((\d+) open\)/g)].map((m) => Number(m[1])));
  const sessionsMb = rssMb(server.pid);

  const figures = {
    baselineMb,
    nested_peakRiseMb: nested.peakRiseMb,
    nested_peakMb: nested.peakMb,
    nested_afterMb: nested.afterMb,
    nested_servedMs: nested.servedMs,
    nested_statuses: nested.statuses,
    wide_bodyBytes: wideBody.length,
    wide_objects: n,
    wide_peakRiseMb: wide.peakRiseMb,
    wide_peakMb: wide.peakMb,
    wide_afterMb: wide.afterMb,
    wide_servedMs: wide.servedMs,
    wide_statuses: wide.statuses,
    peakFrom: nested.peakFrom,
    clients: CLIENTS,
    clientsServed: served,
    clientsRefused: refused,
    sessionsOpenAtMost: mostOpen,
    rssBeforeClientsMb: beforeClientsMb,
    rssAfter100ClientsMb: atCapMb,
    perSessionKb: ((atCapMb - beforeClientsMb) * 1024) / 100,
    rssAfterAllClientsMb: sessionsMb,
  };
  const f0 = (/** @type {number} */ x) => x.toFixed(0);
  console.log(`mcp --http limits (${mainJs}); server RSS at start ${f0(baselineMb)} MiB; peaks from ${nested.peakFrom}`);
  for (const [label, r] of [
    [`${BODIES} x 4 MB nested bodies at once`, nested],
    [`${BODIES} x ${(wideBody.length / MiB).toFixed(2)} MiB valid JSON-RPC, ${n} objects each, at once`, wide],
  ]) {
    const a = /** @type {typeof nested} */ (r);
    console.log(
      `  ${label}: peak +${f0(a.peakRiseMb)} MiB (${f0(a.beforeMb)} -> ${f0(a.peakMb)}), ${f0(a.afterMb)} MiB after; answers ${a.statuses}; next client served in ${f0(a.servedMs)} ms`,
    );
  }
  console.log(
    `  ${CLIENTS} clients in a row without DELETE: ${served} served, ${refused} refused; at most ${mostOpen} sessions open; RSS ${f0(beforeClientsMb)} MiB before, ${f0(atCapMb)} after 100 clients (${f0(figures.perSessionKb)} KiB a session), ${f0(sessionsMb)} after ${CLIENTS}`,
  );
  report('mcp-limits', figures);
} finally {
  await server.close();
  await sb.close();
}
