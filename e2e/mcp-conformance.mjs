#!/usr/bin/env node
// The official MCP conformance suite (@modelcontextprotocol/conformance, pinned in e2e/conformance, run under
// the e2e's Node 24) against `company-data mcp --http` as users run it (the built packages/company-data/dist,
// offline: its in-process sandbox). Every server scenario of the suite runs; those that call the reference
// server's fixture tools, prompts and resources (test_simple_text, test_prompt_with_arguments,
// test://static-text, ...) are listed below by name as not applicable and handed to the suite as its
// expected failures, so any other failure, and a listed scenario that starts to pass, fails the stage.
// The suite sends no headers of its own: a loopback gateway (lib/bearer-proxy.mjs) adds the bearer token.
// Usage: node e2e/mcp-conformance.mjs. Prints "N passed, N failed"; exits 1 when a check failed.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startBearerProxy } from './lib/bearer-proxy.mjs';
import { buildIfStale } from './lib/build.mjs';
import { assert, checkRun } from './lib/checks.mjs';
import { startMcpServer } from './lib/mcp-server.mjs';
import { ensurePinnedTool, node24Env } from './lib/pinned-tool.mjs';

const repoDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { log, check, cleanups, finish } = checkRun();

/**
 * Scenarios that need what only the suite's reference server has, each with why. A closed list: a scenario
 * not named here must pass.
 * @type {Record<string, string>}
 */
const NOT_APPLICABLE = {
  'tools-call-simple-text': 'calls the fixture tool test_simple_text',
  'tools-call-image': 'calls the fixture tool test_image_content',
  'tools-call-audio': 'calls the fixture tool test_audio_content',
  'tools-call-embedded-resource': 'calls the fixture tool test_embedded_resource',
  'tools-call-mixed-content': 'calls the fixture tool test_multiple_content_types',
  'tools-call-with-logging': 'calls the fixture tool test_tool_with_logging',
  'tools-call-error': 'calls the fixture tool test_error_handling',
  'tools-call-with-progress': 'calls the fixture tool test_tool_with_progress',
  'tools-call-sampling': 'calls the fixture tool test_sampling (the server asks no model for anything)',
  'tools-call-elicitation': 'calls the fixture tool test_elicitation (the server asks the user nothing)',
  'elicitation-sep1034-defaults': 'calls the fixture tool test_elicitation_sep1034_defaults',
  'elicitation-sep1330-enums': 'calls the fixture tool test_elicitation_sep1330_enums',
  'resources-read-text': 'reads the fixture resource test://static-text',
  'resources-read-binary': 'reads the fixture resource test://static-binary',
  'resources-templates-read': 'reads the fixture template test://template/{id}/data',
  'resources-subscribe': 'subscribes to a fixture resource; the server offers no subscriptions (registry data has no push per resource)',
  'resources-unsubscribe': 'unsubscribes from a fixture resource; the server offers no subscriptions',
  'prompts-get-simple': 'gets the fixture prompt test_simple_prompt',
  'prompts-get-with-args': 'gets the fixture prompt test_prompt_with_arguments',
  'prompts-get-embedded-resource': 'gets the fixture prompt test_prompt_with_embedded_resource',
  'prompts-get-with-image': 'gets the fixture prompt test_prompt_with_image',
};

/**
 * Runs the suite's command line under Node 24; resolves with its exit code and output.
 * @param {import('./lib/pinned-tool.mjs').PinnedTool} suite
 * @param {string[]} args
 * @param {{ timeoutMs?: number, cwd: string }} opts
 * @returns {Promise<{ code: number | null, out: string }>}
 */
function runSuite(suite, args, { timeoutMs = 600_000, cwd }) {
  return new Promise((resolve, reject) => {
    const child = spawn(suite.nodeBin, [suite.bin, ...args], { cwd, env: node24Env(suite.nodeBin), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (b) => (out += b));
    child.stderr.on('data', (b) => (out += b));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (signal) reject(new Error(`the conformance suite was stopped (${signal}) after ${timeoutMs / 1000} s\n${out.slice(-2000)}`));
      else resolve({ code, out });
    });
  });
}

/**
 * Every check of every scenario the suite ran, from the results folder it wrote (one folder per scenario).
 * @param {string} dir
 * @returns {Map<string, { id: string, status: string, errorMessage?: string }[]>} scenario -> checks
 */
function readResults(dir) {
  /** @type {Map<string, { id: string, status: string, errorMessage?: string }[]>} */
  const out = new Map();
  for (const entry of fs.readdirSync(dir)) {
    const m = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(entry);
    if (!m) continue;
    out.set(m[1], JSON.parse(fs.readFileSync(path.join(dir, entry, 'checks.json'), 'utf8')));
  }
  return out;
}

