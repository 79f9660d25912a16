// A `company-data` command the checks run as a user does (the built packages/company-data/dist/cli/main.js) in a
// child process of its own group: started, waited for until it prints its ready line, its output kept with
// the secrets scrubbed, and killed on every path (stop(), a failed start, the exit of this process).
import { spawn } from 'node:child_process';
import path from 'node:path';

/** @type {Set<number>} */
const live = new Set();
let installed = false;

/**
 * @param {number | undefined} pid
 * @param {NodeJS.Signals} signal
 */
function kill(pid, signal) {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

/** @typedef {{ code: number | null, signal: NodeJS.Signals | null }} Exit */
/**
 * @typedef {object} StartedCli
 * @property {string} address the first group of `ready`
 * @property {string[]} logs
 * @property {number | undefined} pid
 * @property {Promise<Exit>} exited
 * @property {() => Promise<void>} stop
 */

/**
 * Runs `node packages/company-data/dist/cli/main.js ...args` with `env` and resolves when its output matches `ready`
 * (a regex whose first group is returned as `address`). `secrets` are replaced by <secret> in what is kept.
 * @param {{ repoDir: string, args: string[], env?: NodeJS.ProcessEnv, secrets?: (string | undefined)[], ready: RegExp, name: string, readyTimeoutMs?: number }} opts
 * @returns {Promise<StartedCli>}
 */
export async function startCli({ repoDir, args, env = process.env, secrets = [], ready, name, readyTimeoutMs = 60_000 }) {
  const child = spawn(process.execPath, [path.join(repoDir, 'packages', 'company-data', 'dist', 'cli', 'main.js'), ...args], {
    cwd: repoDir,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  if (child.pid !== undefined) live.add(child.pid);
  if (!installed) {
    installed = true;
    process.on('exit', () => {
      for (const pid of live) kill(pid, 'SIGKILL');
    });
  }
  /** @type {Promise<Exit>} */
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  /** @type {Promise<void> | undefined} */
  let stopping;
  const stop = () =>
    (stopping ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) {
        kill(child.pid, 'SIGTERM');
        const timer = setTimeout(() => kill(child.pid, 'SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      }
      if (child.pid !== undefined) live.delete(child.pid);
    })());

  /** @type {string[]} */
  const logs = [];
  let out = '';
  /** @type {(() => void) | undefined} */
  let onReady;
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  /** @param {Buffer} b */
  function onData(b) {
    // The commands print no secret; scrubbing here too keeps a regression out of CI logs.
    const text = secrets.flatMap((x) => (x ? [x] : [])).reduce((s, secret) => s.split(secret).join('<secret>'), b.toString('utf8'));
    out += text;
    logs.push(...text.split('\n').filter(Boolean));
    onReady?.();
  }
  try {
    /** @type {string} */
    const address = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${name} did not start within ${readyTimeoutMs / 1000} s:\n${out}`)), readyTimeoutMs);
      onReady = () => {
        const m = ready.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      };
      exited.then(({ code, signal }) => {
        clearTimeout(timer);
        reject(new Error(`${name} exited before it was ready (${signal ?? `exit ${code}`}):\n${out}`));
      });
    });
    return { address, logs, pid: child.pid, exited, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
