#!/usr/bin/env node
// `company-data mcp` driven by the official MCP Inspector (@modelcontextprotocol/inspector, pinned in
// e2e/inspector, run in its command-line mode under the e2e's Node 24), the client people use to try a
// server before giving it to an assistant. Over stdio, offline (no key: the in-process sandbox) and
// against a sandbox with a key; over Streamable HTTP with the bearer token. The server runs under this
// machine's Node from the built packages/company-data/dist. The API key and the token never appear in anything
// the Inspector prints.
// Usage: node e2e/mcp-inspector.mjs. Prints "N passed, N failed"; exits 1 when a check failed.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildIfStale } from './lib/build.mjs';
import { assert, assertEqual, checkRun, waitFor } from './lib/checks.mjs';
import { ensureInspector, runInspector } from './lib/inspector.mjs';
import { startSandboxCli } from './lib/sandbox.mjs';

/** @typedef {import('./lib/inspector.mjs').InspectorRun} InspectorRun */
/** @typedef {import('./lib/inspector.mjs').McpResult} McpResult */

/**
 * Inspector arguments of one tools/call: the target's arguments, the tool, and each key=value argument.
 * @param {string[]} target
 * @param {string} name
 * @param {...string} args
 */
const toolCall = (target, name, ...args) => [
  ...target,
  '--method',
  'tools/call',
  '--tool-name',
  name,
  ...args.flatMap((a) => ['--tool-arg', a]),
];

const repoDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const mainJs = path.join(repoDir, 'packages', 'company-data', 'dist', 'cli', 'main.js');
const { log, check, cleanups, finish } = checkRun();

// A key or URL in the caller's environment would turn the offline leg into an online one.
for (const name of ['COMPANY_DATA_BASE_URL', 'COMPANY_DATA_API_KEY', 'COMPANY_DATA_MCP_TOKEN']) delete process.env[name];

/** The tools every assistant needs to find a company; the rest come from the operation table. */
const CORE_TOOLS = ['companies_get', 'companies_search', 'companies_lookup'];

/** Everything one Inspector run printed, for the secret checks at the end. */
/** @type {string[]} */
const printed = [];

/** The stdio server as the Inspector starts it: this machine's Node (an absolute path) and the built CLI. */
const stdioTarget = (/** @type {Record<string, string>} */ env = {}) => [
  ...Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]),
  process.execPath,
  mainJs,
  'mcp',
];

/**
 * @param {import('./lib/inspector.mjs').Inspector} inspector
 * @param {string[]} args
 */
async function inspect(inspector, args) {
  const r = await runInspector(inspector, args, { cwd: repoDir });
  printed.push(r.stdout, r.stderr);
  return r;
}

/**
 * The Inspector's answer to a successful request; otherwise an error that shows what it said.
 * @param {InspectorRun} r
 * @param {string} what
 * @returns {McpResult}
 */
function resultOf(r, what) {
  assert(
    r.code === 0 && r.json?.result,
    `${what}: the Inspector exited ${r.code}\nstdout: ${r.stdout.slice(0, 1500)}\nstderr: ${r.stderr.slice(-1500)}`,
  );
  return r.json.result;
}

/** @param {McpResult} result */
function checkToolList(result) {
  const tools = result.tools;
  assert(Array.isArray(tools) && tools.length > 0, `tools/list: no tools in ${JSON.stringify(result).slice(0, 300)}`);
  const names = tools.map((t) => t.name);
  const missing = CORE_TOOLS.filter((n) => !names.includes(n));
  assert(!missing.length, `tools/list lacks ${missing.join(', ')}; it has ${names.join(', ')}`);
  const dupes = names.filter((n, i) => names.indexOf(n) !== i);
  assert(!dupes.length, `tools/list names these more than once: ${dupes.join(', ')}`);
  const bad = tools.filter((t) => !t.description?.trim() || t.inputSchema?.type !== 'object').map((t) => t.name);
  assert(!bad.length, `tools without a description or an object inputSchema: ${bad.join(', ')}`);
  return names;
}