async function main() {
  log('company-data mcp --http through the official MCP conformance suite (server scenarios)');
  await buildIfStale(repoDir, (m) => log(`[build] ${m}`));

  /** @type {import('./lib/pinned-tool.mjs').PinnedTool | undefined} */
  let installed;
  await check('the conformance suite is installed (pinned in e2e/conformance, under Node 24)', async () => {
    installed = await ensurePinnedTool({
      name: 'conformance',
      specDir: path.join(repoDir, 'e2e', 'conformance'),
      packageName: '@modelcontextprotocol/conformance',
      binPath: path.join('dist', 'index.js'),
      log: (m) => log(`        [conformance] ${m}`),
    });
    log(`        @modelcontextprotocol/conformance ${installed.version}`);
  });
  if (!installed) return;
  const suite = installed;

  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-conformance-'));
  cleanups.push(async () => fs.rmSync(work, { recursive: true, force: true }));

  /** @type {string[]} */
  let listed = [];
  await check('the suite lists its server scenarios, and every not-applicable name is one of them', async () => {
    const r = await runSuite(suite, ['list', '--server'], { cwd: work, timeoutMs: 60_000 });
    assert(r.code === 0, `conformance list exited ${r.code}: ${r.out.slice(-1000)}`);
    listed = [...r.out.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1]);
    assert(listed.length > 10, `too few scenarios listed: ${r.out.slice(0, 500)}`);
    const unknown = Object.keys(NOT_APPLICABLE).filter((n) => !listed.includes(n));
    assert(!unknown.length, `not-applicable names the suite does not have: ${unknown.join(', ')}`);
  });

  const server = await startMcpServer({ repoDir });
  cleanups.push(server.close);
  const gateway = await startBearerProxy({ target: server.url, token: server.token });
  cleanups.push(gateway.close);

  const baseline = path.join(work, 'not-applicable.yml');
  fs.writeFileSync(
    baseline,
    `server:\n${Object.keys(NOT_APPLICABLE)
      .map((n) => `  - ${n}\n`)
      .join('')}`,
  );
  const results = path.join(work, 'results');
  /** @type {{ code: number | null, out: string } | undefined} */
  let run;
  await check('every protocol scenario passes; only the listed fixture scenarios fail (the suite judges by its baseline)', async () => {
    run = await runSuite(suite, ['server', '--url', gateway.url, '--expected-failures', baseline, '-o', results], { cwd: work });
    const summary = run.out.slice(run.out.lastIndexOf('=== SUMMARY ==='));
    for (const line of summary.split('\n').filter((l) => /^[✓✗]/.test(l.trim()))) {
      const name = /^[✓✗]\s+([^:]+):/.exec(line.trim())?.[1] ?? '';
      log(`        ${line.trim()}${name in NOT_APPLICABLE ? ` (not applicable: ${NOT_APPLICABLE[name]})` : ''}`);
    }
    assert(run.code === 0, `the suite exited ${run.code}:\n${run.out.slice(-3000)}`);
  });

  await check('each applicable scenario ran, with every check a success (read from the results the suite wrote)', () => {
    assert(run, 'the suite did not run');
    const ran = readResults(results);
    const applicable = [...ran.keys()].filter((n) => !(n in NOT_APPLICABLE));
    assert(applicable.length >= 8, `only ${applicable.length} applicable scenarios ran: ${[...ran.keys()].join(', ')}`);
    for (const must of [
      'server-initialize',
      'ping',
      'tools-list',
      'resources-list',
      'prompts-list',
      'logging-set-level',
      'completion-complete',
    ])
      assert(ran.has(must), `the scenario ${must} did not run`);
    const bad = applicable.flatMap((n) =>
      (ran.get(n) ?? []).filter((c) => c.status === 'FAILURE').map((c) => `${n}/${c.id}: ${c.errorMessage ?? ''}`),
    );
    assert(!bad.length, `failed checks:\n${bad.join('\n')}`);
    log(`        ${applicable.length} protocol scenarios passed: ${applicable.join(', ')}`);
    log(`        ${Object.keys(NOT_APPLICABLE).length} not applicable (fixture scenarios of the reference server)`);
  });

  await check('the HTTP token appears in nothing the suite printed or wrote', () => {
    assert(run, 'the suite did not run');
    assert(!run.out.includes(server.token), 'the token appears in the suite output');
    for (const entry of fs.readdirSync(results))
      assert(
        !fs.readFileSync(path.join(results, entry, 'checks.json'), 'utf8').includes(server.token),
        `the token appears in ${entry}/checks.json`,
      );
  });
}

await finish(main);
