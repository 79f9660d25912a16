// A morning burst of monitoring changes into n8n in queue mode, as the service sends it: one signed
// HTTPS POST per delivery (here HTTP to the balancer), several in flight, some events delivered more than
// once, failed deliveries sent again. Used by e2e/queue-mode.mjs (the scale check) and
// bench/alert-path.bench.mjs (the figures). Signing is the package's own (packages/core/webhooks/sign.ts, through
// the tool package's build), so what n8n verifies is exactly what the service would send.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { sleep } from './n8n.mjs';
import { sqlText } from './queue.mjs';

/** @typedef {(body: string, eventId: string) => Record<string, string>} Sign the signature headers of one delivery */
/** @typedef {{ id: string, body: string }} BurstEvent */
/** @typedef {BurstEvent & { copy: number | string }} Delivery copy: 0 for the first, then 1, 2, or a retry's name */
/** @typedef {{ id: string, copy: number | string, status: number, ms: number, error: string | undefined }} DeliveryResult */
/** @typedef {Pick<import('./queue.mjs').Postgres, 'query'>} Psql */

/**
 * The signer of the built tool package (packages/company-data/dist, built by buildIfStale).
 * @param {string} repoDir
 * @param {string} secret
 * @returns {Promise<Sign>}
 */
export async function signer(repoDir, secret) {
  const { signWebhook } = await import(pathToFileURL(path.join(repoDir, 'packages/company-data/dist/index.js')).href);
  return (body, eventId) => signWebhook({ secret, body, eventId });
}

/**
 * `count` monitoring.change events (ids `evt_<prefix>_<n>`), bodies as the service would send them.
 * @param {number} count
 * @param {string} prefix
 * @returns {BurstEvent[]}
 */
export function burstEvents(count, prefix) {
  const at = new Date().toISOString();
  return Array.from({ length: count }, (_, n) => {
    const id = `evt_${prefix}_${n}`;
    const code = String(10_000_000 + n);
    const body = JSON.stringify({
      id,
      type: 'monitoring.change',
      created_at: at,
      data: {
        company: { registry_code: code, name: `Burst ${n} OÜ` },
        lists: [{ id: 'lst_burst', name: 'Morning burst', external_ref: null }],
        category: 'tax',
        kind: 'tax_debt',
        tone: 'bad',
        details: { old: 0, new: 100 + n, snapshot_date: at.slice(0, 10) },
        detected_at: at,
      },
    });
    return { id, body };
  });
}

/**
 * The deliveries of a burst: every event once, and every third event 2 or 3 times in all (alternately).
 * The copies follow their original directly, so they are in flight together and round robin hands them
 * to different webhook processes.
 * @param {BurstEvent[]} events
 */
export function withCopies(events) {
  /** @type {Delivery[]} */
  const out = [];
  events.forEach((e, n) => {
    const copies = n % 3 === 0 ? (n % 2 === 0 ? 2 : 1) : 0;
    for (let c = 0; c <= copies; c++) out.push({ ...e, copy: c });
  });
  return out;
}

/**
 * POSTs `deliveries` to `url`, `concurrency` at a time, each signed at the moment it is sent.
 * `midway()` is started (not awaited) when half of them have been sent. Returns one result per
 * delivery: { id, copy, status, ms, error }; status 0 when no answer came (connection lost, or no
 * answer within `timeoutMs`).
 */
/**
 * @param {string} url
 * @param {Delivery[]} deliveries
 * @param {{ sign: Sign, concurrency?: number, timeoutMs?: number, midway?: () => unknown }} opts
 */
export async function deliver(url, deliveries, { sign, concurrency = 8, timeoutMs = 15_000, midway }) {
  /** @type {DeliveryResult[]} */
  const results = [];
  let next = 0;
  let midwayStarted = !midway;
  const half = Math.floor(deliveries.length / 2);
  async function lane() {
    while (next < deliveries.length) {
      const d = deliveries[next++];
      if (!midwayStarted && next >= half) {
        midwayStarted = true;
        midway?.();
      }
      const t0 = performance.now();
      let status = 0;
      /** @type {string | undefined} */
      let error;
      try {
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'user-agent': 'Service-Webhooks/1.0', ...sign(d.body, d.id) },
          body: d.body,
          signal: AbortSignal.timeout(timeoutMs),
        });
        await res.arrayBuffer();
        status = res.status;
      } catch (err) {
        const e = /** @type {{ cause?: { code?: string }, name?: string } | null | undefined} */ (err);
        error = e?.cause?.code ?? e?.name ?? String(err);
      }
      results.push({ id: d.id, copy: d.copy, status, ms: performance.now() - t0, error });
    }
  }
  await Promise.all(Array.from({ length: concurrency }, lane));
  return results;
}