/**
 * The tool's JSON text block, parsed; and its structuredContent, which must say the same.
 * @param {McpResult} result
 * @param {string} what
 */
function answerOf(result, what) {
  assert(!result.isError, `${what}: tool error ${JSON.stringify(result.content).slice(0, 500)}`);
  const text = result.content?.find((c) => c.type === 'text')?.text;
  assert(text, `${what}: no text block in ${JSON.stringify(result).slice(0, 300)}`);
  const parsed = JSON.parse(text);
  assert(result.structuredContent, `${what}: no structuredContent`);
  assertEqual(parsed, result.structuredContent, `${what}: the text block and structuredContent`);
  return result.structuredContent;
}

/**
 * @param {McpResult} result
 * @param {{ registry_code: string, name: string }} expected
 * @param {string} what
 */
function checkCompany(result, expected, what) {
  const answer = answerOf(result, what);
  assert(
    Array.isArray(answer.items) && answer.items.length === 1,
    `${what}: expected one item, got ${JSON.stringify(answer).slice(0, 300)}`,
  );
  const company = answer.items[0];
  assertEqual(company.registry_code, expected.registry_code, `${what}: registry_code`);
  assertEqual(company.name, expected.name, `${what}: name`);
}

/**
 * `mcp --http` with the given env; resolves once it says where it listens.
 * @param {Record<string, string>} env
 */
async function startHttpServer(env) {
  const child = spawn(process.execPath, [mainJs, 'mcp', '--http', '--port', '0'], {
    cwd: repoDir,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stdout.on('data', (b) => (err += b));
  child.stderr.on('data', (b) => (err += b));
  const exited = new Promise((r) => child.once('exit', r));
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
  });
  const url = await waitFor(
    'the MCP server to listen',
    () => {
      if (child.exitCode !== null) throw new Error(`mcp --http exited ${child.exitCode}:\n${err}`);
      return /MCP server listening on (http:\/\/\S+\/mcp)/.exec(err)?.[1];
    },
    { timeoutMs: 60_000, everyMs: 100 },
  );
  return { url, output: () => err };
}

