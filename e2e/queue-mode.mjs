#!/usr/bin/env node
// The trigger's "each event once" in n8n 2.41.1 queue mode: main + one `n8n webhook` + one
// `n8n worker` on PostgreSQL and Redis (throwaway children). Webhook processes and workers share no
// memory, so only n8n's processed-data store (database) can stop a redelivered event; the webhook
// process is killed and restarted between deliveries to show that the in-memory layer is not it.
// Usage: node e2e/queue-mode.mjs [--keep]   (--keep leaves the n8n user folder with the three logs)
// Prints "N passed, N failed" and exits 1 when a check failed.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureRuntime } from './lib/runtime.mjs';
import { createCredential, createWorkflow, listExecutions, nodeTypeNames, publishWorkflow, sleep } from './lib/n8n.mjs';
import { startPostgres, startQueueN8n, startRedis } from './lib/queue.mjs';
import { startSandboxCli } from './lib/sandbox.mjs';
import { startChatReceiver } from './lib/chat.mjs';
import { adaptExample, CREDENTIAL_NAME, readExample } from './lib/examples.mjs';
import { buildIfStale } from './lib/build.mjs';
import { assert, assertEqual, checkRun, waitFor } from './lib/checks.mjs';

const repoDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const keep = process.argv.includes('--keep');
const { secs, log, check, cleanups, finish } = checkRun({ traceLines: 8 });

const TRIGGER = 'Company Data Trigger';
const CHAT_NODE = 'Post to chat';
const triggerItems = (ex) => ex.data?.resultData?.runData?.[TRIGGER]?.[0]?.data?.main?.[0]?.length ?? 0;
const postedToChat = (ex) => Boolean(ex.data?.resultData?.runData?.[CHAT_NODE]);