/**
 * @param {number[]} sorted ascending
 * @param {number} p 0..1
 */
export const quantile = (sorted, p) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] : NaN);

/**
 * Answer times of the deliveries that got an answer: p50, p99, max (ms); plus counts.
 * @param {DeliveryResult[]} results
 */
export function answerStats(results) {
  const ok = results.filter((r) => r.status >= 200 && r.status < 300);
  const ms = results
    .filter((r) => r.status !== 0)
    .map((r) => r.ms)
    .sort((a, b) => a - b);
  // What the failed ones got: an HTTP status, or the error of a request that got none.
  /** @type {Record<string, number>} */
  const failures = {};
  for (const r of results) {
    const key = String(r.status || r.error);
    if (!(r.status >= 200 && r.status < 300)) failures[key] = (failures[key] ?? 0) + 1;
  }
  return {
    deliveries: results.length,
    answered2xx: ok.length,
    failures,
    failed: results.length - ok.length,
    over10s: results.filter((r) => r.ms > 10_000).length,
    p50: Math.round(quantile(ms, 0.5)),
    p99: Math.round(quantile(ms, 0.99)),
    max: Math.round(ms.at(-1) ?? NaN),
  };
}

/**
 * How n8n's processed-data store keys a value (DeduplicationHelper.createValueHash).
 * @param {unknown} value
 */
export const processedDataHash = (value) => createHash('md5').update(String(value)).digest('base64');

/**
 * n8n's executions of the workflow after `afterId`, from PostgreSQL in one query (polled every half second).
 * `killedAt` (ms): when a webhook process was SIGKILLed. An execution still 'new' that was created before
 * it is an orphan: its row was saved but the process died before queueing it, so it never runs (n8n has
 * no recovery for it; the delivery got no answer and the sender's retry runs the event). Orphans are
 * counted apart and not waited for.
 * @param {Psql} postgres
 * @param {string} workflowId
 * @param {number} [afterId]
 * @param {number} [killedAt]
 */
export function n8nState(postgres, workflowId, afterId = 0, killedAt = undefined) {
  const orphanCut = killedAt === undefined ? 'NULL' : `to_timestamp(${killedAt / 1000})`;
  const rows = postgres.query(
    `SELECT status, count(*), count(*) FILTER (WHERE status = 'new' AND "createdAt" <= ${orphanCut}), coalesce(to_char(max("stoppedAt") AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), ''), max(id) ` +
      `FROM execution_entity WHERE "workflowId" = ${sqlText(workflowId)} AND id > ${Number(afterId)} GROUP BY status`,
  );
  /** @type {Record<string, number>} */
  const byStatus = Object.fromEntries(rows.map(([s, n]) => [s, Number(n)]));
  const orphans = rows.reduce((sum, r) => sum + Number(r[2]), 0);
  const lastStop = rows
    .map((r) => r[3])
    .filter(Boolean)
    .sort()
    .at(-1);
  const executions = Object.values(byStatus).reduce((a, b) => a + b, 0);
  const unfinished = (byStatus.new ?? 0) + (byStatus.running ?? 0) + (byStatus.waiting ?? 0) - orphans;
  return {
    byStatus,
    executions,
    unfinished,
    orphans,
    lastStoppedAt: lastStop ? Date.parse(lastStop) : undefined,
    maxId: Math.max(Number(afterId), ...rows.map((r) => Number(r[4]))),
  };
}

/**
 * The trigger node's list in n8n's processed-data store: its entries, the ids among `ids` it does not
 * hold, and whether the turn row (the workflow-scope row) is there.
 * @param {Psql} postgres
 * @param {string} workflowId
 * @param {string} nodeId
 * @param {string[]} [ids]
 */
export function processedData(postgres, workflowId, nodeId, ids = []) {
  /** @type {Record<string, { data?: string[] }>} */
  const rows = Object.fromEntries(
    postgres
      .query(`SELECT context, value FROM processed_data WHERE "workflowId" = ${sqlText(workflowId)}`)
      .map(([context, value]) => [context, JSON.parse(value)]),
  );
  const data = rows[`n:${nodeId}`]?.data ?? [];
  const held = new Set(data);
  return { entries: data.length, missing: ids.filter((id) => !held.has(processedDataHash(id))), turnRow: '' in rows };
}

