// n8n in queue mode on one machine: Redis and PostgreSQL as throwaway children, then the main
// process (startN8n with EXECUTIONS_MODE=queue), one `n8n webhook` and one `n8n worker`, all on one
// database and one user folder (same encryption key, same community package).
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import net from 'node:net';
import path from 'node:path';
import { freePort, n8nProcess, sleep, startN8n } from './n8n.mjs';
import { installDebianPackage, which } from './debian.mjs';
import { ms } from './runtime.mjs';

/** @typedef {import('./n8n.mjs').Exit} Exit */
/** @typedef {import('./n8n.mjs').N8n} N8n */
/** @typedef {Awaited<ReturnType<typeof startRedis>>} Redis */
/** @typedef {Awaited<ReturnType<typeof startPostgres>>} Postgres */
/** @typedef {Awaited<ReturnType<typeof startBalancer>>} Balancer */
/** @typedef {Awaited<ReturnType<typeof startQueueProcess>>} QueueProcess */
/** @typedef {(m: string) => void} Log */

const PG_BIN_DIRS = ['/usr/lib/postgresql/17/bin', '/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/15/bin'];

// Children started here (own process groups), killed on exit even when stop() never ran.
/** @type {Set<number>} */
const live = new Set();
/** @type {Set<string>} */
const tempDirs = new Set();
let exitHook = false;
/** @param {number} [pid] */
function track(pid) {
  if (pid) live.add(pid);
  if (exitHook) return;
  exitHook = true;
  process.on('exit', () => {
    for (const g of live) killGroup(g, 'SIGKILL');
    for (const d of tempDirs) fs.rmSync(d, { recursive: true, force: true });
  });
}
/**
 * A temp folder for a server's files, removed by remove() or, failing that, when this process exits.
 * @param {string} prefix
 */
function tempFolder(prefix) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  tempDirs.add(dir);
  track();
  return {
    dir,
    remove() {
      fs.rmSync(dir, { recursive: true, force: true });
      tempDirs.delete(dir);
    },
  };
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
 * Spawns a server in its own process group; stop() sends `signal`, then SIGKILL after graceMs.
 * @param {string} cmd
 * @param {string[]} args
 * @param {{ name?: string, env?: NodeJS.ProcessEnv, signal?: NodeJS.Signals, graceMs?: number }} [opts]
 */
function spawnServer(cmd, args, { name, env = process.env, signal = 'SIGTERM', graceMs = 10_000 } = {}) {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true, env });
  track(child.pid);
  /** @type {string[]} */
  const logs = [];
  const onData = (/** @type {Buffer} */ b) => logs.push(...b.toString('utf8').split('\n').filter(Boolean));
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  /** @type {Promise<Exit>} */
  const exited = new Promise((resolve) => {
    child.on('exit', (code, sig) => resolve({ code, signal: sig }));
    child.on('error', (error) => resolve({ code: null, signal: null, error }));
  });
  /** @type {Promise<void> | undefined} */
  let stopping;
  const stop = () =>
    (stopping ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) {
        killGroup(child.pid, signal);
        const timer = setTimeout(() => killGroup(child.pid, 'SIGKILL'), graceMs);
        await exited;
        clearTimeout(timer);
      }
      killGroup(child.pid, 'SIGKILL');
      if (child.pid !== undefined) live.delete(child.pid);
    })());
  return { name, child, pid: child.pid, logs, exited, stop };
}

/**
 * @param {string} what
 * @param {() => unknown} ok
 * @param {{ name?: string, logs: string[], exited: Promise<Exit> }} proc
 * @param {number} [timeoutMs]
 */
async function waitUntil(what, ok, proc, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  /** @type {Exit | undefined} */
  let exitInfo;
  proc.exited.then((r) => (exitInfo = r));
  for (;;) {
    if (exitInfo)
      throw new Error(
        `${proc.name} exited before ${what} (${exitInfo.signal ?? `exit ${exitInfo.code}`}):\n${proc.logs.slice(-20).join('\n')}`,
      );
    if (await ok()) return;
    if (Date.now() > deadline)
      throw new Error(`${proc.name}: ${what} not within ${timeoutMs / 1000} s:\n${proc.logs.slice(-20).join('\n')}`);
    await sleep(200);
  }
}

