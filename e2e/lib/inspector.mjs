// The official MCP Inspector (@modelcontextprotocol/inspector, pinned in e2e/inspector), installed into the
// e2e cache on first use like n8n's scanner, and run in its command-line mode under the e2e's Node 24 (the
// Inspector needs Node >= 22.19; the machine's own Node is 20).
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { NODE_VERSION, acquireLock, cacheRoot, ensureRuntime, run } from './runtime.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const SPEC_DIR = path.resolve(here, '../inspector');
const SPEC_FILES = ['package.json', 'package-lock.json'];

/** @typedef {{ nodeBin: string, bin: string, dir: string, version: string }} Inspector */
/**
 * An MCP result as the Inspector prints it, the fields the checks read. structuredContent: any, as each
 * tool answers in its own shape.
 * @typedef {object} McpResult
 * @property {{ name: string, description?: string, inputSchema?: { type?: string } }[]} [tools] of tools/list
 * @property {boolean} [isError]
 * @property {{ type: string, text?: string }[]} [content]
 * @property {any} [structuredContent]
 */
/**
 * @typedef {object} InspectorRun
 * @property {number | null} code
 * @property {string} stdout
 * @property {string} stderr
 * @property {{ result?: McpResult, error?: { code?: number, message?: string } } | undefined} json stdout parsed
 * @property {number} ms
 */

function inspectorDir() {
  const hash = createHash('sha256');
  // The Node version that ran npm ci is part of the key: the install is only trusted for the runtime it was made with.
  hash.update(`node ${NODE_VERSION}\n`);
  for (const f of SPEC_FILES) hash.update(fs.readFileSync(path.join(SPEC_DIR, f)));
  return path.join(cacheRoot(), `inspector-${hash.digest('hex').slice(0, 16)}`);
}

/**
 * Node 24 for npm and the Inspector: its bin folder first on PATH, so `#!/usr/bin/env node` scripts get it too.
 * @param {string} nodeBin
 * @param {Record<string, string>} [extra]
 * @returns {NodeJS.ProcessEnv}
 */
function node24Env(nodeBin, extra = {}) {
  return {
    ...process.env,
    PATH: `${path.dirname(nodeBin)}${path.delimiter}${process.env.PATH}`,
    npm_config_update_notifier: 'false',
    ...extra,
  };
}

/**
 * Installs the pinned Inspector when the cache lacks it (npm ci under Node 24, so its engine range is
 * checked against the Node that runs it). Returns { nodeBin, bin, dir, version }.
 * @param {(m: string) => void} [log]
 * @returns {Promise<Inspector>}
 */
export async function ensureInspector(log = () => {}) {
  const { nodeBin } = await ensureRuntime({ log });
  const dir = inspectorDir();
  const stamp = path.join(dir, 'stamp');
  const bin = path.join(dir, 'node_modules', '@modelcontextprotocol', 'inspector', 'clients', 'launcher', 'build', 'index.js');
  const found = () => ({
    nodeBin,
    bin,
    dir,
    version: JSON.parse(fs.readFileSync(path.join(dir, 'node_modules', '@modelcontextprotocol', 'inspector', 'package.json'), 'utf8'))
      .version,
  });
  if (fs.existsSync(stamp)) return found();
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  const release = await acquireLock(`${dir}.lock`, log);
  try {
    if (fs.existsSync(stamp)) return found();
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    for (const f of SPEC_FILES) fs.copyFileSync(path.join(SPEC_DIR, f), path.join(dir, f));
    log(`installing the MCP Inspector into ${dir}`);
    // No install scripts: the Inspector's only one (install-clients.mjs) installs its clients' dependencies
    // in a source checkout and exits at once when the package sits under node_modules.
    await run('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error', '--engine-strict'], {
      cwd: dir,
      env: node24Env(nodeBin),
    });
    if (!fs.existsSync(bin)) throw new Error(`the Inspector installed without its launcher ${bin}`);
    fs.writeFileSync(stamp, new Date().toISOString());
  } finally {
    release();
  }
  return found();
}

/**
 * Runs `mcp-inspector --cli --format json <args...>` and resolves { code, stdout, stderr, json, ms }: json is
 * stdout parsed (the Inspector prints one JSON object: { result } on success, { error: { code, message } }
 * on failure), or undefined when stdout is not JSON. HOME is a fresh temp folder, so no catalog, client
 * config or stored OAuth token of the user's ~/.mcp-inspector changes what a run does, and nothing is left
 * behind. `--stored-auth-only` keeps an HTTP server's 401 from starting an interactive OAuth login.
 */
/**
 * @param {Pick<Inspector, 'nodeBin' | 'bin'>} inspector
 * @param {string[]} args
 * @param {{ cwd?: string, timeoutMs?: number }} [opts]
 * @returns {Promise<InspectorRun>}
 */
export function runInspector(inspector, args, { cwd, timeoutMs = 60_000 } = {}) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-inspector-home-'));
  const isHttp = args.includes('--server-url');
  const full = [inspector.bin, '--cli', '--format', 'json', ...(isHttp ? ['--stored-auth-only'] : []), ...args];
  const t0 = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(inspector.nodeBin, full, {
      cwd,
      env: node24Env(inspector.nodeBin, { HOME: home }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    /** @type {Buffer[]} */
    const out = [];
    /** @type {Buffer[]} */
    const err = [];
    child.stdout.on('data', (b) => out.push(b));
    child.stderr.on('data', (b) => err.push(b));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      fs.rmSync(home, { recursive: true, force: true });
      const stdout = Buffer.concat(out).toString('utf8');
      const stderr = Buffer.concat(err).toString('utf8');
      if (signal)
        return reject(
          new Error(`the Inspector was stopped (${signal}) after ${timeoutMs / 1000} s: ${args.join(' ')}\n${stderr.slice(-2000)}`),
        );
      let json;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      resolve({ code, stdout, stderr, json, ms: Date.now() - t0 });
    });
  });
}
