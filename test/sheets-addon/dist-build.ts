/**
 * The add-on's built files (packages/sheets-addon/dist), built once per test run when missing or older than
 * the sources: the tests run what clasp pushes. `npm run build` builds them too (scripts/test.sh runs it first).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const ADDON_DIR = resolve(__dirname, '../../packages/sheets-addon');
export const DIST = join(ADDON_DIR, 'dist');

function newest(dir: string): number {
  let t = 0;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const s = statSync(p);
    t = Math.max(t, s.isDirectory() ? newest(p) : s.mtimeMs);
  }
  return t;
}

/** Builds dist/ when it is missing or older than the add-on's or the core's sources. */
export function ensureBuilt(): void {
  const bundle = join(DIST, 'addon.js');
  const sources = Math.max(newest(join(ADDON_DIR, 'src')), newest(join(ADDON_DIR, 'static')), newest(resolve(ADDON_DIR, '../core')));
  if (existsSync(bundle) && statSync(bundle).mtimeMs >= sources) return;
  execFileSync(process.execPath, [join(ADDON_DIR, 'build.mjs')], { stdio: 'inherit' });
}

/** The server script files in the order Apps Script evaluates them (file-name order). */
export function scriptFiles(): string[] {
  ensureBuilt();
  return readdirSync(DIST)
    .filter((f) => f.endsWith('.js'))
    .sort()
    .map((f) => join(DIST, f));
}

export const readDist = (name: string) => readFileSync(join(DIST, name), 'utf8');