/**
 * Redis from Debian's redis-server (installed with apt-get when missing), no persistence, on a free
 * port of 127.0.0.1. Returns { host, port, stop() }.
 * @param {{ log?: Log }} [opts]
 */
export async function startRedis({ log = () => {} } = {}) {
  const bin = which('redis-server') ?? installDebianPackage('redis-server', { found: () => which('redis-server'), log });
  const port = await freePort();
  const proc = spawnServer(bin, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    name: 'redis-server',
  });
  await waitUntil('accepting connections', () => proc.logs.some((l) => /Ready to accept connections/.test(l)), proc);
  return { host: '127.0.0.1', port, pid: proc.pid, logs: proc.logs, stop: proc.stop };
}

/**
 * A value as an SQL string literal, for the psql queries of the checks.
 * @param {unknown} v
 */
export const sqlText = (v) => `'${String(v).replace(/'/g, "''")}'`;

/**
 * A throwaway PostgreSQL cluster in a temp folder (initdb, trust auth, 127.0.0.1 on a free port).
 * initdb refuses root, so as root the cluster belongs to the `postgres` system user.
 * Returns { host, port, database, user, stop() }; stop() removes the folder.
 * @param {{ database?: string, log?: Log }} [opts]
 */
export async function startPostgres({ database = 'n8n', log = () => {} } = {}) {
  const findInitdb = () => PG_BIN_DIRS.find((d) => fs.existsSync(path.join(d, 'initdb'))) ?? path.dirname(which('initdb') ?? '');
  const withInitdb = () => {
    const dir = findInitdb();
    return fs.existsSync(path.join(dir, 'initdb')) ? dir : undefined;
  };
  // A fresh machine may have only the psql client: install the server.
  const binDir = withInitdb() ?? installDebianPackage('postgresql', { what: 'PostgreSQL (initdb)', found: withInitdb, log });
  const asRoot = process.getuid?.() === 0;
  // As root, run the server tools as `postgres` (setpriv execs, so the pid is the server's own).
  /**
   * @param {string} cmd
   * @param {string[]} args
   * @returns {[string, string[]]}
   */
  const asUser = (cmd, args) =>
    asRoot ? ['setpriv', ['--reuid=postgres', '--regid=postgres', '--init-groups', '--reset-env', cmd, ...args]] : [cmd, args];
  const folder = tempFolder('n8n-queue-pg-');
  const { dir } = folder;
  const dataDir = path.join(dir, 'data');
  if (asRoot) execFileSync('chown', ['postgres:postgres', dir]);
  const t0 = Date.now();
  const [initCmd, initArgs] = asUser(path.join(binDir, 'initdb'), [
    '-D',
    dataDir,
    '-U',
    'postgres',
    '--auth=trust',
    '--no-sync',
    '-E',
    'UTF8',
    '--locale=C',
  ]);
  execFileSync(initCmd, initArgs, { stdio: 'pipe', cwd: dir });
  const port = await freePort();
  const [cmd, args] = asUser(path.join(binDir, 'postgres'), [
    '-D',
    dataDir,
    '-p',
    String(port),
    '-k',
    dir,
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'fsync=off',
  ]);
  // SIGINT: PostgreSQL's fast shutdown.
  const proc = spawnServer(cmd, args, { name: 'postgres', signal: 'SIGINT', env: { ...process.env, LC_ALL: 'C' } });
  await waitUntil('accepting connections', () => proc.logs.some((l) => /ready to accept connections/.test(l)), proc);
  execFileSync(path.join(binDir, 'createdb'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', database], { stdio: 'pipe' });
  log(`PostgreSQL ${path.basename(path.dirname(binDir))} on 127.0.0.1:${port} (${ms(t0)})`);
  const psql = fs.existsSync(path.join(binDir, 'psql')) ? path.join(binDir, 'psql') : (which('psql') ?? 'psql');
  return {
    host: '127.0.0.1',
    port,
    database,
    user: 'postgres',
    pid: proc.pid,
    logs: proc.logs,
    /**
     * Runs one SQL statement with psql; returns the rows as arrays of text (tab-separated, unaligned).
     * @param {string} sql
     * @returns {string[][]}
     */
    query: (sql) =>
      execFileSync(psql, ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', database, '-At', '-F', '\t', '-c', sql], {
        encoding: 'utf8',
        maxBuffer: 256 * 1024 * 1024,
      })
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split('\t')),
    stop: async () => {
      await proc.stop();
      folder.remove();
    },
  };
}

