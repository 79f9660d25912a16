import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { ACCOUNT, API_KEY, startRig, watchCompany, type Rig } from './harness';

/**
 * Proof in a real n8n 2.41.1 (the e2e runtime): activation with a Bearer-style credential (applied by
 * n8n's httpRequestWithAuthentication) registers the webhook and keeps the secret,
 * a redelivered event runs the chat step once, a forged one gets 401 and no execution, and after an n8n
 * restart n8n's processed-data store still stops the same event. Slow (two n8n starts), so it runs only
 * with TRIGGER_REAL_N8N=1.
 */
const enabled = process.env.TRIGGER_REAL_N8N === '1';
// vitest's own settings (NODE_ENV=test, worker NODE_OPTIONS) make n8n exit at start.
const N8N_ENV = { NODE_ENV: 'production', NODE_OPTIONS: '', VITEST: '', VITEST_WORKER_ID: '', VITEST_POOL_ID: '', TEST: '' };

const NODES = ['CompanyDataTrigger', 'CompanyDataPollTrigger'];

/** The two trigger nodes and the real credential (its authenticate rule sets the key header), each in its own folder. */
async function buildPackage(dir: string) {
  const out = path.join(dir, 'dist');
  const entries = [...NODES.map((n) => `nodes/${n}/${n}.node.ts`), 'credentials/CompanyDataApi.credentials.ts'];
  await build({
    entryPoints: Object.fromEntries(entries.map((e) => [e.replace(/\.ts$/, ''), e])),
    outdir: out,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['n8n-workflow'],
    logLevel: 'error',
  });
  for (const d of [...NODES.map((n) => `nodes/${n}`), 'credentials']) {
    for (const f of fs.readdirSync(d).filter((f) => f.endsWith('.svg'))) fs.copyFileSync(path.join(d, f), path.join(out, d, f));
  }
  fs.writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({
      name: 'n8n-nodes-company-data',
      version: '0.0.0',
      keywords: ['n8n-community-node-package'],
      n8n: {
        n8nNodesApiVersion: 1,
        credentials: ['dist/credentials/CompanyDataApi.credentials.js'],
        nodes: NODES.map((n) => `dist/nodes/${n}/${n}.node.js`),
      },
      peerDependencies: { 'n8n-workflow': '*' },
    }),
  );
}

const wait = async (what: string, ok: () => boolean | Promise<boolean>, ms = 30_000) => {
  const until = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
};

