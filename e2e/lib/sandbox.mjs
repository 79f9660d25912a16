// Runs the sandbox the way a user does (`company-data sandbox`, from the built packages/cli/dist/cli/main.js)
// in a child process, plus a small client for its API and /sandbox/ controls.
import { spawn } from 'node:child_process';
import path from 'node:path';

/**
 * Starts `node packages/cli/dist/cli/main.js sandbox` and resolves when it prints its address.
 * Returns { url, apiKey, call(method, path, body), stop(), logs }.
 */
export async function startSandboxCli({ repoDir, port = 0, host = '127.0.0.1', apiKey, companies = 2000, dataDir, readyTimeoutMs = 60_000 }) {
  const args = [path.join(repoDir, 'packages', 'cli', 'dist', 'cli', 'main.js'), 'sandbox', '--host', host, '--port', String(port), '--companies', String(companies), '--key', apiKey];
  if (dataDir) args.push('--data-dir', dataDir);
  const child = spawn(process.execPath, args, { cwd: repoDir, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  live.add(child.pid);
  installCleanup();
  const logs = [];
  let out = '';
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const onData = (b) => {
    // The key is never printed by the CLI when given with --key; scrub anyway in case that changes.
    const text = b.toString('utf8').split(apiKey).join('<key>');
    out += text;
    logs.push(...text.split('\n').filter(Boolean));
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`sandbox did not start within ${readyTimeoutMs / 1000} s:\n${out}`)), readyTimeoutMs);
    const check = () => {
      const m = /Sandbox on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stdout.on('data', check);
    exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`sandbox exited before it was ready (${signal ?? `exit ${code}`}):\n${out}`));
    });
  });

  const call = async (method, p, body) => {
    const res = await fetch(`${url}${p}`, {
      method,
      headers: { 'x-api-key': apiKey, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    const json = text ? JSON.parse(text) : undefined;
    if (!res.ok) throw new Error(`sandbox ${method} ${p}: HTTP ${res.status} ${text.slice(0, 300)}`);
    return json?.data ?? json;
  };

  let stopping;
  const stop = () =>
    (stopping ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) {
        kill(child.pid, 'SIGTERM');
        const timer = setTimeout(() => kill(child.pid, 'SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      }
      live.delete(child.pid);
    })());
  return { url, apiKey, call, stop, logs, pid: child.pid, exited };
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
