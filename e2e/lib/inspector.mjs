// The official MCP Inspector (@modelcontextprotocol/inspector, pinned in e2e/inspector), installed into the
// e2e cache on first use like n8n's scanner, and run in its command-line mode under the e2e's Node 24 (the
// Inspector needs Node >= 22.19; the machine's own Node is 20).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensurePinnedTool, node24Env } from './pinned-tool.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
/** How long the Inspector waits for the server to answer initialize. */
const CONNECT_TIMEOUT_MS = 60_000;

/** @typedef {import('./pinned-tool.mjs').PinnedTool} Inspector */
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

/**
 * Installs the pinned Inspector when the cache lacks it. Its only install script (install-clients.mjs)
 * installs its clients' dependencies in a source checkout and exits at once under node_modules.
 * @param {(m: string) => void} [log]
 * @returns {Promise<Inspector>}
 */
export function ensureInspector(log = () => {}) {
  return ensurePinnedTool({
    name: 'inspector',
    specDir: path.resolve(here, '../inspector'),
    packageName: '@modelcontextprotocol/inspector',
    binPath: path.join('clients', 'launcher', 'build', 'index.js'),
    log,
  });
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
export function runInspector(inspector, args, { cwd, timeoutMs = 120_000 } = {}) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-inspector-home-'));
  const isHttp = args.includes('--server-url');
  // The offline server builds its sandbox's dataset before it answers: on a loaded machine that outlasts the
  // Inspector's default 15 s to connect.
  const full = [
    inspector.bin,
    '--cli',
    '--format',
    'json',
    '--connect-timeout',
    String(CONNECT_TIMEOUT_MS),
    ...(isHttp ? ['--stored-auth-only'] : []),
    ...args,
  ];
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
