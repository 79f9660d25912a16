// bench/alert-path.bench.mjs --compare: the Company Data Trigger's cost per delivery against n8n's own
// Webhook node, both on one cluster and the same deliveries, per n8n setting (issue 36).
import { createCredential } from '../e2e/lib/n8n.mjs';
import { burstEvents, signer, withCopies } from '../e2e/lib/burst.mjs';
import { signingSecret, startAlertCluster } from '../e2e/lib/alert-cluster.mjs';
import { CREDENTIAL_NAME } from '../e2e/lib/examples.mjs';
import { deliveryCost, publishN8nWebhook, publishTriggerWithNoOp } from '../e2e/lib/delivery-cost.mjs';
import { root } from './support.mjs';

const LAZY = { N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE: 'true' };

/** The settings measured: n8n environment, webhook processes, nginx balancing. */
/** @type {Record<string, { env: Record<string, string>, webhooks: number, balance?: string, label: string }>} */
export const SETTINGS = {
  defaults: { env: {}, webhooks: 1, label: "n8n's defaults, 1 webhook process" },
  lazy: { env: LAZY, webhooks: 1, label: 'N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true, 1 webhook process' },
  'lazy-event-id': {
    env: LAZY,
    webhooks: 2,
    balance: 'event-id',
    label: 'N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true, 2 webhook processes routed by event id',
  },
};

/** Deliveries sent to each workflow before the measured ones: loads code paths and database plans. */
const WARM_UP = 30;

/**
 * One fresh cluster with `setting`: n8n's Webhook node, then the trigger, on the same deliveries.
 * @param {{ runtime: import('../e2e/lib/runtime.mjs').RuntimePaths, setting: string, events: number, keep: boolean, log: (m: string) => void }} opts
 */
async function measureSetting({ runtime, setting, events, keep, log }) {
  const s = SETTINGS[setting];
  if (!s) throw new Error(`--settings: one of ${Object.keys(SETTINGS).join(', ')}, not ${setting}`);
  /** @type {(() => Promise<unknown>)[]} */
  const cleanups = [];
  try {
    const c = await startAlertCluster({
      repoDir: root,
      runtime,
      webhooks: s.webhooks,
      workers: 2,
      balance: s.balance,
      env: s.env,
      keep,
      cleanups,
      log,
    });
    const credential = await createCredential(c.n8n, {
      name: CREDENTIAL_NAME,
      type: 'companyDataApi',
      data: { apiKey: c.apiKey, baseUrl: c.sandbox.url, authStyle: 'xApiKey', webhookSigningSecret: '' },
    });
    const n8nNode = await publishN8nWebhook(c);
    const trigger = await publishTriggerWithNoOp(c, credential);
    const sign = await signer(root, signingSecret(c.postgres, trigger.wf.id));
    const webhookPids = () => c.q.webhooks.map((p) => p.pid);
    const burst = burstEvents(events, setting.replace(/\W/g, ''));
    const deliveries = withCopies(burst);
    const ids = burst.map((e) => e.id);
    const warm = withCopies(burstEvents(WARM_UP, `warm${setting.replace(/\W/g, '')}`));
    const common = { deliveries, events, sign, postgres: c.postgres, webhookPids };
    for (const target of [n8nNode, trigger])
      await deliveryCost({ ...common, deliveries: warm, events: WARM_UP, url: target.url, workflowId: target.wf.id });
    log(`[bench] ${s.label}: n8n's Webhook node, ${deliveries.length} deliveries of ${events} events`);
    const n8n = await deliveryCost({ ...common, url: n8nNode.url, workflowId: n8nNode.wf.id });
    log(`[bench] ${s.label}: n8n's Webhook node ${JSON.stringify(n8n)}`);
    const ours = await deliveryCost({ ...common, url: trigger.url, workflowId: trigger.wf.id, nodeId: trigger.nodeId, ids });
    log(`[bench] ${s.label}: Company Data Trigger ${JSON.stringify(ours)}`);
    return { label: s.label, n8n, trigger: ours };
  } finally {
    for (const fn of cleanups.reverse()) await fn().catch((e) => log(`cleanup: ${e.message}`));
  }
}

/** @param {number} n */
const r2 = (n) => Math.round(n * 100) / 100;

/**
 * Every setting in turn; ratios of the trigger against n8n's node at n8n's defaults (the first setting measured
 * when `defaults` is not among them) and against n8n's node on the same setting.
 * @param {{ runtime: import('../e2e/lib/runtime.mjs').RuntimePaths, events: number, settings: string[], keep: boolean, log: (m: string) => void }} opts
 */
export async function compareDeliveryCost({ runtime, events, settings, keep, log }) {
  /** @type {Record<string, Awaited<ReturnType<typeof measureSetting>>>} */
  const runs = {};
  for (const setting of settings) runs[setting] = await measureSetting({ runtime, setting, events, keep, log });
  const reference = (runs.defaults ?? Object.values(runs)[0]).n8n;
  /** @type {string[]} */
  const table = [
    '| Setting | Node | Events/s (to last execution) | Deliveries answered/s | Answer p50 / p99 / max (ms) | Webhook CPU ms / delivery | PostgreSQL CPU ms / execution | Executions | Events/s ÷ n8n defaults | CPU ÷ n8n defaults | Events/s ÷ n8n same setting |',
    '| --- | --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  const figures = { events, reference: 'n8n Webhook node, defaults', settings: /** @type {Record<string, unknown>} */ ({}) };
  for (const [setting, r] of Object.entries(runs)) {
    const ratios = {
      eventsVsN8nDefaults: r2(r.trigger.eventsPerSecond / reference.eventsPerSecond),
      cpuVsN8nDefaults: r2(r.trigger.webhookCpuMsPerDelivery / reference.webhookCpuMsPerDelivery),
      eventsVsN8nSameSetting: r2(r.trigger.eventsPerSecond / r.n8n.eventsPerSecond),
      p99Under1s: r.trigger.p99 < 1000,
    };
    figures.settings[setting] = { ...r, ratios };
    for (const ours of [false, true]) {
      const f = ours ? r.trigger : r.n8n;
      const node = ours ? 'Company Data Trigger' : "n8n's Webhook node";
      table.push(
        `| ${r.label} | ${node} | ${f.eventsPerSecond.toFixed(1)} | ${(f.deliveries / f.answeredSeconds).toFixed(1)} | ${f.p50} / ${f.p99} / ${f.max} | ${f.webhookCpuMsPerDelivery.toFixed(1)} | ${f.dbCpuMsPerExecution.toFixed(1)} | ${f.executions} | ` +
          (ours ? `${ratios.eventsVsN8nDefaults} | ${ratios.cpuVsN8nDefaults} | ${ratios.eventsVsN8nSameSetting} |` : '| | |'),
      );
    }
  }
  log(table.join('\n'));
  return figures;
}
