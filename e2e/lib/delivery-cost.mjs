// What one delivery costs n8n in queue mode, for n8n's own Webhook node and for the Company Data Trigger
// on the same cluster and the same deliveries (bench/alert-path.bench.mjs --compare): events per second
// from the first delivery to the last execution, the answer times the sender sees, and the CPU time the
// webhook process(es) and PostgreSQL spent per delivery (utime + stime from /proc, sampled before and after).
import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import { createWorkflow, publishWorkflow } from './n8n.mjs';
import { answerStats, deliver, n8nState, processedData, settle } from './burst.mjs';
import { adaptExample, findNode, readExample } from './examples.mjs';
import { TRIGGER } from './alert-cluster.mjs';
import { waitFor } from './checks.mjs';

/** Clock ticks per second of /proc/<pid>/stat (getconf CLK_TCK: 100 on Linux). */
const TICKS = 100;

/**
 * CPU time (ms) process `pid` has used so far; 0 when it is gone.
 * @param {number | undefined} pid
 */
export function cpuMs(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / TICKS;
  } catch {
    return 0;
  }
}

/**
 * Pids of `pid` and its children (PostgreSQL: the postmaster and one backend per connection).
 * @param {number} pid
 */
export function withChildren(pid) {
  const out = [pid];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) out.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/**
 * A CPU meter over a set of processes, read again at each sample (backends come and go).
 * @param {() => (number | undefined)[]} pids
 */
function cpuMeter(pids) {
  /** @type {Map<number | undefined, number>} */
  const start = new Map(pids().map((p) => [p, cpuMs(p)]));
  return () => {
    let sum = 0;
    for (const p of pids()) sum += cpuMs(p) - (start.get(p) ?? 0);
    return sum;
  };
}

const NO_OP = { name: 'No Op', type: 'n8n-nodes-base.noOp', typeVersion: 1, parameters: {} };

/**
 * `start` → No Op, created and published.
 * @param {import('./n8n.mjs').ApiTarget} n8n
 * @param {string} name
 * @param {Record<string, any>} start
 */
async function publishWithNoOp(n8n, name, start) {
  const wf = await createWorkflow(n8n, {
    name,
    nodes: [start, { ...NO_OP, id: randomUUID(), position: [220, 0] }],
    connections: { [start.name]: { main: [[{ node: NO_OP.name, type: 'main', index: 0 }]] } },
    settings: { executionOrder: 'v1' },
  });
  await publishWorkflow(n8n, wf.id);
  return wf;
}

/**
 * n8n's own Webhook node (version 2, POST, fixed path, answer on receipt: the settings n8n runs without an
 * expression isolate) → No Op. Returns { wf, url }.
 * @param {{ n8n: import('./n8n.mjs').ApiTarget, q: { webhookBase: string } }} c
 */
export async function publishN8nWebhook(c) {
  const path = `bench-n8n-webhook-${randomUUID().slice(0, 8)}`;
  const wf = await publishWithNoOp(c.n8n, 'bench: n8n Webhook node', {
    id: randomUUID(),
    name: 'Webhook',
    type: 'n8n-nodes-base.webhook',
    typeVersion: 2,
    position: [0, 0],
    webhookId: randomUUID(),
    parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} },
  });
  return { wf, url: `${c.q.webhookBase}/webhook/${path}` };
}

/**
 * The Company Data Trigger of the alert-to-chat example (fixed settings) → No Op, published; waits until the
 * sandbox's webhook points at it. Returns { wf, url, nodeId }.
 * @param {{ n8n: import('./n8n.mjs').ApiTarget, q: { webhookBase: string }, sandbox: { call(method: string, path: string): Promise<any> } }} c
 * @param {{ id: string, name: string }} credential
 */
export async function publishTriggerWithNoOp(c, credential) {
  const example = adaptExample(readExample('alert-to-chat.json'), { credential });
  const trigger = { ...findNode(example, (nd) => nd.name === TRIGGER, TRIGGER), id: randomUUID(), webhookId: randomUUID() };
  const wf = await publishWithNoOp(c.n8n, 'bench: Company Data Trigger', trigger);
  const url = `${c.q.webhookBase}/webhook/${trigger.webhookId}/webhook`;
  await waitFor(`GET /webhook to point at ${url}`, async () => {
    const hook = await c.sandbox.call('GET', '/webhook').catch(() => undefined);
    return hook?.url === url && hook.enabled === true;
  });
  return { wf, url, nodeId: trigger.id };
}

/**
 * Sends `deliveries` to `url` (8 in flight) and waits for every execution of `workflowId` to end.
 * Webhook-process CPU is counted until the last answer (their part ends there, the workers run the
 * executions), PostgreSQL's until the last execution ended.
 * @param {{ url: string, deliveries: import('./burst.mjs').Delivery[], events: number, sign: import('./burst.mjs').Sign,
 *   postgres: import('./queue.mjs').Postgres, workflowId: string, webhookPids: () => (number | undefined)[], nodeId?: string, ids?: string[] }} opts
 */
export async function deliveryCost({ url, deliveries, events, sign, postgres, workflowId, webhookPids, nodeId, ids }) {
  const before = n8nState(postgres, workflowId).maxId;
  const webhookCpu = cpuMeter(webhookPids);
  const pg = postgres.pid;
  const dbCpu = cpuMeter(() => (pg === undefined ? [] : withChildren(pg)));
  const t0 = Date.now();
  const results = await deliver(url, deliveries, { sign });
  const answeredMs = Date.now() - t0;
  const webhookCpuMs = webhookCpu();
  const state = await settle(postgres, workflowId, before);
  const dbCpuMs = dbCpu();
  const seconds = ((state.lastStoppedAt ?? Date.now()) - t0) / 1000;
  const answers = answerStats(results);
  const stored = nodeId && ids ? processedData(postgres, workflowId, nodeId, ids) : undefined;
  return {
    events,
    deliveries: deliveries.length,
    eventsPerSecond: events / seconds,
    deliveriesPerSecond: deliveries.length / seconds,
    seconds,
    answeredSeconds: answeredMs / 1000,
    p50: answers.p50,
    p99: answers.p99,
    max: answers.max,
    failed: answers.failed,
    failures: answers.failures,
    webhookCpuMsPerDelivery: webhookCpuMs / deliveries.length,
    dbCpuMsPerExecution: dbCpuMs / Math.max(1, state.executions),
    executions: state.executions,
    byStatus: state.byStatus,
    storeEntries: stored?.entries,
    storeMissing: stored?.missing.length,
  };
}