/**
 * Waits until no execution of the workflow is queued or running and `done()` holds; returns the state.
 * When nothing is left to run and the executions stay the same for `quietMs` while `done()` still fails,
 * returns anyway: what is missing then never comes, and the caller's checks name it.
 */
/** @typedef {ReturnType<typeof n8nState>} N8nState */
/**
 * @param {Psql} postgres
 * @param {string} workflowId
 * @param {number} afterId
 * @param {(state: N8nState) => boolean | Promise<boolean>} [done]
 * @param {{ timeoutMs?: number, quietMs?: number, killedAt?: number }} [opts]
 */
export async function settle(postgres, workflowId, afterId, done = () => true, { timeoutMs = 300_000, quietMs = 15_000, killedAt } = {}) {
  const until = Date.now() + timeoutMs;
  /** @type {{ mark: string, since: number } | undefined} */
  let idle;
  for (;;) {
    const state = n8nState(postgres, workflowId, afterId, killedAt);
    if (state.unfinished === 0 && (await done(state))) return state;
    const mark = state.unfinished === 0 ? `${state.executions}` : undefined;
    if (mark === undefined || mark !== idle?.mark) idle = mark === undefined ? undefined : { mark, since: Date.now() };
    else if (Date.now() - idle.since > quietMs) return state;
    if (Date.now() > until) throw new Error(`executions not settled within ${timeoutMs / 1000} s: ${JSON.stringify(state.byStatus)}`);
    await sleep(500);
  }
}

/** @param {DeliveryResult} r */
const answered = (r) => r.status >= 200 && r.status < 300;

/**
 * Peak resident memory per n8n process while a burst runs: VmHWM sampled every second by name.
 * @param {() => { name: string, pid: number | undefined }[]} processes
 * @param {(pid: number | undefined) => number | undefined} peakRssMb
 */
export function rssWatch(processes, peakRssMb) {
  /** @type {Record<string, number>} */
  const peaks = {};
  const sample = () => {
    for (const { name, pid } of processes()) {
      const mb = peakRssMb(pid);
      if (mb !== undefined) peaks[name] = Math.max(peaks[name] ?? 0, mb);
    }
  };
  sample();
  const timer = setInterval(sample, 1000);
  return {
    peaks,
    stop() {
      clearInterval(timer);
      sample();
      return peaks;
    },
  };
}

/**
 * The scale scenario on a running queue-mode instance whose alert workflow posts `{ event_id }` to
 * `chat` at `chatPath`: a burst of `count` events (a third of them 2-3 times), webhook process
 * `restartIndex` killed (SIGKILL) and started again when half the deliveries are out, failed deliveries
 * sent again until answered (the service's retries), then every event delivered once more.
 * `rotate` (optional): started when a quarter of the deliveries are out; it changes the signing secret where
 * the trigger reads it (the credential) and resolves to the new secret's signer, which signs every
 * delivery sent from then on (burst, retries and redelivery), while the ones in flight keep the old one.
 * Returns the figures and what the assertions need; asserts nothing itself.
 * @param {{ q: Pick<import('./queue.mjs').QueueN8n, 'restartWebhook'>, postgres: Psql, chat: Pick<import('./chat.mjs').ChatReceiver, 'at'>,
 *   chatPath: string, workflowId: string, nodeId: string, hookUrl: string, sign: Sign, count: number, prefix: string,
 *   restartIndex?: number, concurrency?: number, rotate?: () => Promise<Sign>, log?: (m: string) => void }} opts
 */