describe.skipIf(!enabled)('real n8n 2.41.1', () => {
  let rig: Rig;
  let n8n: any;
  let pkgDir: string | undefined;
  afterAll(async () => {
    await n8n?.stop({ keepUserFolder: false });
    await rig?.close();
    if (pkgDir) fs.rmSync(pkgDir, { recursive: true, force: true });
  });

  it('activation, redelivery, forged delivery, restart', async () => {
    // @ts-expect-error plain ESM helper of the e2e runtime
    const lib = await import('../../../e2e/lib/n8n.mjs');
    rig = await startRig({ duplicateRate: 1 });
    pkgDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trigger-pkg-'));
    await buildPackage(pkgDir);
    const userFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'trigger-n8n-'));
    n8n = await lib.startN8n({ packageDir: pkgDir, userFolder, env: N8N_ENV });
    const cred = await lib.createCredential(n8n, {
      name: 'Sandbox',
      type: 'companyDataApi',
      data: { apiKey: API_KEY, baseUrl: rig.apiUrl, authStyle: 'bearer', webhookSigningSecret: '' },
    });
    const webhookId = randomUUID();
    const wf = await lib.createWorkflow(n8n, {
      name: 'Trigger proof',
      nodes: [
        {
          id: 'trig',
          name: 'Company Data Trigger',
          type: 'n8n-nodes-company-data.companyDataTrigger',
          typeVersion: 1,
          position: [0, 0],
          webhookId,
          parameters: { events: ['monitoring.change', 'webhook.test'] },
          credentials: { companyDataApi: { id: cred.id, name: cred.name } },
        },
      ],
    });
    await lib.publishWorkflow(n8n, wf.id);
    const hookUrl = `${n8n.baseUrl}/webhook/${webhookId}/webhook`;
    await wait(
      'activation to set the webhook',
      () => rig.svc.account(ACCOUNT).webhook?.url === hookUrl && rig.svc.account(ACCOUNT).webhook?.enabled === true,
    );

    const executions = async () => lib.listExecutions(n8n, { workflowId: wf.id, includeData: true });
    const itemsOf = (ex: any) => ex.data?.resultData?.runData?.['Company Data Trigger']?.[0]?.data?.main?.[0]?.length ?? 0;

    // Every event is delivered twice by the sandbox: one execution with the event.
    const { code } = watchCompany(rig);
    rig.svc.createChange(ACCOUNT, { registry_code: code, category: 'tax', kind: 'tax_debt' });
    const delivered = () => rig.svc.deliveries.list(ACCOUNT).filter((d) => d.status === 'delivered');
    await wait('the delivery', () => delivered().length >= 1).catch((e) => {
      throw new Error(
        `${e.message}: ${JSON.stringify(rig.svc.deliveries.list(ACCOUNT).map((d) => [d.status, d.last_status_code, d.last_error]))}\n${n8n.logText().slice(-1500)}`,
      );
    });
    expect(delivered().every((d) => d.last_status_code === 200)).toBe(true);
    // The copy sent on purpose is an attempt logged on the same delivery (duplicate: true), not a second
    // delivery record: counting deliveries shows one even though n8n received the event twice.
    await wait('the duplicate copy', () => delivered()[0]!.log.some((a) => a.duplicate === true && a.status_code === 200));
    expect(delivered()).toHaveLength(1);
    // Redelivery of the same event in the same n8n process (a manual retry makes a new delivery).
    const original = delivered()[0]!;
    rig.svc.deliveries.retry(ACCOUNT, original.id);
    await wait('the same-process redelivery', () =>
      rig.svc.deliveries.list(ACCOUNT).some((d) => d.retry_of === original.id && d.status === 'delivered'),
    );
    await new Promise((r) => setTimeout(r, 1500));
    await wait('executions to finish', async () => (await executions()).every((e: any) => e.finished || e.status === 'success'));
    let list = await executions();
    expect(list.filter((e: any) => itemsOf(e) > 0)).toHaveLength(1);
    const countBefore = list.length;

    // A forged delivery: 401 and no execution.
    const forged = await fetch(hookUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-service-timestamp': String(Math.floor(Date.now() / 1000)),
        'x-service-signature': `v1=${'0'.repeat(64)}`,
      },
      body: '{"id":"evt_999","type":"webhook.test"}',
    });
    expect(forged.status).toBe(401);
    const nonJson = await fetch(hookUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: 'not json' });
    expect(nonJson.status).toBeGreaterThanOrEqual(400);
    await new Promise((r) => setTimeout(r, 1000));
    expect((await executions()).length).toBe(countBefore);

    // Restart n8n: the process memory is gone; a manual retry of the delivery brings the same event again.
    const port = n8n.port;
    await n8n.stop({ keepUserFolder: true });
    n8n = await lib.startN8n({ packageDir: pkgDir, userFolder, env: N8N_ENV, port });
    await wait(
      'production webhook after restart',
      async () => (await fetch(hookUrl, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } })).status === 401,
    );
    const first = rig.svc.deliveries.list(ACCOUNT).find((d) => d.retry_of === original.id)!;
    rig.svc.deliveries.retry(ACCOUNT, first.id);
    await wait('the retried delivery', () =>
      rig.svc.deliveries.list(ACCOUNT).some((d) => d.retry_of === first.id && d.status === 'delivered'),
    );
    await new Promise((r) => setTimeout(r, 1500));
    list = await executions();
    const withItems = list.filter((e: any) => itemsOf(e) > 0);
    // eslint-disable-next-line no-console
    console.log(
      `[real n8n] executions: ${list.length}, with items: ${withItems.length}, retry answered ${rig.svc.deliveries.list(ACCOUNT).find((d) => d.retry_of === first.id)?.last_status_code}`,
    );
    expect(withItems).toHaveLength(1);

    // The secret kept at activation still verifies after the restart: a new change runs.
    rig.svc.createChange(ACCOUNT, { registry_code: code, category: 'registry', kind: 'name_changed' });
    await wait('a new execution with items', async () => (await executions()).filter((e: any) => itemsOf(e) > 0).length === 2, 30_000);
  }, 600_000);
});
