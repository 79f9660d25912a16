// Packs both packages as they would be published and checks what their users get:
// - n8n-nodes-company-data: n8n's own scanner on the sources and on the tarball (0 errors, 0 warnings),
//   the unpacked-size budget, every node and credential registered in package.json present and loadable
//   from the unpacked tarball, and no runtime dependencies;
// - company-data: installed with `npm i -g` from its tarball into an empty prefix, `company-data --help`,
//   one enrich of the example sheet on the embedded sandbox, and the library entries.
// Run after the build (npm test does both). Exits non-zero on any failure.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { packPackage, unpackTarball } from '../e2e/lib/pack.mjs';
import { ensureScanner, scanLeg } from '../e2e/lib/scanner.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const NODE_PACKAGE_MAX_UNPACKED = 1_500_000;
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'company-data-packages-'));
/** @type {{ name: string, ok: boolean }[]} */
const results = [];
/**
 * @param {string} name
 * @param {boolean} ok
 */
const check = (name, ok, detail = '') => {
  results.push({ name, ok });
  process.stdout.write(`${ok ? 'ok  ' : 'FAIL'} ${name}${detail ? `: ${detail}` : ''}\n`);
};
const mb = (/** @type {number} */ n) => `${(n / 1e6).toFixed(2)} MB`;

