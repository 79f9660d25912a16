// Starts a real n8n (Node 24, from the cached runtime) with one community package loaded, an owner
// set up through env, and a public-API key; plus small helpers over its REST and public API.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { packPackageCached, removePackCache, unpackTarball } from './pack.mjs';
import { ensureRuntime, ms } from './runtime.mjs';

/** @typedef {import('./runtime.mjs').RuntimePaths} RuntimePaths */
/** @typedef {{ code: number | null, signal: NodeJS.Signals | null, error?: Error }} Exit */
/** @typedef {{ baseUrl: string, cookie: string }} RestTarget the internal REST API's address and login */
/** @typedef {{ baseUrl: string, apiKey: string }} ApiTarget the public API's address and key */
/** @typedef {Awaited<ReturnType<typeof startN8n>>} N8n */
/** @typedef {ReturnType<typeof spawnN8n>} N8nProc */
/**
 * An execution as the public API returns it (the fields the checks read). data: any, as run data differs
 * per node type (and is there only with includeData).
 * @typedef {{ id: string, status: string, finished?: boolean, data?: any }} Execution
 */
/** @typedef {{ id: string, name: string, [field: string]: unknown }} Stored a stored workflow or credential */
/** @typedef {{ name: string, value: string, url?: string }} ListOption */

const OWNER = { email: 'owner@e2e.local', firstName: 'E2E', lastName: 'Owner' };
const LOG_LINES_KEPT = 2000;

/**
 * A TCP port that was free a moment ago on 127.0.0.1.
 * @returns {Promise<number>}
 */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (srv.address());
      srv.close(() => resolve(port));
    });
  });
}

/*
 * Starts n8n and returns { baseUrl, apiKey, cookie, owner, userFolder, logs, stop(), ... }.
 * packageDir: a folder with package.json (name n8n-nodes-*) and dist/. It is packed with npm pack and
 * the tarball unpacked into <userFolder>/.n8n/nodes/node_modules/<name>, as n8n's community package
 * installer does, so n8n loads exactly what would be published ('symlink' links the folder instead).
 * The tarball is packed once per process while dist/ and package.json are unchanged; each user folder
 * gets its own unpack.
 * owner: { email, password, firstName, lastName } overrides the generated login.
 */
/**
 * @param {{ userFolder?: string, port?: number, brokerPort?: number, packageDir?: string, link?: 'pack' | 'symlink',
 *   env?: Record<string, string>, owner?: { email?: string, password?: string, firstName?: string, lastName?: string },
 *   runtime?: RuntimePaths, readyTimeoutMs?: number, log?: (m: string) => unknown }} [opts]
 */
