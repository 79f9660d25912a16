#!/usr/bin/env node
/**
 * The alert path on n8n's distributed engine (n8n 2.41.1 in queue mode, PostgreSQL, Redis): two webhook
 * processes behind nginx (round robin) and 1 or 2 workers, the alert-to-chat example published. For each
 * worker count, a fresh instance takes the scale scenario of e2e/queue-mode.mjs (e2e/lib/burst.mjs):
 * a burst of signed deliveries, a third of the events 2-3 times, webhook process 2 killed (SIGKILL)
 * and started again mid-burst, then every event redelivered once.
 * Figures: events/s from the first delivery to the last execution of the burst; answer time p50/p99/max
 * of every delivery (burst and redelivery); peak RSS (VmHWM) of each n8n process; duplicate alerts,
 * events that never ran, ids missing in n8n's processed-data store, failed executions.
 * --engine: n8n's expression engine (N8N_EXPRESSION_ENGINE: vm, n8n's default, or legacy). With vm, each
 * delivery to a trigger other than n8n's Webhook node waits for an isolate from a pool of one per
 * webhook process (docs/decisions/triggers-and-queue-mode.md, "Taking turns on n8n's processed-data store"), which sets the
 * answer times unless --n8n-env N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true (the README's advice).
 * --n8n-env K=V[,K=V]: further n8n settings for every process. --balance round-robin|event-id: how nginx
 * spreads deliveries (event-id: every copy of an event to one webhook process).
 * Run: node bench/alert-path.bench.mjs [--events 2000] [--workers 1,2] [--engine vm|legacy] [--n8n-env K=V] [--balance round-robin|event-id] [--keep]
 *
 * --compare: the cost per delivery (issue 36) instead: per setting a fresh cluster (main, 1 webhook process or
 * 2 behind nginx routed by event id, 2 workers), then on it n8n's own Webhook node → No Op and the Company Data
 * Trigger → No Op, one after the other, each with the same deliveries (--events events, a third of them sent
 * 2-3 times, as e2e/lib/burst.mjs makes them). Settings (--settings, comma-separated): defaults (n8n's,
 * 1 webhook process), lazy (N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true, 1 webhook process), lazy-event-id (lazy,
 * 2 webhook processes, nginx routing by event id). Ratios are against n8n's node at n8n's defaults.
 * Run: node bench/alert-path.bench.mjs --compare [--events 1000] [--settings defaults,lazy,lazy-event-id]
 */
import { ensureRuntime } from '../e2e/lib/runtime.mjs';
import { buildIfStale } from '../e2e/lib/build.mjs';
import { peakRssMb } from '../e2e/lib/queue.mjs';
import { alertBurst, rssWatch, signer } from '../e2e/lib/burst.mjs';
import { publishAlert, signingSecret, startAlertCluster } from '../e2e/lib/alert-cluster.mjs';
import { compareDeliveryCost } from './alert-cost.mjs';
import { arg, report, root } from './support.mjs';

const EVENTS = Number(arg('events', 2000));
const WORKERS = String(arg('workers', '1,2')).split(',').map(Number);
const ENGINE = String(arg('engine', 'vm'));
// Further n8n settings for every process, e.g. --n8n-env N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true,N8N_EXPRESSION_ENGINE_POOL_SIZE=2
const N8N_ENV = Object.fromEntries(
  String(arg('n8n-env', ''))
    .split(',')
    .filter(Boolean)
    .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
);
// How nginx spreads deliveries over the two webhook processes (BALANCING in e2e/lib/queue.mjs).
const BALANCE = String(arg('balance', 'round-robin'));
const keep = process.argv.includes('--keep');
const log = (/** @type {string} */ m) => process.stdout.write(`${m}\n`);

const runtime = await ensureRuntime({ log: (m) => log(`[runtime] ${m}`) });
await buildIfStale(root, (m) => log(`[build] ${m}`));

if (process.argv.includes('--compare')) {
  const settings = String(arg('settings', 'defaults,lazy,lazy-event-id')).split(',');
  report('alert-path-compare', await compareDeliveryCost({ runtime, events: Number(arg('events', 1000)), settings, keep, log }));
  process.exit(0);
}

/** @type {Record<string, unknown>} */
const figures = { events: EVENTS, engine: ENGINE, n8nEnv: N8N_ENV, balance: BALANCE };
for (const workers of WORKERS) {
  /** @type {(() => Promise<unknown>)[]} */
  const cleanups = [];
  try {
    const t0 = Date.now();
    const c = await startAlertCluster({
      repoDir: root,
      runtime,
      webhooks: 2,
      workers,
      balance: BALANCE,
      env: { N8N_EXPRESSION_ENGINE: ENGINE, ...N8N_ENV },
      keep,
      cleanups,
      log,
    });
    log(`[bench] ${workers} worker(s), expression engine ${ENGINE}, ${BALANCE}: instance up in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    const chatPath = '/alert';
    const { wf, hookUrl, triggerNodeId } = await publishAlert(c, { chatPath });
    const processes = () => [
      { name: 'main', pid: c.q.main.pid },
      ...c.q.webhooks.map((p) => ({ name: p.logName, pid: p.pid })),
      ...c.q.workers.map((p) => ({ name: p.logName, pid: p.pid })),
    ];
    const rss = rssWatch(processes, peakRssMb);
    const r = await alertBurst({
      q: c.q,
      postgres: c.postgres,
      chat: c.chat,
      chatPath,
      workflowId: wf.id,
      nodeId: triggerNodeId,
      hookUrl,
      sign: await signer(root, signingSecret(c.postgres, wf.id)),
      count: EVENTS,
      prefix: `w${workers}`,
      restartIndex: 1,
      log: (m) => log(`[bench] ${m}`),
    });
    const peaks = rss.stop();
    const warnings = c.q.webhooks.map((p) => (p.logText().match(/MaxListenersExceededWarning/g) ?? []).length);
    figures[`workers${workers}`] = {
      ...r,
      postedTwice: r.postedTwice.length,
      notPosted: r.notPosted.length,
      missingIds: r.processedData.missing.length,
      processedEntries: r.processedData.entries,
      failedExecutions: r.executions - (r.byStatus.success ?? 0) - r.orphans,
      peakRssMb: peaks,
      maxListenersWarnings: warnings,
      processedData: undefined,
    };
    log(`[bench] ${workers} worker(s): ${JSON.stringify(figures[`workers${workers}`])}`);
  } finally {
    for (const fn of cleanups.reverse()) await fn().catch((e) => log(`cleanup: ${e.message}`));
  }
}
report('alert-path', figures);
process.exit(0);
