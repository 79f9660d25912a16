// A Node 24 command-line tool pinned by a package.json and lockfile under e2e/ (the MCP Inspector, the MCP
// conformance suite), installed into the e2e cache on first use with npm ci under the e2e's Node 24, like
// n8n's scanner: the machine's own Node is 20 and these tools need 22 or later.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { NODE_VERSION, acquireLock, cacheRoot, ensureRuntime, run } from './runtime.mjs';

const SPEC_FILES = ['package.json', 'package-lock.json'];

/** @typedef {{ nodeBin: string, bin: string, dir: string, version: string }} PinnedTool */

/**
 * Node 24 for npm and the tool: its bin folder first on PATH, so `#!/usr/bin/env node` scripts get it too.
 * @param {string} nodeBin
 * @param {Record<string, string>} [extra]
 * @returns {NodeJS.ProcessEnv}
 */
export function node24Env(nodeBin, extra = {}) {
  return {
    ...process.env,
    PATH: `${path.dirname(nodeBin)}${path.delimiter}${process.env.PATH}`,
    npm_config_update_notifier: 'false',
    ...extra,
  };
}

/**
 * Installs the pinned tool when the cache lacks it (npm ci --engine-strict under Node 24, so its engine range is
 * checked against the Node that runs it), and returns { nodeBin, bin, dir, version }.
 * No install scripts: neither tool needs one to run from node_modules.
 * @param {{ name: string, specDir: string, packageName: string, binPath: string, log?: (m: string) => void }} opts
 *   name: the cache folder's prefix; specDir: the folder under e2e/ with package.json and package-lock.json;
 *   binPath: the entry script inside the package.
 * @returns {Promise<PinnedTool>}
 */
export async function ensurePinnedTool({ name, specDir, packageName, binPath, log = () => {} }) {
  const { nodeBin } = await ensureRuntime({ log });
  const hash = createHash('sha256');
  // The Node version that ran npm ci is part of the key: the install is only trusted for the runtime it was made with.
  hash.update(`node ${NODE_VERSION}\n`);
  for (const f of SPEC_FILES) hash.update(fs.readFileSync(path.join(specDir, f)));
  const dir = path.join(cacheRoot(), `${name}-${hash.digest('hex').slice(0, 16)}`);
  const stamp = path.join(dir, 'stamp');
  const pkgDir = path.join(dir, 'node_modules', ...packageName.split('/'));
  const bin = path.join(pkgDir, binPath);
  const found = () => ({
    nodeBin,
    bin,
    dir,
    version: JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8')).version,
  });
  if (fs.existsSync(stamp)) return found();
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  const release = await acquireLock(`${dir}.lock`, log);
  try {
    if (fs.existsSync(stamp)) return found();
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    for (const f of SPEC_FILES) fs.copyFileSync(path.join(specDir, f), path.join(dir, f));
    log(`installing ${packageName} into ${dir}`);
    await run('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error', '--engine-strict'], {
      cwd: dir,
      env: node24Env(nodeBin),
    });
    if (!fs.existsSync(bin)) throw new Error(`${packageName} installed without its entry ${bin}`);
    fs.writeFileSync(stamp, new Date().toISOString());
  } finally {
    release();
  }
  return found();
}
