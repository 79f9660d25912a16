#!/usr/bin/env node
/**
 * `company-data watch` (issue 29, point 4) on a Google sheet of --companies companies (default 10,000, one row
 * each, every one a sandbox company), the built CLI run as users run it against the sandbox (through a proxy
 * here that counts the monitoring list requests) and the Google Sheets stand-in at Google's quotas (60 reads
 * and 60 writes a minute per user, a real 60-second window):
 *   1. the first watch (`--once`): enrich, make the list, sync it, make the events sheet. Monitoring list
 *      requests (writes, reads), Google requests by kind and the most of each in any 60 seconds against the
 *      quota, requests answered 429, peak RSS of the process (goals: list <= 6, Google <= 8, RSS < 300 MiB);
 *   2. --changes changes (default 1,000, one a company, made with the sandbox's POST /sandbox/changes), then
 *      the next pass (`--once`): its Google requests (goal <= 30, batched), that each change is in its row and
 *      in the events sheet exactly once, its peak RSS;
 *   3. the same pass again (a restart that finds nothing new): its Google requests, and still once each.
 * Run: node bench/watch.bench.mjs [--companies 10000] [--changes 1000]
 */
import { createServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildIfStale } from '../e2e/lib/build.mjs';
import { countCalls } from '../e2e/lib/sheets-standin.mjs';
import { arg, load, report, root, runCliWithRss } from './support.mjs';

const companiesN = Number(arg('companies', 10_000));
const changesN = Number(arg('changes', 1000));
const KEY = 'sk_bench_watchx_account_0000000001';
const SHEET = 'bench-watch';
const dir = mkdtempSync(join(tmpdir(), 'watch-bench-'));
const lib = await load(
  'watch-parent',
  `export { startSandbox } from './packages/company-data/src/sandbox';
   export { startSheetsStandin } from './test/support/sheets-standin';`,
);
await buildIfStale(root, (m) => console.log(`[build] ${m}`));

// The service without its 10 requests/s limit: the figures here are requests counted, not the service's speed.
const sb = await lib.startSandbox({
  port: 0,
  seed: 1,
  companies: companiesN,
  rateLimit: false,
  keys: [{ key: KEY, plan: 'api' }],
  settings: { detectionRate: 0 },
});
const standin = await lib.startSheetsStandin({ readsPerMinute: 60, writesPerMinute: 60, windowMs: 60_000 });
/** When each Google request reached the stand-in, and whether it reads (GET) or writes. */
/** @type {{ at: number, kind: 'read' | 'write' }[]} */
const googleTimes = [];
standin.beforeRequest.push((/** @type {{ httpMethod: string }} */ r) =>
  googleTimes.push({ at: Date.now(), kind: r.httpMethod === 'GET' ? 'read' : 'write' }),
);