export async function startN8n({
  userFolder,
  port,
  brokerPort,
  packageDir,
  link = 'pack',
  env = {},
  owner: ownerIn = {},
  runtime,
  readyTimeoutMs = 180_000,
  log = (m) => process.stderr.write(`[n8n] ${m}\n`),
} = {}) {
  const t0 = Date.now();
  runtime ??= await ensureRuntime();
  const ownsFolder = !userFolder;
  userFolder ??= fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-e2e-'));
  if (ownsFolder) tempFolders.add(userFolder);
  fs.mkdirSync(userFolder, { recursive: true });
  port ??= await freePort();
  brokerPort ??= await freePort();
  const packageName = packageDir ? installPackage(userFolder, packageDir, link) : undefined;

  // Random unless given (e.g. a demo login): fresh per instance and never logged.
  const owner = { ...OWNER, password: `E2e-${randomBytes(12).toString('hex')}`, ...ownerIn };
  const bcrypt = createRequire(path.join(runtime.n8nDir, 'package.json'))('bcryptjs');
  const baseUrl = `http://127.0.0.1:${port}`;
  const childEnv = {
    ...parentEnv(),
    ...n8nEnv({ userFolder, port, brokerPort, baseUrl }),
    N8N_INSTANCE_OWNER_MANAGED_BY_ENV: 'true',
    N8N_INSTANCE_OWNER_EMAIL: owner.email,
    N8N_INSTANCE_OWNER_FIRST_NAME: owner.firstName,
    N8N_INSTANCE_OWNER_LAST_NAME: owner.lastName,
    N8N_INSTANCE_OWNER_PASSWORD_HASH: bcrypt.hashSync(owner.password, 10),
    ...env,
  };
  const logFile = path.join(userFolder, 'n8n.log');
  const proc = spawnN8n(runtime, ['start'], { env: childEnv, cwd: userFolder, logFile });
  log(`starting n8n on ${baseUrl} (user folder ${userFolder}, log ${logFile})`);

  /** @param {{ keepUserFolder?: boolean }} [opts] */
  const stop = async ({ keepUserFolder = !ownsFolder } = {}) => {
    await proc.stop();
    // Kept folders (asked for, or after a failed start: n8n.log) are left for the caller.
    tempFolders.delete(userFolder);
    if (!keepUserFolder) fs.rmSync(userFolder, { recursive: true, force: true });
  };
  try {
    await waitReady(baseUrl, proc, readyTimeoutMs);
    const tReady = ms(t0);
    const cookie = await login(baseUrl, owner.email, owner.password);
    const apiKey = await createApiKey(baseUrl, cookie);
    // Readiness comes before community packages are registered: creating a credential of the
    // package's type right away fails with "req.body.type is not a known type".
    if (packageName) await waitForPackageTypes({ baseUrl, cookie }, packageName, proc.logs, readyTimeoutMs);
    log(`ready in ${tReady}, owner logged in and API key created (${ms(t0)})`);
    const n8n = {
      baseUrl,
      port,
      brokerPort,
      userFolder,
      packageName,
      apiKey,
      cookie,
      owner,
      runtime,
      env: childEnv,
      logs: proc.logs,
      logText: () => proc.logs.join('\n'),
      pid: proc.child.pid,
      exited: proc.exited,
      stop,
    };
    return n8n;
  } catch (err) {
    if (err instanceof Error) err.message += `\n--- last n8n log lines ---\n${proc.logs.slice(-40).join('\n')}`;
    await stop({ keepUserFolder: true });
    throw err;
  }
}

/**
 * The caller's environment without test-runner settings: under vitest (NODE_ENV=test, the
 * worker's NODE_OPTIONS, VITEST*) n8n exits at start.
 */
function parentEnv() {
  /** @type {NodeJS.ProcessEnv} */
  const env = { ...process.env, NODE_ENV: 'production' };
  for (const k of Object.keys(env)) {
    if (k === 'NODE_OPTIONS' || k === 'TEST' || /^(VITEST|JEST_|npm_)/.test(k)) delete env[k];
  }
  return env;
}

/**
 * Settings shared by the server and `n8n execute` runs beside it.
 * @param {{ userFolder: string, port: number, brokerPort: number, baseUrl: string }} where
 */
function n8nEnv({ userFolder, port, brokerPort, baseUrl }) {
  return {
    N8N_USER_FOLDER: userFolder,
    N8N_PORT: String(port),
    N8N_LISTEN_ADDRESS: '127.0.0.1',
    N8N_HOST: '127.0.0.1',
    N8N_PROTOCOL: 'http',
    N8N_WEBHOOK_URL: `${baseUrl}/`,
    N8N_EDITOR_BASE_URL: `${baseUrl}/`,
    // Each process hosts its own task-runner broker; two on one port cannot both start.
    N8N_RUNNERS_BROKER_PORT: String(brokerPort),
    N8N_SECURE_COOKIE: 'false',
    N8N_DIAGNOSTICS_ENABLED: 'false',
    N8N_PERSONALIZATION_ENABLED: 'false',
    N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
    N8N_TEMPLATES_ENABLED: 'false',
    N8N_DYNAMIC_BANNERS_ENABLED: 'false',
    N8N_HIRING_BANNER_ENABLED: 'false',
    N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
    // Our nodes call the sandbox on 127.0.0.1; keep the (default-off) SSRF guard off explicitly.
    N8N_SSRF_PROTECTION_ENABLED: 'false',
    EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'all',
    EXECUTIONS_DATA_SAVE_ON_ERROR: 'all',
    EXECUTIONS_DATA_SAVE_MANUAL_EXECUTIONS: 'true',
    N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '5',
    N8N_LOG_LEVEL: process.env.N8N_LOG_LEVEL || 'info',
    N8N_LOG_OUTPUT: 'console',
    DB_TYPE: 'sqlite',
  };
}