/**
 * n8n settings that put every process of the instance on the same database and queue.
 * @param {{ redis: Pick<Redis, 'host' | 'port'>, postgres: Pick<Postgres, 'host' | 'port' | 'database' | 'user'> }} servers
 */
export function queueEnv({ redis, postgres }) {
  return {
    EXECUTIONS_MODE: 'queue',
    QUEUE_BULL_REDIS_HOST: redis.host,
    QUEUE_BULL_REDIS_PORT: String(redis.port),
    DB_TYPE: 'postgresdb',
    DB_POSTGRESDB_HOST: postgres.host,
    DB_POSTGRESDB_PORT: String(postgres.port),
    DB_POSTGRESDB_DATABASE: postgres.database,
    DB_POSTGRESDB_USER: postgres.user,
    DB_POSTGRESDB_PASSWORD: '',
  };
}

/**
 * Starts one `n8n webhook` or `n8n worker` beside a running main (same env and user folder, own ports).
 * Returns { kind, logName, baseUrl, port, pid, logs, logText(), exited, stop() }.
 * @param {Pick<N8n, 'env' | 'userFolder' | 'runtime' | 'packageName'>} main
 * @param {'webhook' | 'worker'} kind
 * @param {{ port?: number, readyTimeoutMs?: number, logName?: string, log?: (m: string) => void }} [opts]
 */
export async function startQueueProcess(main, kind, { port, readyTimeoutMs = 180_000, logName = kind, log = () => {} } = {}) {
  if (kind !== 'webhook' && kind !== 'worker') throw new Error(`kind must be webhook or worker, got ${kind}`);
  const t0 = Date.now();
  port ??= await freePort();
  const brokerPort = await freePort();
  const env = {
    ...main.env,
    N8N_RUNNERS_BROKER_PORT: String(brokerPort),
    ...(kind === 'webhook'
      ? { N8N_PORT: String(port) }
      : { QUEUE_HEALTH_CHECK_ACTIVE: 'true', QUEUE_HEALTH_CHECK_PORT: String(port), N8N_WORKER_SERVER_ADDRESS: '127.0.0.1' }),
  };
  const logFile = path.join(main.userFolder, `n8n-${logName}.log`);
  const proc = n8nProcess.spawnN8n(main.runtime, [kind], { env, cwd: main.userFolder, logFile });
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    await n8nProcess.waitReady(baseUrl, proc, readyTimeoutMs);
    // Both commands load community packages before they listen; a failed load is only in the log.
    const failed = proc.logs.find((l) => main.packageName && l.includes(`Failed to load package "${main.packageName}"`));
    if (failed) throw new Error(`n8n ${kind} could not load ${main.packageName}: ${failed.slice(0, 600)}`);
  } catch (err) {
    if (err instanceof Error) err.message += `\n--- last n8n ${kind} log lines (${logFile}) ---\n${proc.logs.slice(-40).join('\n')}`;
    await proc.stop();
    throw err;
  }
  log(`${logName} ready on ${baseUrl} in ${ms(t0)} (pid ${proc.child.pid}, log ${logFile})`);
  return {
    kind,
    logName,
    baseUrl,
    port,
    pid: proc.child.pid,
    logs: proc.logs,
    logText: () => proc.logs.join('\n'),
    exited: proc.exited,
    stop: () => proc.stop(),
  };
}