export async function alertBurst({
  q,
  postgres,
  chat,
  chatPath,
  workflowId,
  nodeId,
  hookUrl,
  sign: firstSign,
  count,
  prefix,
  restartIndex,
  concurrency = 8,
  rotate,
  log = () => {},
}) {
  const before = n8nState(postgres, workflowId).maxId;
  const events = burstEvents(count, prefix);
  const ids = events.map((e) => e.id);
  const deliveries = withCopies(events);
  const rotation = secretRotation(firstSign, rotate, Math.floor(deliveries.length / 4), log);
  const sign = rotation.sign;
  const posts = () => {
    /** @type {Map<string, number>} */
    const n = new Map();
    for (const m of chat.at(chatPath))
      if (m.body?.event_id?.startsWith(`evt_${prefix}_`)) n.set(m.body.event_id, (n.get(m.body.event_id) ?? 0) + 1);
    return n;
  };

  /** @type {Promise<unknown> | undefined} */
  let restart;
  /** @type {number | undefined} */
  let restartMs;
  /** @type {number | undefined} */
  let killedAt;
  const t0 = Date.now();
  const burst = await deliver(hookUrl, deliveries, {
    sign,
    concurrency,
    midway:
      restartIndex === undefined
        ? undefined
        : () => {
            const tr = Date.now();
            restart = q.restartWebhook(restartIndex).then(() => (restartMs = Date.now() - tr));
            // The kill is sent synchronously by restartWebhook; a second covers rounding of createdAt.
            killedAt = Date.now() + 1000;
          },
  });
  const burstSentMs = Date.now() - t0;
  await rotation.done();
  // The service sends a failed delivery again after 1 minute; a restarted webhook process is up well
  // before that (about 20 s), so the retries start once it is. Sent at once instead, they would meet the
  // process still starting, which with routing by event id is where every retry of its events goes.
  await restart;
  /** @type {DeliveryResult[]} */
  const retries = [];
  let failed = burst.filter((r) => !answered(r));
  for (let round = 1; failed.length && round <= 5; round++) {
    const again = await deliver(
      hookUrl,
      failed.map((r) => events[ids.indexOf(r.id)]).map((e) => ({ ...e, copy: `retry${round}` })),
      { sign, concurrency },
    );
    retries.push(...again);
    failed = again.filter((r) => !answered(r));
  }
  log(
    `${deliveries.length} deliveries of ${count} events sent in ${(burstSentMs / 1000).toFixed(1)} s; ${burst.length - burst.filter(answered).length} failed and were sent again${restartMs ? `; webhook process ${(restartIndex ?? 0) + 1} restarted in ${(restartMs / 1000).toFixed(1)} s meanwhile` : ''}`,
  );
  const afterBurst = await settle(postgres, workflowId, before, () => posts().size >= count, { killedAt });
  const seconds = ((afterBurst.lastStoppedAt ?? Date.now()) - t0) / 1000;

  const redelivered = await deliver(
    hookUrl,
    events.map((e) => ({ ...e, copy: 'redelivery' })),
    { sign, concurrency },
  );
  const afterAll = await settle(postgres, workflowId, before, undefined, { killedAt });
  const p = posts();
  return {
    count,
    deliveries: deliveries.length,
    burst: answerStats([...burst, ...retries]),
    firstTry: answerStats(burst),
    redelivery: answerStats(redelivered),
    unanswered: failed.length,
    eventsPerSecond: Math.round((count / seconds) * 10) / 10,
    seconds: Math.round(seconds * 10) / 10,
    restartMs,
    executions: afterAll.executions,
    executionsAfterBurst: afterBurst.executions,
    byStatus: afterAll.byStatus,
    orphans: afterAll.orphans,
    posted: p.size,
    postedTwice: [...p].filter(([, n]) => n > 1).map(([id]) => id),
    notPosted: ids.filter((id) => !p.has(id)),
    processedData: processedData(postgres, workflowId, nodeId, ids),
    rotated: rotation.rotated(),
  };
}

/**
 * A signer that starts `rotate` at its `at`-th signature and signs with the new secret once that resolved.
 * @param {Sign} sign
 * @param {(() => Promise<Sign>) | undefined} rotate
 * @param {number} at
 * @param {(m: string) => void} log
 */
function secretRotation(sign, rotate, at, log) {
  let current = sign;
  let signed = 0;
  /** @type {Promise<void> | undefined} */
  let rotating;
  let rotated = false;
  /** @type {unknown} */
  let failure;
  return {
    /** @type {Sign} */
    sign: (body, eventId) => {
      if (rotate && ++signed === at)
        rotating = rotate().then(
          (next) => {
            current = next;
            rotated = true;
            log(`signing secret rotated after ${at} deliveries; the rest are signed with the new one`);
          },
          (error) => void (failure = error),
        );
      return current(body, eventId);
    },
    done: async () => {
      await rotating;
      if (failure) throw failure;
    },
    rotated: () => rotated,
  };
}