/**
 * @param {string} userFolder
 * @param {string} packageDir
 * @param {'pack' | 'symlink'} link
 * @returns {string} the package's name
 */
function installPackage(userFolder, packageDir, link) {
  const pkg = JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8'));
  // n8n only scans node_modules/n8n-nodes-* and @scope/n8n-nodes-* for community packages.
  if (!/^(@[^/]+\/)?n8n-nodes-/.test(pkg.name ?? '')) {
    throw new Error(`packageDir package.json: name "${pkg.name}" must start with n8n-nodes- for n8n to load it`);
  }
  if (!fs.existsSync(path.join(packageDir, 'dist'))) {
    throw new Error(`packageDir ${packageDir}: dist/ is missing (build the package first)`);
  }
  const target = path.join(userFolder, '.n8n', 'nodes', 'node_modules', pkg.name);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.rmSync(target, { recursive: true, force: true });
  if (link === 'pack') {
    // The unpacked tarball resolves require('n8n-workflow') through n8n's own tree, as a real install
    // does; a symlink resolves from the package's real path and may pick up the repo's dev copy instead.
    unpackTarball(packPackageCached(packageDir).file, target);
  } else if (link === 'symlink') {
    fs.symlinkSync(path.resolve(packageDir), target, 'dir');
  } else {
    throw new Error(`link: '${link}' is not 'pack' or 'symlink'`);
  }
  return pkg.name;
}

/**
 * Spawns the n8n CLI under Node 24 in its own process group, keeping a tail of its output.
 * @param {Pick<RuntimePaths, 'nodeBin' | 'n8nBin'>} runtime
 * @param {string[]} args
 * @param {{ env: Record<string, string | undefined>, cwd?: string, logFile?: string, keepStdout?: boolean }} opts
 */
function spawnN8n(runtime, args, { env, cwd, logFile, keepStdout = false }) {
  const child = spawn(runtime.nodeBin, [runtime.n8nBin, ...args], {
    cwd,
    env: { ...env, PATH: `${path.dirname(runtime.nodeBin)}${path.delimiter}${env.PATH ?? ''}` },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  /** @type {string[]} */
  const logs = [];
  const sink = logFile ? fs.createWriteStream(logFile, { flags: 'a' }) : undefined;
  let partial = '';
  /** @param {Buffer} b */
  const onData = (b) => {
    sink?.write(b);
    const lines = (partial + b.toString('utf8')).split('\n');
    partial = lines.pop() ?? '';
    logs.push(...lines);
    if (logs.length > LOG_LINES_KEPT) logs.splice(0, logs.length - LOG_LINES_KEPT);
  };
  /** @type {Buffer[]} */
  const stdout = [];
  child.stdout.on('data', (/** @type {Buffer} */ b) => {
    if (keepStdout) stdout.push(b);
    onData(b);
  });
  child.stderr.on('data', onData);
  if (child.pid) trackGroup(child.pid);
  /** @type {Promise<Exit>} */
  const exited = new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      if (partial) logs.push(partial);
      resolve({ code, signal });
    });
    child.on('error', (error) => resolve({ code: null, signal: null, error }));
  });
  exited.then(() => sink?.end());
  /** @type {Promise<Exit> | undefined} */
  let stopping;
  const stop = (graceMs = 15_000) =>
    (stopping ??= (async () => {
      if (child.exitCode !== null || child.signalCode !== null) {
        // n8n itself is gone; its task runners may not be.
        killGroup(child.pid, 'SIGKILL');
        if (child.pid !== undefined) liveGroups.delete(child.pid);
        return exited;
      }
      // The group includes n8n's task-runner children.
      killGroup(child.pid, 'SIGTERM');
      const timer = setTimeout(() => killGroup(child.pid, 'SIGKILL'), graceMs);
      const res = await exited;
      clearTimeout(timer);
      killGroup(child.pid, 'SIGKILL');
      if (child.pid !== undefined) liveGroups.delete(child.pid);
      return res;
    })());
  return { child, logs, exited, stop, stdout: () => Buffer.concat(stdout).toString('utf8') };
}

