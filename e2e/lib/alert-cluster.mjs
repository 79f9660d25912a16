// The alert path on n8n's distributed engine, set up once for the queue-mode e2e and the alert-path
// benchmark: Redis, PostgreSQL, the sandbox (through the CLI), a chat receiver, n8n in queue mode
// (main, webhook processes behind nginx, workers), and the alert-to-chat example published with this
// package's credential.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createCredential, createWorkflow, publishWorkflow } from './n8n.mjs';
import { sqlText, startPostgres, startQueueN8n, startRedis } from './queue.mjs';
import { startSandboxCli } from './sandbox.mjs';
import { startChatReceiver } from './chat.mjs';
import { adaptExample, CREDENTIAL_NAME, findNode, readExample } from './examples.mjs';
import { waitFor } from './checks.mjs';

export const TRIGGER = 'Company Data Trigger';
export const CHAT_NODE = 'Post to chat';

/**
 * Starts everything; every stop function goes into `cleanups` as soon as its process runs, so a failed
 * start leaves nothing behind. `env`: extra n8n settings for every process; `balance`: see BALANCING in queue.mjs. Returns { redis, postgres, sandbox, apiKey, chat, work, q, n8n }.
 * @param {{ repoDir: string, runtime: import('./runtime.mjs').RuntimePaths, webhooks: number, workers: number, balance?: string, env?: Record<string, string>, keep?: boolean,
 *   cleanups: (() => Promise<unknown>)[], log: (m: string) => unknown }} opts
 */
export async function startAlertCluster({ repoDir, runtime, webhooks, workers, balance, env = {}, keep = false, cleanups, log }) {
  const redis = await startRedis({ log: (m) => log(`[redis] ${m}`) });
  cleanups.push(() => redis.stop());
  const postgres = await startPostgres({ log: (m) => log(`[postgres] ${m}`) });
  cleanups.push(() => postgres.stop());
  const apiKey = `sk_api_${randomBytes(20).toString('hex')}`;
  const sandbox = await startSandboxCli({ repoDir, apiKey, companies: 2000 });
  cleanups.push(() => sandbox.stop());
  const chat = await startChatReceiver();
  cleanups.push(() => chat.close());
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'company-data-queue-'));
  cleanups.push(async () => {
    if (!keep) fs.rmSync(work, { recursive: true, force: true });
    else log(`[keep] ${work} (n8n.log, n8n-webhook-*.log, n8n-worker-*.log)`);
  });
  const q = await startQueueN8n({
    runtime,
    packageDir: repoDir,
    userFolder: path.join(work, 'n8n'),
    redis,
    postgres,
    webhooks,
    workers,
    balance,
    env,
    log: (m) => log(`[n8n] ${m}`),
  });
  cleanups.push(() => q.stop());
  return { redis, postgres, sandbox, apiKey, chat, work, q, n8n: q.main };
}

/** @typedef {Awaited<ReturnType<typeof startAlertCluster>>} AlertCluster */

/**
 * Creates the credential and the alert-to-chat example (its chat message also carries the event id,
 * so messages can be counted per event), publishes it and waits until the sandbox's webhook points at
 * the webhook processes. Returns { credential, wf, hookUrl, triggerNodeId }.
 * @param {Pick<AlertCluster, 'n8n' | 'apiKey' | 'sandbox' | 'chat' | 'q'>} c
 * @param {{ chatPath: string }} opts
 */
export async function publishAlert(c, { chatPath }) {
  const credential = await createCredential(c.n8n, {
    name: CREDENTIAL_NAME,
    type: 'companyDataApi',
    data: { apiKey: c.apiKey, baseUrl: c.sandbox.url, authStyle: 'xApiKey', webhookSigningSecret: '' },
  });
  const json = adaptExample(readExample('alert-to-chat.json'), { credential, chatUrl: `${c.chat.url}${chatPath}` });
  const chatNode = findNode(json, (nd) => nd.name === CHAT_NODE, CHAT_NODE);
  chatNode.parameters = { ...chatNode.parameters, jsonBody: '={{ JSON.stringify({ text: $json.summary, event_id: $json.id }) }}' };
  const trigger = findNode(json, (nd) => nd.name === TRIGGER, TRIGGER);
  const wf = await createWorkflow(c.n8n, json);
  const hookUrl = `${c.q.webhookBase}/webhook/${trigger.webhookId}/webhook`;
  await publishWorkflow(c.n8n, wf.id);
  await waitFor(`GET /webhook to point at ${hookUrl}`, async () => {
    const hook = await c.sandbox.call('GET', '/webhook').catch(() => undefined);
    return hook?.url === hookUrl && hook.enabled === true;
  });
  return { credential, wf, hookUrl, triggerNodeId: trigger.id };
}

/**
 * The secret the trigger got from the service at activation, as n8n keeps it (node static data).
 * @param {Pick<import('./queue.mjs').Postgres, 'query'>} postgres
 * @param {string} workflowId
 * @returns {string}
 */
export function signingSecret(postgres, workflowId) {
  const [[staticData] = []] = postgres.query(`SELECT "staticData" FROM workflow_entity WHERE id = ${sqlText(workflowId)}`);
  /** @type {Record<string, { signingSecret?: string } | null>} */
  const nodes = JSON.parse(staticData ?? '{}');
  const secret = Object.values(nodes).find((v) => v?.signingSecret)?.signingSecret;
  if (!secret) throw new Error('no signing secret in the workflow static data');
  return secret;
}