/** The monitoring list requests the CLI sends, counted on their way to the sandbox. */
/** @type {{ method: string, path: string }[]} */
const serviceCalls = [];
const proxy = createServer(async (req, res) => {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const url = new URL(req.url ?? '/', sb.url);
  serviceCalls.push({ method: req.method ?? 'GET', path: url.pathname });
  /** @type {Record<string, string>} */
  const headers = {};
  for (const [k, v] of Object.entries(req.headers))
    if (typeof v === 'string' && !['host', 'connection', 'content-length'].includes(k)) headers[k] = v;
  const answer = await fetch(new URL(`${url.pathname}${url.search}`, sb.url), {
    method: req.method,
    headers,
    ...(chunks.length ? { body: Buffer.concat(chunks) } : {}),
  });
  const body = Buffer.from(await answer.arrayBuffer());
  /** @type {Record<string, string>} */
  const back = {};
  answer.headers.forEach((v, k) => {
    if (!['content-encoding', 'content-length', 'transfer-encoding', 'connection'].includes(k)) back[k] = v;
  });
  res.writeHead(answer.status, back).end(body);
});
await new Promise((r) => proxy.listen(0, '127.0.0.1', () => r(undefined)));
const proxyUrl = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (proxy.address()).port}`;

/** @param {string} path */
const isListPath = (path) => path.startsWith('/monitoring/lists');
/**
 * The monitoring list requests among `calls`: writes (make a list, change its companies) and reads (find it, read its members).
 * @param {{ method: string, path: string }[]} calls
 */
const listRequests = (calls) => {
  const list = calls.filter((c) => isListPath(c.path));
  return {
    writes: list.filter((c) => c.method !== 'GET').length,
    reads: list.filter((c) => c.method === 'GET').length,
    detail: list.map((c) => `${c.method} ${c.path.replace(/lst_\w+/, '{id}')}`),
  };
};
/**
 * The most requests of a kind in any 60 seconds.
 * @param {{ at: number, kind: string }[]} times
 * @param {'read' | 'write'} kind
 */
const perMinute = (times, kind) => {
  const at = times.filter((t) => t.kind === kind).map((t) => t.at);
  let most = 0;
  for (let i = 0, j = 0; i < at.length; i++) {
    while (at[i] - at[j] >= 60_000) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
};

/**
 * One `company-data watch --once` of the built CLI with the RSS hook; what it printed, its Google requests and peak RSS.
 * @param {string} name
 */
async function watchOnce(name) {
  const rssFile = join(dir, `${name}-rss.json`);
  const calls0 = standin.calls.length;
  const times0 = googleTimes.length;
  const service0 = serviceCalls.length;
  const run = await runCliWithRss(
    [
      'watch',
      '--spreadsheet',
      SHEET,
      '--sheet',
      'Leads',
      '--once',
      '--state-dir',
      join(dir, 'state'),
      '--google-token',
      standin.accessToken,
      '--sheets-root-url',
      standin.url,
      '--base-url',
      proxyUrl,
      '--api-key',
      KEY,
    ],
    {},
    rssFile,
  );
  /** @type {{ method: string, kind: string, status: number }[]} */
  const calls = standin.calls.slice(calls0);
  /** @type {Record<string, number>} */
  const byMethod = {};
  for (const c of calls) byMethod[c.method] = (byMethod[c.method] ?? 0) + 1;
  const times = googleTimes.slice(times0);
  const counted = countCalls(calls);
  return {
    out: `${run.stdout}${run.stderr}`,
    seconds: run.seconds,
    google: {
      requests: calls.length,
      reads: counted.reads,
      writes: counted.writes,
      rateLimited: counted.rateLimited,
      largestBody: counted.largestBody,
      byMethod,
      readsInAMinute: perMinute(times, 'read'),
      writesInAMinute: perMinute(times, 'write'),
    },
    list: listRequests(serviceCalls.slice(service0)),
    maxRssMb: run.maxRssMb,
  };
}

/** @param {Awaited<ReturnType<typeof watchOnce>>} r */
const googleLine = (r) =>
  `${r.google.requests} Google requests (${r.google.reads} reads, ${r.google.writes} writes: ${Object.entries(r.google.byMethod)
    .map(([m, n]) => `${m} ${n}`)
    .join(
      ', ',
    )}); at most ${r.google.readsInAMinute} reads and ${r.google.writesInAMinute} writes in any 60 s (quota 60 and 60); ${r.google.rateLimited} answered 429; largest body ${r.google.largestBody} bytes`;

try {
  /** @type {string[]} */
  const codes = sb.dataset.companies.slice(0, companiesN).map((/** @type {{ code: string }} */ c) => c.code);
  standin.create(SHEET, [
    { title: 'Leads', rows: [['Company', 'Registry code'], ...codes.map((c, i) => [`Company ${i + 1}`, c])], rowCount: companiesN + 1 },
  ]);

  // 1. The first watch.
  const first = await watchOnce('first');
  const listLine = /List "[^"]+" \((lst_\w+), made now\): added (\d+), removed (\d+), kept (\d+)/.exec(first.out);
  if (!listLine) throw new Error(`the first watch printed no list line:\n${first.out}`);
  const listId = listLine[1];
  console.log(
    `first watch of ${companiesN} companies: list ${listId} added ${listLine[2]}; ${first.list.writes + first.list.reads} list requests (${first.list.writes} writes, ${first.list.reads} reads: ${first.list.detail.join(', ')}); ${googleLine(first)}; peak RSS ${first.maxRssMb.toFixed(0)} MiB; ${first.seconds.toFixed(1)} s`,
  );

  // 2. Changes, one a company, then the next pass.
  const changed = codes.filter((_, i) => i % Math.max(1, Math.floor(companiesN / changesN)) === 0).slice(0, changesN);
  /** @type {Map<string, string>} */
  const eventOf = new Map();
  for (const code of changed) {
    const res = await fetch(`${sb.url}/sandbox/changes`, {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ registry_code: code, category: 'court' }),
    });
    if (!res.ok) throw new Error(`POST /sandbox/changes: ${res.status} ${await res.text()}`);
    eventOf.set(code, /** @type {{ data: { events: string[] } }} */ (await res.json()).data.events[0]);
  }
  const second = await watchOnce('changes');
  console.log(
    `${changed.length} changes, the next pass: ${googleLine(second)}; peak RSS ${second.maxRssMb.toFixed(0)} MiB; ${second.seconds.toFixed(1)} s`,
  );

  /** Each change in its company's row and in the events sheet, counted. */
  const once = () => {
    /** @type {unknown[][]} */
    const rows = standin.values(SHEET, 'Leads');
    const head = rows[0].map(String);
    const codeCol = head.indexOf('Registry code');
    const idCol = head.indexOf('company_data_last_event_id');
    let inRows = 0;
    let wrongRows = 0;
    for (const r of rows.slice(1)) {
      const want = eventOf.get(String(r[codeCol]));
      const has = String(r[idCol] ?? '');
      if (want && has === want) inRows++;
      else if (want || has) wrongRows++;
    }
    /** @type {unknown[][]} */
    const events = standin.values(SHEET, 'Company changes');
    const evCol = events[0].map(String).indexOf('event_id');
    /** @type {Map<string, number>} */
    const times = new Map();
    for (const r of events.slice(1)) times.set(String(r[evCol]), (times.get(String(r[evCol])) ?? 0) + 1);
    const wanted = [...eventOf.values()];
    return {
      inRows,
      wrongRows,
      eventRows: events.length - 1,
      inEventsSheetOnce: wanted.filter((id) => times.get(id) === 1).length,
      others: [...times.keys()].filter((id) => !wanted.includes(id)).length,
    };
  };
  const afterChanges = once();
  console.log(
    `  each change: in its row ${afterChanges.inRows}/${changed.length} (rows wrong ${afterChanges.wrongRows}); in the events sheet once ${afterChanges.inEventsSheetOnce}/${changed.length} (${afterChanges.eventRows} rows, ${afterChanges.others} of other events)`,
  );

  // 3. The same pass again: nothing new.
  const third = await watchOnce('again');
  const afterAgain = once();
  console.log(
    `the same pass again: ${googleLine(third)}; each change in its row ${afterAgain.inRows}, in the events sheet once ${afterAgain.inEventsSheetOnce} (${afterAgain.eventRows} rows); peak RSS ${third.maxRssMb.toFixed(0)} MiB`,
  );

  report('watch', {
    companies: companiesN,
    changes: changed.length,
    first: {
      list: { writes: first.list.writes, reads: first.list.reads, detail: first.list.detail },
      google: first.google,
      maxRssMb: first.maxRssMb,
      seconds: first.seconds,
    },
    changesPass: { google: second.google, maxRssMb: second.maxRssMb, seconds: second.seconds, ...afterChanges },
    again: { google: third.google, maxRssMb: third.maxRssMb, ...afterAgain },
  });
} finally {
  await new Promise((r) => proxy.close(() => r(undefined)));
  await standin.close();
  await sb.close();
  rmSync(dir, { recursive: true, force: true });
}
