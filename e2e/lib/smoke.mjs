// Proves the whole real-n8n chain with a throwaway community package generated into a temp dir:
// runtime installed, n8n started, package loaded, a Manual-trigger workflow run (in the server and
// with `n8n execute`), a webhook workflow published and called, executions listed, n8n stopped.
// CLI: node e2e/lib/smoke.mjs [--no-cli]   (exit code 0 when every check passed)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureRuntime, ms } from './runtime.mjs';
import { errorText } from './checks.mjs';
import {
  callWebhook,
  createCredential,
  createWorkflow,
  executeCli,
  listExecutions,
  nodeTypeNames,
  publishWorkflow,
  runManual,
  startN8n,
} from './n8n.mjs';

const PKG = 'n8n-nodes-e2e-smoke';
const NODE = 'e2eSmokeEcho';
const TYPE = `${PKG}.${NODE}`;
// n8n loads require(<file>)[<file's basename>]: the exported class must be named like the file.
const CLASS = 'E2eSmokeEcho';

/**
 * A minimal community package: one node that tags every item, requiring n8n-workflow as a peer.
 * @param {string} dir
 */
export function writeSmokePackage(dir) {
  fs.mkdirSync(path.join(dir, 'dist', 'nodes'), { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify(
      {
        name: PKG,
        version: '0.0.1',
        main: 'index.js',
        keywords: ['n8n-community-node-package'],
        n8n: { n8nNodesApiVersion: 1, nodes: [`dist/nodes/${CLASS}.node.js`], credentials: [] },
        peerDependencies: { 'n8n-workflow': '*' },
      },
      null,
      2,
    ),
  );
  fs.writeFileSync(
    path.join(dir, 'dist', 'nodes', `${CLASS}.node.js`),
    `'use strict';
const { NodeConnectionTypes } = require('n8n-workflow');
class ${CLASS} {
  constructor() {
    this.description = {
      displayName: 'E2E Smoke Echo',
      name: '${NODE}',
      group: ['transform'],
      version: 1,
      description: 'Adds a tag to every item',
      defaults: { name: 'E2E Smoke Echo' },
      inputs: [NodeConnectionTypes.Main],
      outputs: [NodeConnectionTypes.Main],
      properties: [{ displayName: 'Tag', name: 'tag', type: 'string', default: 'smoke' }],
    };
  }
  async execute() {
    const items = this.getInputData();
    return [items.map((item, i) => ({ json: { ...item.json, tag: this.getNodeParameter('tag', i), echoedBy: '${TYPE}' } }))];
  }
}
module.exports = { ${CLASS} };
`,
  );
  return dir;
}

const manualWorkflow = {
  name: 'e2e smoke: manual',
  nodes: [
    { id: 'a1', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
    { id: 'a2', name: 'Echo', type: TYPE, typeVersion: 1, position: [220, 0], parameters: { tag: 'manual' } },
  ],
  connections: { Start: { main: [[{ node: 'Echo', type: 'main', index: 0 }]] } },
  settings: { executionOrder: 'v1' },
};

const webhookPath = `e2e-smoke-${process.pid}`;
const webhookWorkflow = {
  name: 'e2e smoke: webhook',
  nodes: [
    {
      id: 'b1',
      name: 'Hook',
      type: 'n8n-nodes-base.webhook',
      typeVersion: 2,
      position: [0, 0],
      webhookId: '5f0c8a54-7a9e-4b43-9d1e-2f6a3c1b0e11',
      parameters: { httpMethod: 'POST', path: webhookPath, responseMode: 'lastNode', responseData: 'firstEntryJson' },
    },
    { id: 'b2', name: 'Echo', type: TYPE, typeVersion: 1, position: [220, 0], parameters: { tag: 'webhook' } },
  ],
  connections: { Hook: { main: [[{ node: 'Echo', type: 'main', index: 0 }]] } },
  settings: { executionOrder: 'v1' },
};

async function main() {
  const withCli = !process.argv.includes('--no-cli');
  /** @type {{ name: string, ok: boolean }[]} */
  const results = [];
  /** @type {Record<string, string>} */
  const timings = {};
  /**
   * @param {string} name
   * @param {boolean} ok
   */
  const check = (name, ok, detail = '') => {
    results.push({ name, ok });
    console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${detail ? ` (${detail})` : ''}`);
  };
  const t0 = Date.now();
  let t = Date.now();
  const runtime = await ensureRuntime();
  timings.runtime = ms(t);

  const pkgDir = writeSmokePackage(fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-e2e-pkg-')));
  process.on('exit', () => fs.rmSync(pkgDir, { recursive: true, force: true }));
  let n8n;
  try {
    t = Date.now();
    n8n = await startN8n({ runtime, packageDir: pkgDir });
    timings.start = ms(t);

    const types = await nodeTypeNames(n8n);
    check('package node type is loaded', types.includes(TYPE), `${types.length} types`);

    const cred = await createCredential(n8n, { name: 'e2e header', type: 'httpHeaderAuth', data: { name: 'x-e2e', value: 'v' } });
    check('credential is created through the public API', typeof cred?.id === 'string' && cred.type === 'httpHeaderAuth');

    t = Date.now();
    const manual = await createWorkflow(n8n, manualWorkflow);
    const ex = await runManual(n8n, manual.id);
    const out = ex.data?.resultData?.runData?.Echo?.[0]?.data?.main?.[0]?.[0]?.json;
    check('manual workflow runs in the server', ex.status === 'success' && out?.tag === 'manual', `status ${ex.status}`);
    timings.manualRun = ms(t);

    if (withCli) {
      t = Date.now();
      const cli = await executeCli(n8n, manual.id);
      const cliOut = cli?.data?.resultData?.runData?.Echo?.[0]?.data?.main?.[0]?.[0]?.json;
      check('manual workflow runs with n8n execute', cliOut?.tag === 'manual');
      timings.cliRun = ms(t);
    }

    t = Date.now();
    const hookWf = await createWorkflow(n8n, webhookWorkflow);
    await publishWorkflow(n8n, hookWf.id);
    const res = await callWebhook(n8n, webhookPath, { body: { hello: 'world' } });
    check('published webhook answers through the package node', res.status === 200 && res.json?.tag === 'webhook', `HTTP ${res.status}`);
    timings.webhook = ms(t);

    const hookRuns = await listExecutions(n8n, { workflowId: hookWf.id });
    check(
      'executions are listed',
      hookRuns.length === 1 && hookRuns[0].status === 'success',
      `${hookRuns.length} for the webhook workflow`,
    );
  } catch (err) {
    check('smoke run finished without error', false, errorText(err, 'message'));
  } finally {
    t = Date.now();
    if (n8n) {
      const pid = n8n.pid;
      await n8n.stop();
      let alive = pid !== undefined;
      try {
        if (pid !== undefined) process.kill(-pid, 0);
      } catch {
        alive = false;
      }
      check('n8n and its task runners stopped', !alive);
    }
    timings.stop = ms(t);
    fs.rmSync(pkgDir, { recursive: true, force: true });
  }
  timings.total = ms(t0);
  console.log(
    `timings: ${Object.entries(timings)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
  );
  const failed = results.filter((r) => !r.ok).length;
  console.log(`${results.length - failed} passed, ${failed} failed`);
  process.exitCode = failed ? 1 : 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((err) => {
    console.error(err);
    process.exitCode = 1;
  });
}
