// The Google Sheets stand-in of the vitest side (test/support/sheets-standin*.ts, TypeScript) for the
// e2e scripts and benchmarks: bundled with esbuild into a work folder and loaded in this process, so a
// script creates sheets, shares them, acts as a colleague between requests and counts calls directly.
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const repoDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * The stand-in's module, bundled into `work` (a folder the caller removes).
 * any: the TypeScript classes are not type-checked from here; the scripts use startSheetsStandin
 * (returns a SheetsStandin: create, share, access, auth, calls, values, beforeRequest, close) and Colleague.
 * @param {string} work
 * @returns {Promise<any>}
 */
export async function loadSheetsStandin(work) {
  const { build } = await import('esbuild');
  const outfile = path.join(work, 'sheets-standin.cjs');
  await build({
    stdin: {
      contents:
        "export { startSheetsStandin } from './test/support/sheets-standin';\nexport { Colleague } from './test/support/sheets-standin-colleague';",
      resolveDir: repoDir,
      loader: 'ts',
    },
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    outfile,
    logLevel: 'error',
  });
  return createRequire(import.meta.url)(outfile);
}

/**
 * Sheets API calls the stand-in recorded, counted as the benchmarks report them.
 * @param {{ kind: string, status: number, bytes?: number }[]} calls
 */
export function countCalls(calls) {
  return {
    reads: calls.filter((c) => c.kind === 'read').length,
    writes: calls.filter((c) => c.kind === 'write').length,
    rateLimited: calls.filter((c) => c.status === 429).length,
    unauthenticated: calls.filter((c) => c.status === 401).length,
    largestBody: calls.reduce((m, c) => Math.max(m, c.bytes ?? 0), 0),
  };
}
