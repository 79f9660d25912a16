/**
 * Shared pieces of the *.bench.mjs files. Like bench/sandbox.bench.mjs they need no build: TypeScript
 * sources are bundled with esbuild on the fly. Bundles go to node_modules/.cache so the one package kept
 * external (n8n-workflow, the nodes' peer, as in tsup.config.ts) resolves from the repository.
 */
import { execFile, fork, spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(fileURLToPath(import.meta.url), '../..');
const cacheDir = join(root, 'node_modules/.cache/company-data-bench');
const require = createRequire(import.meta.url);

/**
 * Bundles `source` (TypeScript, imports relative to the repository root) and returns the file.
 * @param {string} name
 * @param {string} source
 */
export async function bundleFile(name, source) {
  const { build } = await import('esbuild');
  mkdirSync(cacheDir, { recursive: true });
  const outfile = join(cacheDir, `${name}.cjs`);
  await build({
    stdin: { contents: source, resolveDir: root, loader: 'ts', sourcefile: `${name}.ts` },
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    outfile,
    external: ['n8n-workflow'],
    logLevel: 'error',
  });
  return outfile;
}

/**
 * Bundles and loads `source` in this process.
 * @param {string} name
 * @param {string} source
 * @returns {Promise<any>} the bundle's exports (any: the benchmarks' TypeScript is bundled, not type-checked from here)
 */
export async function load(name, source) {
  return require(await bundleFile(name, source));
}

/**
 * The value after `--name` on the command line, else `def`.
 * @template [D=undefined]
 * @param {string} name
 * @param {D} [def]
 * @returns {string | D}
 */
export const arg = (name, def) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : /** @type {D} */ (def);
};

/**
 * Prints one machine-readable line the runner collects: figures keyed by a stable id.
 * @param {string} bench
 * @param {object} figures
 */
export function report(bench, figures) {
  process.stdout.write(`BENCH_RESULT ${JSON.stringify({ bench, figures })}\n`);
}

/**
 * Peak resident set of a live process, MiB (Linux: VmHWM).
 * @param {number | null | undefined} pid
 */
export function peakRssMb(pid) {
  const m = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no VmHWM for process ${pid}`);
  return Number(m[1]) / 1024;
}

/**
 * The built CLI (packages/company-data/dist/cli/main.js) as users run it, with only the RSS hook preloaded:
 * resolves with what it printed, its wall time from process start to exit and its peak RSS.
 * @param {string[]} args
 * @param {Record<string, string>} env added to this process's
 * @param {string} rssFile where the hook writes the peak RSS
 * @returns {Promise<{ stdout: string, stderr: string, seconds: number, maxRssMb: number }>}
 */
export async function runCliWithRss(args, env, rssFile) {
  const t0 = performance.now();
  const { stdout, stderr } = await new Promise((resolve, reject) =>
    execFile(
      process.execPath,
      ['--require', join(root, 'bench', 'rss-hook.cjs'), join(root, 'packages', 'company-data', 'dist', 'cli', 'main.js'), ...args],
      { env: { ...process.env, ...env, BENCH_RSS_FILE: rssFile }, maxBuffer: 16 << 20 },
      (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stdout}\n${stderr}`)) : resolve({ stdout, stderr })),
    ),
  );
  const seconds = (performance.now() - t0) / 1000;
  return { stdout, stderr, seconds, maxRssMb: JSON.parse(readFileSync(rssFile, 'utf8')).maxRssMb };
}

/**
 * `<mainJs> mcp --http --port 0` (the built CLI, or another build of it); resolves with its URL once it says
 * where it listens. stderr() is what it logged so far.
 * @param {string} mainJs
 * @param {Record<string, string>} env
 * @returns {Promise<{ url: string, pid: number | undefined, stderr: () => string, close: () => Promise<void> }>}
 */
export function startMcpHttpProcess(mainJs, env) {
  const child = spawn(process.execPath, [mainJs, 'mcp', '--http', '--port', '0'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`mcp --http did not listen within 60 s:\n${err}`)), 60_000);
    child.stderr.on('data', (b) => {
      err += b;
      const m = /MCP server listening on (http:\/\/\S+\/mcp)/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve({
          url: m[1],
          pid: child.pid,
          stderr: () => err,
          close: () =>
            /** @type {Promise<void>} */ (
              new Promise((r) => (child.exitCode !== null ? r() : (child.once('exit', () => r()), child.kill('SIGTERM'))))
            ),
        });
      }
    });
    child.once('exit', (code) => reject(new Error(`mcp --http exited ${code}:\n${err}`)));
  });
}