async function main() {
  log('Trigger dedupe in n8n queue mode (main + webhook + worker, PostgreSQL, Redis)');
  const runtime = await ensureRuntime({ log: (m) => log(`[runtime] ${m}`) });
  await buildIfStale(repoDir, (m) => log(`[build] ${m}`));

  let t = Date.now();
  const redis = await startRedis({ log: (m) => log(`[redis] ${m}`) });
  cleanups.push(() => redis.stop());
  log(`[redis] 127.0.0.1:${redis.port} (${secs(t)})`);
  const postgres = await startPostgres({ log: (m) => log(`[postgres] ${m}`) });
  cleanups.push(() => postgres.stop());

  const apiKey = `sk_api_${randomBytes(20).toString('hex')}`;
  const sandbox = await startSandboxCli({ repoDir, apiKey, companies: 2000 });
  cleanups.push(() => sandbox.stop());
  // Every delivery is sent three times (the original and two copies); no random detections.
  await sandbox.call('PUT', '/sandbox/settings', { duplicate_rate: 1, duplicate_copies: 2, detection_rate: 0 });
  const chat = await startChatReceiver();
  cleanups.push(() => chat.close());

  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'company-data-queue-'));
  cleanups.push(async () => {
    if (!keep) fs.rmSync(work, { recursive: true, force: true });
    else log(`[keep] ${work} (n8n.log, n8n-webhook.log, n8n-worker.log)`);
  });

  t = Date.now();
  const q = await startQueueN8n({ runtime, packageDir: repoDir, userFolder: path.join(work, 'n8n'), redis, postgres, log: (m) => log(`[n8n] ${m}`) });
  cleanups.push(() => q.stop());
  log(`[time] main, worker and webhook process started in ${secs(t)}`);
  const n8n = q.main;

  let credential;
  let wf;
  let hookUrl;
  const chatPath = '/alert';
  const monitored = ['13545698', '14453248', '12623091'];

  await check('queue mode: the package loads in main; worker and webhook process are up on the same database', async () => {
    const names = await nodeTypeNames(n8n);
    assert(names.includes('n8n-nodes-company-data.companyDataTrigger'), 'trigger node type not loaded in main');
    assert(/n8n worker is now ready/.test(q.worker.logText()), 'worker did not say it is ready');
    assert(/Webhook listener waiting for requests/.test(q.webhook.logText()), 'webhook process did not say it listens');
  });

  await check('alert: publishing in main registers the webhook PROCESS\'s production URL with the sandbox', async () => {
    credential = await createCredential(n8n, {
      name: CREDENTIAL_NAME,
      type: 'companyDataApi',
      data: { apiKey, baseUrl: sandbox.url, authStyle: 'xApiKey', webhookSigningSecret: '' },
    });
    const watch = await sandbox.call('POST', '/monitoring/lists', { name: 'Queue watch' });
    await sandbox.call('POST', `/monitoring/lists/${watch.id}/companies`, { add: monitored.map((registry_code) => ({ registry_code })) });
    const json = adaptExample(readExample('alert-to-chat.json'), { credential, chatUrl: `${chat.url}${chatPath}` });
    wf = await createWorkflow(n8n, json);
    hookUrl = `${q.webhook.baseUrl}/webhook/${json.nodes.find((nd) => nd.name === TRIGGER).webhookId}/webhook`;
    await publishWorkflow(n8n, wf.id);
    await waitFor(`GET /webhook to point at ${hookUrl}`, async () => {
      const hook = await sandbox.call('GET', '/webhook').catch(() => undefined);
      return hook?.url === hookUrl && hook.enabled === true;
    });
  });

  const executions = () => listExecutions(n8n, { workflowId: wf.id, includeData: true });
  const settled = async () => {
    // Executions are saved by the worker; wait until none is still queued or running.
    await waitFor('executions to finish', async () => (await executions()).every((e) => !['new', 'running', 'waiting'].includes(e.status)), { timeoutMs: 30_000 });
    return executions();
  };
  const deliveries = async () => (await sandbox.call('GET', '/webhook/deliveries?limit=100')) ?? [];
  const retry = async (id) => {
    await sandbox.call('POST', `/webhook/deliveries/${id}/retry`);
    return waitFor(`the redelivery of ${id}`, async () => (await deliveries()).find((d) => d.retry_of === id && d.status === 'delivered'));
  };
  const assertAllOnWorker = (list) => {
    const workerLog = q.worker.logText();
    const notOnWorker = list.filter((e) => !workerLog.includes(`Worker started execution ${e.id} `));
    assertEqual(notOnWorker.map((e) => e.id), [], 'executions not run by the worker');
  };
  const assertDuplicatesEmpty = (list, withItems) => {
    const extra = list.filter((e) => triggerItems(e) === 0);
    assertEqual(list.length, withItems + extra.length, 'executions: with items + without');
    const bad = extra.filter((e) => e.status !== 'success' || postedToChat(e));
    assertEqual(bad.map((e) => [e.id, e.status]), [], 'duplicate executions that failed or posted');
    return extra.length;
  };

  const changes = [];
  const firstDelivery = {};
  await check('two changes, each delivered 3 times, plus a retry: one chat message per event; duplicates end with no items on the worker', async () => {
    for (const [registry_code, kind] of [[monitored[0], 'name_changed'], [monitored[2], 'address_changed']]) {
      const res = await sandbox.call('POST', '/sandbox/changes', { registry_code, category: 'registry', kind });
      assertEqual(res.events.length, 1, `events for ${registry_code}`);
      changes.push(res.events[0]);
    }
    await waitFor('every copy of both events to be delivered', async () => {
      const ds = (await deliveries()).filter((d) => changes.includes(d.event_id));
      return ds.length === 2 && ds.every((d) => d.status === 'delivered' && d.log.filter((a) => a.duplicate && a.status_code === 200).length === 2);
    });
    for (const d of await deliveries()) if (changes.includes(d.event_id) && !d.retry_of) firstDelivery[d.event_id] = d;
    await retry(firstDelivery[changes[0]].id);
    await waitFor('two chat messages', () => chat.at(chatPath).length >= 2, { timeoutMs: 30_000 });
    await sleep(2000); // room for a wrong extra message
    assertEqual(chat.at(chatPath).length, 2, `chat messages (${JSON.stringify(chat.at(chatPath).map((m) => m.body.text))})`);
    const list = await settled();
    assertEqual(list.filter((e) => triggerItems(e) > 0).length, 2, 'executions with the event');
    const extra = assertDuplicatesEmpty(list, 2);
    assertAllOnWorker(list);
    log(`        ${list.length} executions, all on the worker; ${extra} duplicate(s) reached the worker and ended with no items`);
  });

  await check('webhook process killed (SIGKILL) and restarted: redelivered events start executions that end with no items, no message', async () => {
    const before = (await settled()).length;
    const tRestart = Date.now();
    await q.restartWebhook();
    log(`        webhook process restarted in ${secs(tRestart)}`);
    // The fresh process has an empty memory: the redeliveries pass webhook() and only the worker's
    // processed-data check (PostgreSQL) can stop them.
    for (const id of changes) await retry(firstDelivery[id].id);
    await sleep(2000);
    const list = await settled();
    const fresh = list.slice(0, list.length - before);
    assert(fresh.length >= 2, `each redelivery should start an execution in the restarted webhook process (memory empty), got ${fresh.length}`);
    assertEqual(fresh.filter((e) => triggerItems(e) > 0).map((e) => e.id), [], 'executions with items after the redeliveries');
    assertDuplicatesEmpty(fresh, 0);
    assertAllOnWorker(fresh);
    assertEqual(chat.at(chatPath).length, 2, 'chat messages after the redeliveries');
    log(`        ${fresh.length} executions started by ${changes.length} redeliveries, all on the worker, all ended with no items`);
  });

  await check('after the restart a new change still posts exactly one message (3 copies)', async () => {
    const res = await sandbox.call('POST', '/sandbox/changes', { registry_code: monitored[1], category: 'registry', kind: 'name_changed' });
    await waitFor('a third chat message', () => chat.at(chatPath).length >= 3, { timeoutMs: 30_000 });
    await waitFor('all copies delivered', async () => (await deliveries()).some((d) => d.event_id === res.events[0] && d.log.filter((a) => a.duplicate && a.status_code === 200).length === 2));
    await sleep(2000);
    assertEqual(chat.at(chatPath).length, 3, 'chat messages');
    const list = await settled();
    assertEqual(list.filter((e) => triggerItems(e) > 0).length, 3, 'executions with an event in all');
  });

  await check('a forged and an unsigned delivery to the webhook process get 401 and start no execution', async () => {
    const before = (await settled()).length;
    const body = JSON.stringify({ id: 'evt_forged_q1', type: 'monitoring.change', created_at: new Date().toISOString(), data: {} });
    const forged = await fetch(hookUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-service-event-id': 'evt_forged_q1',
        'x-service-timestamp': String(Math.floor(Date.now() / 1000)),
        'x-service-signature': `v1=${randomBytes(32).toString('hex')}`,
      },
      body,
    });
    assertEqual(forged.status, 401, 'status of a forged delivery');
    const unsigned = await fetch(hookUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    assertEqual(unsigned.status, 401, 'status of an unsigned delivery');
    await sleep(2000);
    assertEqual((await executions()).length, before, 'executions after forged deliveries');
    assertEqual(chat.at(chatPath).length, 3, 'chat messages after forged deliveries');
  });
}

await finish(main);