/**
 * How the balancer spreads deliveries over the webhook processes, as nginx upstream directives.
 * @type {Record<string, string>}
 */
export const BALANCING = {
  // n8n's documented setup: each request to the next process.
  'round-robin': '',
  // Every copy of one event to the same process (the service's X-Service-Event-Id header), where the
  // trigger's in-memory check stops the copies before any execution starts. The header only steers;
  // the trigger trusts nothing but the signed body.
  'event-id': '    hash $http_x_service_event_id consistent;\n',
};

/**
 * nginx from Debian (nginx-light, installed with apt-get when missing) on a free port of 127.0.0.1,
 * balancing over `upstreams` (ports on 127.0.0.1) by `balance` (a key of BALANCING; round robin, the
 * way n8n's docs put several webhook processes behind a load balancer, unless told otherwise). A process
 * that refuses connections is skipped for 2 s (max_fails=1), so a killed webhook process costs only the
 * requests that were in flight on it. Returns { url, port, pid, logs, stop() }.
 * @param {number[]} upstreams
 * @param {{ balance?: string, log?: Log }} [opts]
 */
export async function startBalancer(upstreams, { balance = 'round-robin', log = () => {} } = {}) {
  if (!(balance in BALANCING)) throw new Error(`balance must be one of ${Object.keys(BALANCING).join(', ')}, not ${balance}`);
  const bin =
    which('nginx') ??
    installDebianPackage('nginx-light', { what: 'nginx', found: () => which('nginx'), options: ['--no-install-recommends'], log });
  const port = await freePort();
  const folder = tempFolder('n8n-queue-nginx-');
  const { dir } = folder;
  const asRoot = process.getuid?.() === 0;
  const conf = `${asRoot ? 'user root;\n' : ''}worker_processes 1;
pid ${dir}/nginx.pid;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  upstream n8n_webhooks {
${BALANCING[balance]}${upstreams.map((p) => `    server 127.0.0.1:${p} max_fails=1 fail_timeout=2s;`).join('\n')}
    keepalive 64;
    # Below Node's 5 s keep-alive: otherwise nginx may reuse a connection n8n is closing at that moment
    # and answer 502 (a POST is not passed on to another process).
    keepalive_timeout 4s;
  }
  server {
    listen 127.0.0.1:${port};
    client_max_body_size 16m;
    location / {
      proxy_pass http://n8n_webhooks;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_connect_timeout 2s;
      proxy_read_timeout 60s;
    }
  }
}
`;
  fs.writeFileSync(path.join(dir, 'nginx.conf'), conf);
  const proc = spawnServer(bin, ['-p', dir, '-c', path.join(dir, 'nginx.conf'), '-e', 'stderr', '-g', 'daemon off;'], {
    name: 'nginx',
    signal: 'SIGQUIT',
    graceMs: 5000,
  });
  await waitUntil(
    'listening',
    () =>
      new Promise((resolve) => {
        const sock = net.connect(port, '127.0.0.1', () => {
          sock.end();
          resolve(true);
        });
        sock.on('error', () => resolve(false));
      }),
    proc,
  );
  log(`nginx on 127.0.0.1:${port}, ${balance} over ${upstreams.map((p) => `:${p}`).join(', ')}`);
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    pid: proc.pid,
    logs: proc.logs,
    stop: async () => {
      await proc.stop();
      folder.remove();
    },
  };
}

/**
 * Peak resident memory (VmHWM) of a live process in MB, or undefined when it is gone.
 * @param {number | undefined} pid
 */
export function peakRssMb(pid) {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? undefined : Math.round(Number(kb) / 1024);
  } catch {
    return undefined;
  }
}

