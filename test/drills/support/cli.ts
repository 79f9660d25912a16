/**
 * The company-data CLI as users run it: packages/company-data/src/cli/main.ts bundled once per test file with esbuild (as
 * tsup bundles it, no build step needed) and run as its own node process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { buildSync } from 'esbuild';
import { afterAll } from 'vitest';

let built: string | undefined;

// Registered while the importing test file is collected: the bundle's folder goes when that file's tests are done.
afterAll(() => {
  if (built) rmSync(dirname(built), { recursive: true, force: true });
  built = undefined;
});

export function cliBundle(): string {
  if (!built) {
    built = join(mkdtempSync(join(tmpdir(), 'drill-cli-')), 'company-data.cjs');
    buildSync({
      entryPoints: [resolve(__dirname, '../../../packages/company-data/src/cli/main.ts')],
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      outfile: built,
      logLevel: 'error',
    });
  }
  return built;
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Environment of a CLI run: this process's minus test-runner and COMPANY_DATA_* variables, plus `env`. */
function cleanEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('COMPANY_DATA_') && !k.startsWith('VITEST')));
  return { ...base, ...env };
}

export function spawnCli(args: string[], env: Record<string, string> = {}): ChildProcess & { output: Promise<CliRun> } {
  const child = spawn(process.execPath, [cliBundle(), ...args], { env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const output = new Promise<CliRun>((r) => child.on('close', (code) => r({ code, stdout, stderr })));
  return Object.assign(child, { output });
}

export async function runCli(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return await spawnCli(args, env).output;
}
