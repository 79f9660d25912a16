// Builds the package (tsup) when dist/ is missing or older than a source file, so the checks and
// the demo always load what is in the working tree.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const SOURCES = ['src', 'nodes', 'credentials', 'package.json', 'tsup.config.ts'];
const OUTPUTS = ['dist/cli/main.js', 'dist/index.js', 'dist/sheets.js', 'dist/credentials/CompanyDataApi.credentials.js'];

function newest(p) {
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

export function isStale(repoDir) {
  const outTimes = OUTPUTS.map((f) => newest(path.join(repoDir, f)));
  if (outTimes.some((t) => t === 0)) return true;
  const built = Math.min(...outTimes);
  return SOURCES.some((s) => newest(path.join(repoDir, s)) > built);
}

export async function buildIfStale(repoDir, log = () => {}, { force = false } = {}) {
  if (!force && !isStale(repoDir)) {
    log('dist/ is up to date');
    return false;
  }
  const t0 = Date.now();
  log('building the package (tsup)...');
  const tsup = path.join(repoDir, 'node_modules', 'tsup', 'dist', 'cli-default.js');
  if (!fs.existsSync(tsup)) throw new Error('tsup is not installed: run npm install first');
  const res = spawnSync(process.execPath, [tsup], { cwd: repoDir, encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`build failed (exit ${res.status}):\n${(res.stdout + res.stderr).split('\n').slice(-30).join('\n')}`);
  log(`built in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return true;
}