/**
 * The whole queue-mode instance: main (editor, API, activation), `webhooks` webhook processes and
 * `workers` workers. With one webhook process the production webhook URL points at it; with more,
 * at an nginx balancing over them (`balance`: round robin unless told otherwise, see BALANCING).
 * Returns { main, webhooks, workers, webhook, worker, balancer, webhookBase, restartWebhook(i), stop() }.
 * @param {{ runtime?: import('./runtime.mjs').RuntimePaths, packageDir: string, userFolder: string, redis: Redis, postgres: Postgres,
 *   webhooks?: number, workers?: number, balance?: string, env?: Record<string, string>, log?: Log }} opts
 * @returns {Promise<QueueN8n>}
 */
export async function startQueueN8n({
  runtime,
  packageDir,
  userFolder,
  redis,
  postgres,
  webhooks = 1,
  workers = 1,
  balance,
  env = {},
  log = () => {},
}) {
  /** @type {number[]} */
  const webhookPorts = [];
  for (let i = 0; i < webhooks; i++) webhookPorts.push(await freePort());
  const balancer = webhooks > 1 ? await startBalancer(webhookPorts, { balance, log }) : undefined;
  const webhookBase = balancer?.url ?? `http://127.0.0.1:${webhookPorts[0]}`;
  /** @type {N8n} */
  let main;
  try {
    main = await startN8n({
      runtime,
      packageDir,
      userFolder,
      log,
      env: {
        ...queueEnv({ redis, postgres }),
        // The URL activation registers with the service: the webhook process(es), not main.
        N8N_WEBHOOK_URL: `${webhookBase}/`,
        ...env,
      },
    });
  } catch (err) {
    await balancer?.stop();
    throw err;
  }
  /** @type {QueueN8n} */
  const q = {
    main,
    balancer,
    webhookBase,
    webhooks: [],
    workers: [],
    get webhook() {
      return q.webhooks[0];
    },
    get worker() {
      return q.workers[0];
    },
    stop: async () => {
      for (const p of [...q.webhooks, ...q.workers]) await p?.stop().catch(() => {});
      await main.stop({ keepUserFolder: true });
      await balancer?.stop();
    },
    /** Kills webhook process `i` (SIGKILL: nothing of its memory survives) and starts a new one on the same port. */
    restartWebhook: async (i = 0) => {
      const old = q.webhooks[i];
      killGroup(old.pid, 'SIGKILL');
      await old.exited;
      await old.stop();
      q.webhooks[i] = await startQueueProcess(main, 'webhook', { port: webhookPorts[i], log, logName: old.logName });
      return q.webhooks[i];
    },
  };
  try {
    // Started side by side: each start is mostly waiting (database, Redis, package loading).
    const started = await Promise.allSettled([
      ...Array.from({ length: workers }, (_, i) =>
        startQueueProcess(main, 'worker', { log, logName: workers > 1 ? `worker-${i + 1}` : 'worker' }),
      ),
      ...webhookPorts.map((port, i) =>
        startQueueProcess(main, 'webhook', { port, log, logName: webhooks > 1 ? `webhook-${i + 1}` : 'webhook' }),
      ),
    ]);
    const ready = started.filter((r) => r.status === 'fulfilled').map((r) => r.value);
    q.workers.push(...ready.filter((p) => p.kind === 'worker'));
    q.webhooks.push(...ready.filter((p) => p.kind === 'webhook'));
    const failed = started.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
  } catch (err) {
    await q.stop();
    throw err;
  }
  return q;
}

/**
 * @typedef {object} QueueN8n
 * @property {N8n} main
 * @property {Balancer | undefined} balancer
 * @property {string} webhookBase
 * @property {QueueProcess[]} webhooks
 * @property {QueueProcess[]} workers
 * @property {QueueProcess | undefined} webhook the first webhook process
 * @property {QueueProcess | undefined} worker the first worker
 * @property {() => Promise<void>} stop
 * @property {(i?: number) => Promise<QueueProcess>} restartWebhook
 */