// n8n runs in its own process group (so stop() reaches its task runners); without this, an
// interrupted test run would leave it running.
/** @type {Set<number>} */
const liveGroups = new Set();
// Temp user folders created here, removed on exit even when stop() never ran.
/** @type {Set<string>} */
const tempFolders = new Set();
let cleanupInstalled = false;
function cleanupNow() {
  for (const g of liveGroups) killGroup(g, 'SIGKILL');
  for (const d of tempFolders) fs.rmSync(d, { recursive: true, force: true });
  removePackCache();
}
/** @param {number} pid */
function trackGroup(pid) {
  liveGroups.add(pid);
  if (cleanupInstalled) return;
  cleanupInstalled = true;
  process.on('exit', cleanupNow);
  for (const sig of /** @type {const} */ (['SIGINT', 'SIGTERM', 'SIGHUP'])) {
    if (process.listenerCount(sig) > 0) continue;
    process.once(sig, () => {
      cleanupNow();
      process.kill(process.pid, sig);
    });
  }
}

/**
 * @param {number | undefined} pid
 * @param {NodeJS.Signals} signal
 */
function killGroup(pid, signal) {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

/**
 * @param {string} baseUrl
 * @param {{ exited: Promise<Exit> }} proc
 * @param {number} timeoutMs
 */
async function waitReady(baseUrl, proc, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  /** @type {Exit | undefined} */
  let exitInfo;
  proc.exited.then((r) => (exitInfo = r));
  while (Date.now() < deadline) {
    if (exitInfo) throw new Error(`n8n exited before it was ready (code ${exitInfo.code}, signal ${exitInfo.signal})`);
    try {
      const res = await fetch(`${baseUrl}/healthz/readiness`, { signal: AbortSignal.timeout(2000) });
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await sleep(250);
  }
  throw new Error(`n8n did not answer /healthz/readiness within ${timeoutMs / 1000} s`);
}

/**
 * @param {string} baseUrl
 * @param {string} email
 * @param {string} password
 * @returns {Promise<string>} the auth cookie (name=value)
 */
async function login(baseUrl, email, password) {
  const res = await fetch(`${baseUrl}/rest/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ emailOrLdapLoginId: email, password }),
  });
  if (!res.ok) throw new Error(`POST /rest/login: HTTP ${res.status} ${await res.text()}`);
  const auth = res.headers.getSetCookie().find((c) => c.startsWith('n8n-auth='));
  if (!auth) throw new Error('POST /rest/login: no n8n-auth cookie in the answer');
  return auth.split(';')[0];
}

/**
 * @param {string} baseUrl
 * @param {string} cookie
 * @returns {Promise<string>}
 */
async function createApiKey(baseUrl, cookie) {
  // Ask which scopes the owner may grant instead of hard-coding a list that changes between versions.
  const scopes = unwrap(await rest({ baseUrl, cookie }, 'GET', '/api-keys/scopes'));
  const created = unwrap(await rest({ baseUrl, cookie }, 'POST', '/api-keys', { label: `e2e-${Date.now()}`, scopes, expiresAt: null }));
  if (!created.rawApiKey) throw new Error('POST /rest/api-keys: no rawApiKey in the answer');
  return created.rawApiKey;
}

/** @param {any} body n8n's REST JSON, with or without its { data } envelope (any: untyped answers) */
const unwrap = (body) => (body && typeof body === 'object' && 'data' in body ? body.data : body);

/**
 * @param {string} url
 * @param {string} method
 * @param {Record<string, string>} headers
 * @param {unknown} body sent as JSON unless undefined
 * @param {string} what the path named in errors
 * @returns {Promise<any>} the parsed answer (any: n8n's answers are untyped; callers read the fields they check)
 */
async function call(url, method, headers, body, what) {
  const res = await fetch(url, {
    method,
    headers: { accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${what}: HTTP ${res.status} ${text.slice(0, 500)}`);
  return text ? JSON.parse(text) : undefined;
}

/**
 * Internal REST API (cookie auth), as the editor uses it; the answer as n8n sends it.
 * @param {RestTarget} n8n
 * @param {string} method
 * @param {string} p path under /rest
 * @param {unknown} [body]
 */
export function rest(n8n, method, p, body) {
  return call(`${n8n.baseUrl}/rest${p}`, method, { cookie: n8n.cookie }, body, `/rest${p}`);
}

/**
 * @typedef {object} DynamicParametersRequest
 * @property {{ type: string, version: number, parameters: Record<string, unknown> }} node
 * @property {string} credentialType
 * @property {{ id: string, name: string }} credential
 * @property {string} path
 * @property {string} methodName
 * @property {string} [filter]
 * @property {string} [paginationToken]
 */

/**
 * A request of the editor's dynamic-parameters controller: n8n runs the named method of the node.
 * @param {RestTarget} n8n
 * @param {string} endpoint
 * @param {DynamicParametersRequest} request
 */
async function dynamicParameters(n8n, endpoint, { node, credentialType, credential, path, methodName, ...more }) {
  return unwrap(
    await rest(n8n, 'POST', `/dynamic-node-parameters/${endpoint}`, {
      path,
      methodName,
      nodeTypeAndVersion: { name: node.type, version: node.version },
      currentNodeParameters: node.parameters,
      credentials: { [credentialType]: { id: credential.id, name: credential.name } },
      ...Object.fromEntries(Object.entries(more).filter(([, v]) => v !== undefined)),
    }),
  );
}

/**
 * What the editor asks when a resourceLocator's "From list" opens, its search box changes or the list is
 * scrolled to the end (listSearch with filter and paginationToken).
 * node: { type, version, parameters }; credential: { id, name } under the node's credential type.
 * @param {RestTarget} n8n
 * @param {DynamicParametersRequest} request
 * @returns {Promise<{ results: ListOption[], paginationToken?: string }>}
 */
export const resourceLocatorResults = (n8n, request) => dynamicParameters(n8n, 'resource-locator-results', request);

/**
 * What the editor asks to fill an option list with loadOptionsMethod.
 * @param {RestTarget} n8n
 * @param {DynamicParametersRequest} request
 * @returns {Promise<ListOption[]>}
 */
export const loadOptionsResults = (n8n, request) => dynamicParameters(n8n, 'options', request);

/**
 * Public API v1 (API-key auth).
 * @param {ApiTarget} n8n
 * @param {string} method
 * @param {string} p path under /api/v1
 * @param {unknown} [body]
 */
export function api(n8n, method, p, body) {
  return call(`${n8n.baseUrl}/api/v1${p}`, method, { 'x-n8n-api-key': n8n.apiKey }, body, `/api/v1${p}`);
}

/**
 * @param {RestTarget} n8n
 * @param {string} packageName
 * @param {string[]} logs n8n's output so far (read again on every poll)
 * @param {number} timeoutMs
 */
async function waitForPackageTypes(n8n, packageName, logs, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const failed = logs.find((l) => l.includes(`Failed to load package "${packageName}"`));
    if (failed) throw new Error(`n8n could not load ${packageName} (is dist/ complete and current?): ${failed.slice(0, 600)}`);
    const names = await nodeTypeNames(n8n).catch(() => /** @type {string[]} */ ([]));
    if (names.some((n) => n.startsWith(`${packageName}.`))) return;
    if (Date.now() > deadline) throw new Error(`n8n did not load node types of ${packageName} within ${timeoutMs / 1000} s`);
    await sleep(250);
  }
}

/**
 * Node type names n8n has loaded (the editor's own list).
 * @param {RestTarget} n8n
 * @returns {Promise<string[]>}
 */
export async function nodeTypeNames(n8n) {
  return (await nodeTypes(n8n)).map((t) => t.name);
}

/**
 * Node type descriptions n8n has loaded, as the editor gets them (one entry per version).
 * any: each node type's description has its own properties; callers read the fields they check.
 * @param {RestTarget} n8n
 * @returns {Promise<{ name: string, version: number | number[], properties: any[] }[]>}
 */
export function nodeTypes(n8n) {
  return call(`${n8n.baseUrl}/types/nodes.json`, 'GET', { cookie: n8n.cookie }, undefined, '/types/nodes.json');
}

// The public API rejects read-only fields (id, active, tags, meta, ...) on create.
const WORKFLOW_CREATE_FIELDS = ['name', 'nodes', 'connections', 'settings', 'staticData', 'pinData'];

/**
 * Creates a workflow from an exported/importable JSON; returns the stored workflow (with id).
 * @param {ApiTarget} n8n
 * @param {Record<string, unknown>} workflow
 * @returns {Promise<Stored>}
 */
export function createWorkflow(n8n, workflow) {
  /** @type {Record<string, unknown>} */
  const body = Object.fromEntries(WORKFLOW_CREATE_FIELDS.filter((k) => workflow[k] !== undefined).map((k) => [k, workflow[k]]));
  body.settings ??= {};
  body.connections ??= {};
  return api(n8n, 'POST', '/workflows', body);
}

/**
 * Creates a credential; returns { id, name, type, ... }. data is never echoed back by n8n.
 * @param {ApiTarget} n8n
 * @param {{ name: string, type: string, data: Record<string, unknown> }} credential
 * @returns {Promise<Stored & { type: string }>}
 */
export function createCredential(n8n, { name, type, data }) {
  return api(n8n, 'POST', '/credentials', { name, type, data });
}

/**
 * Publishes (n8n 1.x: activates) a workflow so its triggers and production webhooks go live.
 * @param {ApiTarget} n8n
 * @param {string} id
 */
export function publishWorkflow(n8n, id) {
  return api(n8n, 'POST', `/workflows/${id}/publish`, {});
}

/**
 * @param {ApiTarget} n8n
 * @param {string} id
 */
export function unpublishWorkflow(n8n, id) {
  return api(n8n, 'POST', `/workflows/${id}/unpublish`, {});
}

/**
 * Lists executions (newest first).
 * @param {ApiTarget} n8n
 * @param {{ workflowId?: string, status?: string, includeData?: boolean, limit?: number }} [opts]
 * @returns {Promise<Execution[]>}
 */
export async function listExecutions(n8n, { workflowId, status, includeData = false, limit = 100 } = {}) {
  const q = new URLSearchParams({ includeData: String(includeData), limit: String(limit) });
  if (workflowId) q.set('workflowId', workflowId);
  if (status) q.set('status', status);
  return (await api(n8n, 'GET', `/executions?${q}`)).data;
}

/**
 * @param {ApiTarget} n8n
 * @param {string} id
 * @param {{ includeData?: boolean }} [opts]
 * @returns {Promise<Execution>}
 */
export function getExecution(n8n, id, { includeData = true } = {}) {
  return api(n8n, 'GET', `/executions/${id}?includeData=${includeData}`);
}

/**
 * Waits until an execution has finished (any final status) and returns it with its data.
 * @param {ApiTarget} n8n
 * @param {string} id
 * @param {{ timeoutMs?: number }} [opts]
 * @returns {Promise<Execution>}
 */
export async function waitForExecution(n8n, id, { timeoutMs = 60_000 } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ex = await getExecution(n8n, id).catch((e) => (/HTTP 404/.test(e.message) ? undefined : Promise.reject(e)));
    if (ex && ex.finished !== undefined && ex.status && !['new', 'running', 'waiting'].includes(ex.status)) return ex;
    if (Date.now() > deadline) throw new Error(`execution ${id} did not finish within ${timeoutMs / 1000} s`);
    await sleep(200);
  }
}

