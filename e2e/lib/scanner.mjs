// n8n's own community-package scanner (@n8n/scan-community-package, pinned in e2e/scanner), installed
// into the e2e cache on first use like the n8n runtime, and run on a package folder the way n8n runs it
// before verifying a package: the source leg (package.json, nodes/, credentials/) and the tarball leg
// (every .js file and package.json of the packed package).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { acquireLock, cacheRoot, run } from './runtime.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const SPEC_DIR = path.resolve(here, '../scanner');

function scannerDir() {
  const hash = createHash('sha256');
  for (const f of ['package.json', 'package-lock.json']) hash.update(fs.readFileSync(path.join(SPEC_DIR, f)));
  return path.join(cacheRoot(), `scanner-${hash.digest('hex').slice(0, 16)}`);
}

/**
 * Installs the pinned scanner when the cache lacks it; returns its folder.
 * @param {(m: string) => void} [log]
 */
export async function ensureScanner(log = () => {}) {
  const dir = scannerDir();
  const stamp = path.join(dir, 'stamp');
  if (fs.existsSync(stamp)) return dir;
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  const release = await acquireLock(`${dir}.lock`, log);
  try {
    if (fs.existsSync(stamp)) return dir;
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    for (const f of ['package.json', 'package-lock.json']) fs.copyFileSync(path.join(SPEC_DIR, f), path.join(dir, f));
    log(`installing n8n's scanner into ${dir}`);
    // No install scripts: the scanner needs none (one transitive native module is never loaded).
    await run('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir });
    fs.writeFileSync(stamp, new Date().toISOString());
  } finally {
    release();
  }
  return dir;
}

/**
 * Runs one leg. Returns { passed, errors, warnings, files, details } where passed is the scanner's own
 * analyzePackage verdict and the counts come from the same ESLint configuration (buildScanConfig).
 * @param {string} scanner the folder ensureScanner returned
 * @param {string} packageDir
 * @param {'source' | 'tarball'} leg
 */
export async function scanLeg(scanner, packageDir, leg) {
  const require = createRequire(path.join(scanner, 'package.json'));
  // The scanner makes a temporary folder on import; have it removed on exit.
  require('tmp').setGracefulCleanup();
  const { ESLint } = require('eslint');
  const glob = require('fast-glob');
  const entry = path.join(scanner, 'node_modules', '@n8n', 'scan-community-package', 'scanner', 'scanner.mjs');
  const { analyzePackage, buildScanConfig, SOURCE_FILE_PATTERNS } = await import(pathToFileURL(entry).href);
  const patterns = leg === 'source' ? SOURCE_FILE_PATTERNS : ['**/*.js', 'package.json'];
  const verdict = await analyzePackage(packageDir, patterns);
  const eslint = new ESLint({
    cwd: packageDir,
    allowInlineConfig: false,
    overrideConfigFile: true,
    overrideConfig: await buildScanConfig(),
  });
  const files = glob.sync(patterns, { cwd: packageDir, absolute: true, ignore: ['node_modules/**', '**/package-lock.json'] });
  const results = await eslint.lintFiles(files);
  const errors = results.reduce((n, r) => n + r.errorCount, 0);
  const warnings = results.reduce((n, r) => n + r.warningCount, 0);
  const details = results
    .flatMap((r) => r.messages.map((m) => `${path.relative(packageDir, r.filePath)}:${m.line} ${m.ruleId} ${m.message}`))
    .slice(0, 40);
  return { passed: verdict.passed, message: verdict.message, errors, warnings, files: files.length, details };
}