/**
 * The fields of n8n's IHttpRequestOptions the stand-in below honours.
 * @typedef {object} HttpRequestOptions
 * @property {string} url
 * @property {string} [baseURL]
 * @property {Record<string, unknown>} [qs]
 * @property {unknown} [body]
 * @property {string} [method]
 * @property {Record<string, string>} [headers]
 * @property {boolean} [disableFollowRedirect]
 * @property {number} [timeout]
 * @property {boolean} [ignoreHttpStatusErrors]
 * @property {string} [encoding]
 * @property {boolean} [json]
 * @property {boolean} [returnFullResponse]
 */

/**
 * n8n's httpRequest contract (returnFullResponse, ignoreHttpStatusErrors, encoding text, timeout) over fetch.
 * @param {HttpRequestOptions} o
 * @returns {Promise<any>} the answer (any, as n8n's own helper: each endpoint has its own JSON)
 */
export async function httpRequest(o) {
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
  if (!o.ignoreHttpStatusErrors && res.status >= 400)
    throw Object.assign(new Error(`Request failed with status code ${res.status}`), { httpCode: String(res.status) });
  const parsed = o.encoding === 'text' || o.json === false ? text : text ? JSON.parse(text) : undefined;
  return o.returnFullResponse ? { statusCode: res.status, headers: Object.fromEntries(res.headers), body: parsed } : parsed;
}

/**
 * n8n's httpRequestWithAuthentication with the credential's generic rule (X-API-Key, or Bearer).
 * @param {{ apiKey: string, authStyle?: string }} credentials
 */
export function n8nAuthenticated(credentials) {
  /**
   * @param {string} type
   * @param {HttpRequestOptions} o
   */
  return async (type, o) => {
    if (type !== 'companyDataApi') throw new Error(`unexpected credential ${type}`);
    /** @type {Record<string, string>} */
    const header =
      credentials.authStyle === 'bearer' ? { Authorization: `Bearer ${credentials.apiKey}` } : { 'X-API-Key': credentials.apiKey };
    return httpRequest({ ...o, headers: { ...o.headers, ...header } });
  };
}

/**
 * @param {number} ms
 * @returns {Promise<void>}
 */
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * @param {number[]} sorted ascending
 * @param {number} p 0..1
 */
export function quantile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

/**
 * Companies of the sandbox dataset as { code, vat }, in dataset order (no HTTP, no billing).
 * @param {{ companies: { code: string, vat?: string | null }[] }} dataset
 * @returns {{ code: string, vat: string | null }[]}
 */
export function realCompanies(dataset, max = 5000) {
  return dataset.companies.slice(0, max).map((c) => ({ code: c.code, vat: c.vat ?? null }));
}

/**
 * The large Google sheet of the benchmarks: n rows under the header `registry code, owner`, one distinct code
 * per 50 rows (sandbox companies, so every row matches and all output columns are filled), every fifth row
 * typed with spaces around the code.
 * @param {number} n
 * @param {{ code: string }[]} real realCompanies(...)
 * @returns {{ distinct: number, rows: string[][] }}
 */
export function benchSheet(n, real) {
  const distinct = Math.max(1, Math.round(n / 50));
  const codes = real.slice(0, distinct).map((c) => c.code);
  const rows = [['registry code', 'owner']];
  for (let i = 0; i < n; i++) {
    const c = codes[(i * 7919) % codes.length];
    rows.push([i % 5 === 3 ? ` ${c} ` : c, `owner ${i % 50}`]);
  }
  return { distinct, rows };
}

/**
 * A sandbox in a child process (its own core), so a benchmark's client and server do not share one
 * event loop. Returns { url, apiKey, info, billed, close }; billed() reads the key's billed lookup queries
 * from the sandbox's GET /usage.
 * @param {Record<string, unknown>} opts startSandbox's options (sent to the child as JSON)
 */
export async function forkSandbox(opts) {
  const bundle = await bundleFile('sandbox', "export { startSandbox } from './packages/company-data/src/sandbox';");
  const child = fork(fileURLToPath(import.meta.url), ['serve-sandbox', bundle, JSON.stringify(opts)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  /** @type {{ url: string, apiKey: string, codes: string[] }} */
  const info = await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`sandbox child exited with ${code}`)));
  });
  return {
    ...info,
    billed: async () =>
      /** @type {{ data: { billed_lookup_queries: number } }} */ (
        await (await fetch(`${info.url}/usage`, { headers: { 'x-api-key': info.apiKey } })).json()
      ).data.billed_lookup_queries,
    close: () =>
      new Promise((r) => {
        child.once('exit', r);
        child.send('stop');
      }),
  };
}

if (process.argv[2] === 'serve-sandbox') {
  const { startSandbox } = require(process.argv[3]);
  const sb = await startSandbox(JSON.parse(process.argv[4]));
  process.send?.({
    url: sb.url,
    apiKey: sb.apiKey,
    codes: sb.dataset.companies.slice(0, 1000).map((/** @type {{ code: string }} */ c) => c.code),
  });
  process.on('message', async () => {
    await sb.close();
    process.exit(0);
  });
}