/**
 * Runs a saved workflow inside the server, as the editor's "Execute workflow" does
 * (POST /rest/workflows/:id/run from the named trigger), and returns the finished execution.
 * @param {ApiTarget & RestTarget} n8n
 * @param {string} workflowId
 * @param {{ triggerName?: string, timeoutMs?: number }} [opts]
 */
export async function runManual(n8n, workflowId, { triggerName, timeoutMs } = {}) {
  if (!triggerName) {
    const wf = await api(n8n, 'GET', `/workflows/${workflowId}`);
    triggerName = wf.nodes.find((/** @type {{ type: string, name: string }} */ nd) =>
      /manualTrigger$|\.executeWorkflowTrigger$/.test(nd.type),
    )?.name;
    if (!triggerName) throw new Error(`workflow ${workflowId}: no Manual or Execute Workflow trigger to start from`);
  }
  const started = unwrap(await rest(n8n, 'POST', `/workflows/${workflowId}/run`, { triggerToStartFrom: { name: triggerName } }));
  if (!started?.executionId) throw new Error(`POST /rest/workflows/${workflowId}/run: no executionId (${JSON.stringify(started)})`);
  return waitForExecution(n8n, started.executionId, { timeoutMs });
}

/**
 * Runs a saved Manual-trigger workflow with `n8n execute --id` in a separate process beside the
 * server (own task-runner broker port). Returns the run data parsed from --rawOutput.
 * @param {Pick<N8n, 'runtime' | 'userFolder' | 'env'>} n8n
 * @param {string} workflowId
 * @param {{ timeoutMs?: number, env?: Record<string, string> }} [opts]
 */