async function main() {
  log('company-data mcp through the official MCP Inspector (CLI mode)');
  await buildIfStale(repoDir, (m) => log(`[build] ${m}`));

  /** @type {import('./lib/inspector.mjs').Inspector | undefined} */
  let installed;
  await check('the MCP Inspector is installed (pinned in e2e/inspector, under Node 24)', async () => {
    const t0 = Date.now();
    const inspector = await ensureInspector((m) => log(`        [inspector] ${m}`));
    installed = inspector;
    log(`        @modelcontextprotocol/inspector ${inspector.version} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  });
  if (!installed) return;
  const inspector = installed;

  // The sandbox the online legs use, and the reference for what the offline server must answer: fixtures
  // come from the seed alone, so the in-process sandbox has the same companies under the same codes.
  const apiKey = `sk_test_${randomBytes(16).toString('hex')}`;
  const sandbox = await startSandboxCli({ repoDir, apiKey });
  cleanups.push(sandbox.stop);
  const fixtures = await sandbox.call('GET', '/sandbox/fixtures');
  const company = fixtures.companies.active;
  assert(company?.registry_code && company.name, `GET /sandbox/fixtures has no active company: ${JSON.stringify(fixtures).slice(0, 300)}`);
  const last = Number(company.registry_code.slice(-1));
  const wrongDigit = company.registry_code.slice(0, -1) + String((last + 1) % 10);
  log(`        reference: ${company.registry_code} is ${company.name} (GET /sandbox/fixtures); ${wrongDigit} has a wrong check digit`);

  // --- stdio, offline: no key anywhere, so the server starts its own sandbox.
  await check(
    'stdio, offline: tools/list has companies_get, _search and _lookup; every tool has a description and an object inputSchema',
    async () => {
      const r = await inspect(inspector, [...stdioTarget(), '--method', 'tools/list']);
      const names = checkToolList(resultOf(r, 'tools/list'));
      assert(
        /offline sandbox/i.test(r.stderr),
        `the server did not say it uses the offline sandbox; its stderr: ${r.stderr.slice(0, 500)}`,
      );
      log(`        ${names.length} tools`);
    },
  );
  await check("stdio: the tool schemas pass the Inspector's portability check (--strict: no error-severity problem)", async () => {
    const r = await inspect(inspector, ['--strict', ...stdioTarget(), '--method', 'tools/list']);
    assert(r.code === 0, `--strict exited ${r.code} (6: a schema problem of error severity):\n${r.stderr.slice(-3000)}`);
    const summary = /(\d+) errors?, (\d+) warnings?/.exec(r.stderr);
    if (summary) log(`        ${summary[0]}`);
  });
  await check(
    'stdio, offline: companies_get with registry_code as JSON text returns the company the sandbox has under that code',
    async () => {
      const r = await inspect(inspector, toolCall(stdioTarget(), 'companies_get', `registry_code="${company.registry_code}"`));
      checkCompany(resultOf(r, 'tools/call companies_get'), company, 'companies_get');
    },
  );
  await check(
    `stdio, offline: companies_get with registry_code=${company.registry_code} typed bare (the Inspector sends it as a number) returns the company`,
    async () => {
      const r = await inspect(inspector, toolCall(stdioTarget(), 'companies_get', `registry_code=${company.registry_code}`));
      checkCompany(resultOf(r, 'tools/call companies_get'), company, 'companies_get');
    },
  );
  await check(`stdio, offline: companies_get with a wrong check digit (${wrongDigit}) is a tool error that says check digit`, async () => {
    const r = await inspect(inspector, toolCall(stdioTarget(), 'companies_get', `registry_code="${wrongDigit}"`));
    // The Inspector prints the result and exits 5 (tool_is_error) when the tool says isError.
    assert(r.json?.result, `no result from the Inspector (exit ${r.code}): ${r.stdout.slice(0, 500)} ${r.stderr.slice(-500)}`);
    assert(r.json.result.isError === true, `expected isError, got ${JSON.stringify(r.json.result).slice(0, 500)}`);
    const text = r.json.result.content?.map((c) => c.text ?? '').join(' ') ?? '';
    assert(/check digit/i.test(text), `the error does not say check digit: ${text}`);
    assert(/registry_code/.test(text), `the error does not name the field registry_code: ${text}`);
    assert(r.code === 5, `the Inspector exited ${r.code}, not 5 (tool_is_error)`);
  });

  // --- stdio with a key: the server uses the sandbox above; the key goes in the server's environment.
  const online = { COMPANY_DATA_BASE_URL: sandbox.url, COMPANY_DATA_API_KEY: apiKey };
  const bankrupt = fixtures.companies.status_bankrupt;
  await check(
    `stdio, with an API key: company_due_diligence of the bankrupt ${bankrupt?.registry_code} ranks the status first, with its source, and bills nothing`,
    async () => {
      assert(bankrupt?.registry_code, 'GET /sandbox/fixtures has no status_bankrupt company');
      const r = await inspect(inspector, toolCall(stdioTarget(online), 'company_due_diligence', `company="${bankrupt.registry_code}"`));
      const result = resultOf(r, 'tools/call company_due_diligence');
      assert(!result.isError, `tool error: ${JSON.stringify(result.content).slice(0, 500)}`);
      const report = result.structuredContent;
      assertEqual(report?.registry_code, bankrupt.registry_code, 'company_due_diligence: registry_code');
      assertEqual(report.risk_level, 'high', 'company_due_diligence: risk_level');
      assertEqual(report.red_flags[0]?.code, 'status_bankrupt', 'company_due_diligence: the first red flag');
      assertEqual(report.red_flags[0]?.source, 'companies_get', 'company_due_diligence: its source');
      assertEqual(report.cost?.billed_queries, 0, 'company_due_diligence: billed queries');
      const text = result.content?.find((c) => c.type === 'text')?.text ?? '';
      assert(/^Due diligence: .*\nRisk: HIGH/.test(text), `the text does not open with the company and the verdict: ${text.slice(0, 300)}`);
    },
  );
  await check(
    'stdio, with an API key: companies_get answers from the service (the server does not fall back to its own sandbox)',
    async () => {
      const r = await inspect(inspector, toolCall(stdioTarget(online), 'companies_get', `registry_code="${company.registry_code}"`));
      checkCompany(resultOf(r, 'tools/call companies_get'), company, 'companies_get');
      assert(!/offline sandbox/i.test(r.stderr), `the server says offline sandbox although it has a key: ${r.stderr.slice(0, 500)}`);
    },
  );
  const wrongKey = `sk_test_${randomBytes(16).toString('hex')}`;
  await check('stdio, with a wrong API key: companies_get is a tool error about the key, which it does not repeat', async () => {
    const target = stdioTarget({ ...online, COMPANY_DATA_API_KEY: wrongKey });
    const r = await inspect(inspector, toolCall(target, 'companies_get', `registry_code="${company.registry_code}"`));
    assert(r.json?.result?.isError === true, `expected a tool error, got (exit ${r.code}) ${r.stdout.slice(0, 500)}`);
    const text = r.json.result.content?.map((c) => c.text ?? '').join(' ') ?? '';
    assert(/key|auth/i.test(text), `the error does not mention the key or authentication: ${text}`);
    assert(!(r.stdout + r.stderr).includes(wrongKey), 'the wrong API key appears in the Inspector output');
  });

  // --- Streamable HTTP with a bearer token.
  const token = `mcp_${randomBytes(24).toString('base64url')}`;
  const server = await startHttpServer({ ...online, COMPANY_DATA_MCP_TOKEN: token });
  const bearer = ['--header', `Authorization: Bearer ${token}`];
  const http = ['--transport', 'http', '--server-url', server.url];
  await check('HTTP: tools/list with the bearer token lists the tools', async () => {
    const r = await inspect(inspector, [...http, ...bearer, '--method', 'tools/list']);
    checkToolList(resultOf(r, 'tools/list over HTTP'));
  });
  await check('HTTP: companies_get with the bearer token returns the company', async () => {
    const r = await inspect(inspector, toolCall([...http, ...bearer], 'companies_get', `registry_code="${company.registry_code}"`));
    checkCompany(resultOf(r, 'tools/call companies_get over HTTP'), company, 'companies_get over HTTP');
  });
  for (const [what, headers] of /** @type {[string, string[]][]} */ ([
    ['without a token', []],
    ['with a wrong token', ['--header', `Authorization: Bearer ${randomBytes(24).toString('base64url')}`]],
  ])) {
    await check(`HTTP: tools/list ${what} is refused (no tools, the Inspector fails)`, async () => {
      const r = await inspect(inspector, [...http, ...headers, '--method', 'tools/list']);
      assert(r.code !== 0 && !r.json?.result, `expected a refusal, got exit ${r.code}: ${r.stdout.slice(0, 300)}`);
      assert(
        /401|unauthori[sz]ed|auth/i.test(r.stdout + r.stderr),
        `the Inspector's error does not say why: ${r.stdout.slice(0, 300)} ${r.stderr.slice(-300)}`,
      );
    });
  }

  await check('the API key and the HTTP token appear in nothing the Inspector printed, nor in the HTTP server log', async () => {
    const all = printed.join('\n');
    assert(printed.length > 0, 'no Inspector output recorded');
    assert(!all.includes(apiKey), 'the API key appears in the Inspector output');
    assert(!all.includes(token), 'the MCP token appears in the Inspector output');
    assert(!server.output().includes(apiKey) && !server.output().includes(token), 'a secret appears in the HTTP server log');
  });
}

await finish(main);
