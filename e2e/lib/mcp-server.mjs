// Runs the MCP server the way a user does (`company-data mcp --http`, from the built
// packages/cli/dist/cli/main.js) in a child process, for n8n's MCP Client Tool to connect to.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';

const LISTENING = /MCP server listening on (http:\/\/\S+\/mcp)/;

/**
 * Starts `company-data mcp --http --port 0` and resolves when it prints its address.
 * baseUrl + apiKey: a running sandbox (or service) to serve; without them the CLI starts its in-process
 * sandbox. The API key and the token go through the environment, never the command line (process lists).
 * Returns { url (ending in /mcp), token, logs, pid, exited, close() }. The child is killed on every path:
 * close(), a failed start, and the exit of this process.
 */
export async function startMcpServer({ repoDir, baseUrl, apiKey, token = `mcp_${randomBytes(24).toString('hex')}`, host = '127.0.0.1', port = 0, readyTimeoutMs = 60_000 }) {
  const args = [path.join(repoDir, 'packages', 'cli', 'dist', 'cli', 'main.js'), 'mcp', '--http', '--host', host, '--port', String(port)];
  if (baseUrl) args.push('--base-url', baseUrl);
  const env = { ...process.env, COMPANY_DATA_MCP_TOKEN: token };
  // Without a target of its own, inherited variables must not point the server elsewhere.
  delete env.COMPANY_DATA_BASE_URL;
  delete env.COMPANY_DATA_API_KEY;
  if (apiKey) env.COMPANY_DATA_API_KEY = apiKey;
  const child = spawn(process.execPath, args, { cwd: repoDir, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  live.add(child.pid);
  installCleanup();

  const secrets = [token, apiKey].filter(Boolean);
  const logs = [];
  let out = '';
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const onData = (b) => {
    // The server scrubs both secrets itself; scrubbing here too keeps a regression out of CI logs.
    const text = secrets.reduce((s, secret) => s.split(secret).join('<secret>'), b.toString('utf8'));
    out += text;
    logs.push(...text.split('\n').filter(Boolean));
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);

  let stopping;
  const close = () =>
    (stopping ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) {
        kill(child.pid, 'SIGTERM');
        const timer = setTimeout(() => kill(child.pid, 'SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      }
      live.delete(child.pid);
    })());

  let url;
  try {
    url = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`company-data mcp did not start within ${readyTimeoutMs / 1000} s:\n${out}`)), readyTimeoutMs);
      const check = () => {
        const m = LISTENING.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      };
      child.stderr.on('data', check);
      exited.then(({ code, signal }) => {
        clearTimeout(timer);
        reject(new Error(`company-data mcp exited before it was ready (${signal ?? `exit ${code}`}):\n${out}`));
      });
    });
  } catch (err) {
    await close();
    throw err;
  }
  return { url, token, logs, pid: child.pid, exited, close };
}

const live = new Set();
let installed = false;
function installCleanup() {
  if (installed) return;
  installed = true;
  process.on('exit', () => {
    for (const pid of live) kill(pid, 'SIGKILL');
  });
}

function kill(pid, signal) {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}