export async function executeCli(n8n, workflowId, { timeoutMs = 120_000, env = {} } = {}) {
  const brokerPort = await freePort();
  const proc = spawnN8n(n8n.runtime, ['execute', `--id=${workflowId}`, '--rawOutput'], {
    cwd: n8n.userFolder,
    keepStdout: true,
    env: {
      ...n8n.env,
      N8N_RUNNERS_BROKER_PORT: String(brokerPort),
      // The default engine crashed at exit now and then (rc 139) in this mode; legacy did not.
      N8N_EXPRESSION_ENGINE: 'legacy',
      ...env,
    },
  });
  const timer = setTimeout(() => proc.stop(2000), timeoutMs);
  const { code, signal } = await proc.exited;
  clearTimeout(timer);
  await proc.stop();
  const stdout = proc.stdout();
  const result = parseTrailingJson(stdout);
  if (code !== 0 || result === undefined) {
    const why = code === 0 ? 'exit 0 without a complete JSON result' : (signal ?? `exit ${code}`);
    throw new Error(
      `n8n execute --id=${workflowId}: ${why}\n${proc.logs.slice(-30).join('\n')}\n--- stdout tail ---\n${stdout.slice(-300)}`,
    );
  }
  return result;
}

/**
 * --rawOutput still prints log lines (some starting with "[") before the pretty-printed JSON.
 * @param {string} out
 * @returns {any} the parsed JSON (any: n8n's run data is untyped), or undefined when there is none
 */