try {
  for (const d of ['dist', 'packages/company-data/dist']) {
    if (!fs.existsSync(path.join(repo, d))) throw new Error(`${d} is missing: run npm run build first`);
  }
  const nodePkg = packPackage(repo, path.join(work, 'packed'));
  const toolPkg = packPackage(path.join(repo, 'packages', 'company-data'), path.join(work, 'packed'));
  console.log(`${nodePkg.name}: ${mb(nodePkg.size)} packed, ${mb(nodePkg.unpackedSize)} unpacked, ${nodePkg.entryCount} files`);
  console.log(`${toolPkg.name}: ${mb(toolPkg.size)} packed, ${mb(toolPkg.unpackedSize)} unpacked, ${toolPkg.entryCount} files`);

  // --- the n8n node package
  const installed = unpackTarball(nodePkg.file, path.join(work, 'n8n', 'node_modules', nodePkg.name));
  const scanner = await ensureScanner((m) => console.log(m));
  for (const [leg, dir] of /** @type {['source' | 'tarball', string][]} */ ([
    ['source', repo],
    ['tarball', installed],
  ])) {
    const r = await scanLeg(scanner, dir, leg);
    check(
      `n8n scanner, ${leg} (${r.files} files)`,
      r.passed && r.errors === 0 && r.warnings === 0,
      `${r.errors} errors, ${r.warnings} warnings`,
    );
    for (const line of r.details) console.log(`     ${line}`);
  }
  check(
    'node package unpacked size',
    nodePkg.unpackedSize <= NODE_PACKAGE_MAX_UNPACKED,
    `${mb(nodePkg.unpackedSize)} of at most ${mb(NODE_PACKAGE_MAX_UNPACKED)}`,
  );
  const manifest = JSON.parse(fs.readFileSync(path.join(installed, 'package.json'), 'utf8'));
  check('node package has no runtime dependencies', !manifest.dependencies || Object.keys(manifest.dependencies).length === 0);
  check('node package does not carry the tool', !nodePkg.files.some((f) => /cli|sandbox|sheets/.test(f)) && !manifest.bin);

  // Each registered file is in the tarball and loads there, with n8n-workflow resolved as n8n provides it.
  fs.symlinkSync(path.join(repo, 'node_modules', 'n8n-workflow'), path.join(work, 'n8n', 'node_modules', 'n8n-workflow'), 'dir');
  const req = createRequire(path.join(installed, 'package.json'));
  const registered = [...manifest.n8n.nodes, ...manifest.n8n.credentials];
  const problems = [];
  for (const rel of registered) {
    if (!nodePkg.files.includes(rel)) {
      problems.push(`${rel}: not in the tarball`);
      continue;
    }
    const exported = Object.values(req(path.join(installed, rel)));
    const instance = typeof exported[0] === 'function' ? new exported[0]() : undefined;
    const name = instance?.description?.name ?? instance?.name;
    if (!name) problems.push(`${rel}: exports no node or credential`);
    for (const icon of [instance?.description?.icon ?? instance?.icon].flatMap((i) =>
      i && typeof i === 'object' ? Object.values(i) : i ? [i] : [],
    )) {
      const file = path.join(path.dirname(rel), String(icon).replace(/^file:/, ''));
      if (!nodePkg.files.includes(file)) problems.push(`${rel}: icon ${file} not in the tarball`);
    }
  }
  check(`all ${registered.length} registered nodes and credentials load from the tarball`, problems.length === 0, problems.join('; '));
  const shared = nodePkg.files.filter((f) => f.startsWith('dist/shared/'));
  check('the nodes share one bundled core', shared.length === 1, shared.join(', '));

  // --- the tool package, installed as a user would
  const prefix = path.join(work, 'prefix');
  // process.env holds strings only (its type allows undefined for names never set).
  const env = /** @type {Record<string, string>} */ (
    Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !k.startsWith('COMPANY_DATA_') && k !== 'GOOGLE_APPLICATION_CREDENTIALS'),
    )
  );
  env.HOME = path.join(work, 'home');
  env.npm_config_update_notifier = 'false';
  fs.mkdirSync(env.HOME);
  const t0 = Date.now();
  execFileSync('npm', ['install', '--global', '--prefix', prefix, '--no-audit', '--no-fund', '--loglevel=error', toolPkg.file], {
    env,
    stdio: 'inherit',
  });
  const bin = path.join(prefix, 'bin', 'company-data');
  check('npm i -g of the tool tarball', fs.existsSync(bin), `${((Date.now() - t0) / 1000).toFixed(1)} s`);
  const help = execFileSync(bin, ['--help'], { env, encoding: 'utf8' });
  check('company-data --help', /enrich/.test(help) && /events-to-sheet/.test(help) && /sandbox/.test(help));
  check('company-data --help lists mcp', /\bmcp\b/.test(help));
  // The MCP server from the installed tarball (its SDK bundled), as a desktop assistant starts it: stdio,
  // no settings (the offline sandbox), with the official SDK client of this repo.
  const mcp = new McpClient({ name: 'check-packages', version: '1' });
  await mcp.connect(new StdioClientTransport({ command: bin, args: ['mcp'], env, stderr: 'ignore' }));
  try {
    const { tools } = await mcp.listTools();
    const got = await mcp.callTool({ name: 'companies_get', arguments: { registry_code: '13545698' } });
    const row = /** @type {{ items?: { registry_code?: string, name?: unknown }[] } | undefined} */ (got.structuredContent)?.items?.[0];
    check(
      'company-data mcp from the tarball: tools/list and companies_get on the embedded sandbox',
      tools.length > 40 && row?.registry_code === '13545698' && typeof row?.name === 'string',
      `${tools.length} tools; ${row?.name}`,
    );
  } finally {
    await mcp.close();
  }
  const sheet = path.join(work, 'companies.csv');
  fs.copyFileSync(path.join(repo, 'examples', 'companies.csv'), sheet);
  const run = spawnSync(bin, ['enrich', sheet, '--out', path.join(work, 'enriched.csv'), '--state-dir', path.join(work, 'state')], {
    env,
    encoding: 'utf8',
    cwd: work,
  });
  const out = `${run.stderr}${run.stdout}`;
  const enriched = fs.readFileSync(path.join(work, 'enriched.csv'), 'utf8').trim().split('\n');
  const input = fs.readFileSync(sheet, 'utf8').trim().split('\n');
  check(
    'company-data enrich on the embedded sandbox',
    run.status === 0 &&
      /offline sandbox/.test(out) &&
      /Matched \d+/.test(out) &&
      enriched.length === input.length &&
      /company_data_status/.test(enriched[0]),
    out.trim().split('\n').slice(-3).join(' | '),
  );
  const lib = createRequire(path.join(prefix, 'lib', 'node_modules', 'company-data', 'package.json'));
  const main = lib('company-data');
  const sheets = lib('company-data/sheets');
  check(
    'library entries company-data and company-data/sheets',
    typeof main.CompanyDataClient === 'function' &&
      typeof main.verifyWebhook === 'function' &&
      typeof sheets.enrichTable === 'function' &&
      typeof sheets.XlsxTable === 'function',
  );
} catch (error) {
  check('package check ran', false, (error instanceof Error ? error.stack : undefined) ?? String(error));
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
const failed = results.filter((r) => !r.ok).length;
console.log(`packages: ${results.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
