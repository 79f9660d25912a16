// Builds the package (tsup) when dist/ is missing or older than a source file, so the checks and
// the demo always load what is in the working tree.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const SOURCES = [
  'src',
  'packages/core',
  'nodes',
  'credentials',
  'package.json',
  'tsup.config.ts',
  'tsup.common.ts',
  'packages/company-data/src',
  'packages/company-data/package.json',
  'packages/company-data/tsup.config.ts',
];
const OUTPUTS = [
  'dist/shared/index.js',
  'dist/credentials/CompanyDataApi.credentials.js',
  'packages/company-data/dist/cli/main.js',
  'packages/company-data/dist/index.js',
  'packages/company-data/dist/sheets.js',
];
// Both packages: the n8n nodes (tsup.config.ts), then the tool (its own config).
const CONFIGS = [[], ['--config', 'packages/company-data/tsup.config.ts']];

/**
 * Newest mtime (ms) of a file, or of any file under a folder; 0 when p is missing.
 * @param {string} p
 * @returns {number}
 */
export function newest(p) {
  let st;
  try {
    st = fs.statSync(p);
  } catch {
    return 0;
  }
  if (!st.isDirectory()) return st.mtimeMs;
  let m = 0;
  for (const name of fs.readdirSync(p)) m = Math.max(m, newest(path.join(p, name)));
  return m;
}

/** @param {string} repoDir */
export function isStale(repoDir) {
  const outTimes = OUTPUTS.map((f) => newest(path.join(repoDir, f)));
  if (outTimes.some((t) => t === 0)) return true;
  const built = Math.min(...outTimes);
  return SOURCES.some((s) => newest(path.join(repoDir, s)) > built);
}

/**
 * @param {string} repoDir
 * @param {(m: string) => void} [log]
 * @param {{ force?: boolean }} [opts]
 */
export async function buildIfStale(repoDir, log = () => {}, { force = false } = {}) {
  if (!force && !isStale(repoDir)) {
    log('dist/ and packages/company-data/dist/ are up to date');
    return false;
  }
  const t0 = Date.now();
  log('building the package (tsup)...');
  const tsup = path.join(repoDir, 'node_modules', 'tsup', 'dist', 'cli-default.js');
  if (!fs.existsSync(tsup)) throw new Error('tsup is not installed: run npm install first');
  for (const args of CONFIGS) {
    const res = spawnSync(process.execPath, [tsup, ...args], { cwd: repoDir, encoding: 'utf8' });
    if (res.status !== 0)
      throw new Error(`build failed (exit ${res.status}):\n${(res.stdout + res.stderr).split('\n').slice(-30).join('\n')}`);
  }
  log(`built in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return true;
}