export function parseTrailingJson(out) {
  for (const m of out.matchAll(/^[[{]\s*$/gm)) {
    try {
      return JSON.parse(out.slice(m.index));
    } catch {
      // a log line that merely looks like the start of JSON
    }
  }
  return undefined;
}

/**
 * Polls a production webhook URL until it stops answering 404 (n8n registers it shortly after publishing).
 * @param {{ baseUrl: string }} n8n
 * @param {string} webhookPath
 * @param {{ method?: string, body?: unknown, headers?: Record<string, string>, timeoutMs?: number }} [opts]
 */
export async function callWebhook(n8n, webhookPath, { method = 'POST', body, headers = {}, timeoutMs = 30_000 } = {}) {
  const url = `${n8n.baseUrl}/webhook/${webhookPath.replace(/^\//, '')}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await fetch(url, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    if (res.status !== 404 || Date.now() > deadline) {
      const text = await res.text();
      /** @type {any} the answer's JSON when it is JSON (any: webhook answers are untyped) */
      let json;
      try {
        json = JSON.parse(text);
      } catch {
        // not JSON
      }
      return { status: res.status, headers: res.headers, text, json };
    }
    await res.arrayBuffer();
    await sleep(250);
  }
}

/**
 * @param {number} msec
 * @returns {Promise<void>}
 */
export const sleep = (msec) => new Promise((r) => setTimeout(r, msec));

/**
 * Building blocks of startN8n for scripts that start other n8n commands beside it (queue mode:
 * `n8n webhook`, `n8n worker`) with the same settings, process-group handling and cleanup.
 */
export const n8nProcess = { spawnN8n, waitReady, waitForPackageTypes };
