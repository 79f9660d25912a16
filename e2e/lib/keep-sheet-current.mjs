// The example "Keep a sheet current" (issue 29, examples/keep-sheet-current.json) in a real n8n, against the Google
// Sheets stand-in and a sandbox: Keep Current run from its schedule trigger, then changes made in the sandbox and
// delivered, signed, to the published Company Data Trigger, written by Write Events to Rows and posted to chat.
// Shared by e2e/google-sheets-node.mjs (one n8n process) and e2e/queue-mode.mjs (webhook processes and workers).
import { adaptExample, findNode, readExample, SHEETS_NODE_TYPE } from './examples.mjs';
import { createWorkflow, listExecutions, nodeTypes, publishWorkflow, runManual, sleep } from './n8n.mjs';
import { assert, assertEqual, waitFor } from './checks.mjs';
import { expectedEnrichment } from '../expected.mjs';

/** @typedef {import('./examples.mjs').CredentialRef} CredentialRef */
/** @typedef {import('./n8n.mjs').Execution} Execution */
/** @typedef {import('./sandbox.mjs').SandboxDelivery} SandboxDelivery */
/** @typedef {Record<string, any>} Json an item's json or a sandbox answer (any: the checks read fields by name) */
/** @typedef {{ header: string[], rows: Record<string, string>[] }} Records a tab's rows keyed by its header */
/** @typedef {(name: string, fn: () => unknown) => Promise<void>} Check */

export const KEEP_EXAMPLE = 'keep-sheet-current.json';
/** The example's nodes, by name. */
export const KEEP = {
  schedule: 'Every morning',
  watch: 'Keep list current',
  trigger: 'Company Data Trigger',
  write: 'Write changes to rows',
  chat: 'Post to chat',
};
export const EVENTS_SHEET = 'Company changes';
const SHEET = 'Sheet1';
const CODE = 'company_data_match_registry_code';
/** The columns a change writes besides the enriched fields it makes stale. */
const CHANGE_COLUMNS = ['company_data_last_change', 'company_data_changed_at', 'company_data_last_event_id'];

/**
 * The operations the example needs that the Google Sheets node loaded in n8n does not offer yet.
 * @param {import('./n8n.mjs').N8n} n8n
 */
export async function missingOperations(n8n) {
  const description = (await nodeTypes(n8n)).find((t) => t.name === SHEETS_NODE_TYPE);
  const operation = description?.properties.find((p) => p.name === 'operation');
  const offered = (operation?.options ?? []).map((/** @type {{ value: unknown }} */ o) => o.value);
  return ['watch', 'writeEvents'].filter((op) => !offered.includes(op));
}

/**
 * A tab's rows as records keyed by its header (cells as text); undefined when the spreadsheet has no such tab.
 * @param {any} standin a SheetsStandin (bundled TypeScript)
 * @param {string} id
 * @param {string} title
 * @returns {Records | undefined}
 */
export function sheetRecords(standin, id, title) {
  if (!standin.spreadsheets.get(id)?.sheets.some((/** @type {{ title: string }} */ s) => s.title === title)) return undefined;
  /** @type {string[][]} */
  const cells = standin.values(id, title).map((/** @type {unknown[]} */ r) => r.map(String));
  const [header = [], ...rows] = cells;
  return { header, rows: rows.map((r) => Object.fromEntries(header.map((h, i) => [h, r[i] ?? '']))) };
}

/**
 * The cells that differ between two readings of a tab whose rows kept their order: "<row's key> <column>: from → to".
 * @param {Records} before
 * @param {Records} after
 * @param {string} keyColumn
 */
export function changedCells(before, after, keyColumn) {
  const columns = [...new Set([...before.header, ...after.header])];
  /** @type {{ key: string, code: string, column: string, from: string, to: string }[]} */
  const out = [];
  for (let i = 0; i < Math.max(before.rows.length, after.rows.length); i++) {
    const b = before.rows[i] ?? {};
    const a = after.rows[i] ?? {};
    for (const column of columns)
      if ((b[column] ?? '') !== (a[column] ?? ''))
        out.push({
          key: a[keyColumn] ?? b[keyColumn] ?? '',
          code: a[CODE] ?? b[CODE] ?? '',
          column,
          from: b[column] ?? '',
          to: a[column] ?? '',
        });
  }
  return out;
}

/**
 * The registry codes of a monitoring list, read page by page from the sandbox.
 * @param {{ call: (method: string, path: string, body?: unknown) => Promise<any> }} sandbox
 * @param {string} listId
 * @returns {Promise<{ registry_code: string, external_ref: string | null }[]>}
 */
export async function listCompanies(sandbox, listId) {
  /** @type {{ registry_code: string, external_ref: string | null }[]} */
  const all = [];
  for (let page = 1; ; page++) {
    const rows = await sandbox.call('GET', `/monitoring/lists/${listId}/companies?page=${page}&limit=100`);
    all.push(...rows);
    if (rows.length < 100) return all;
  }
}

/** The registry codes of the matched rows of examples/companies.csv, each once, as e2e/expected.mjs has them. */
const EXPECTED_CODES = [
  ...new Set(expectedEnrichment.filter((e) => e.company_data_status === 'matched').map((e) => e.company_data_match_registry_code)),
];

/**
 * The example's checks on a spreadsheet `spreadsheetId` made here holding `rows` (examples/companies.csv as pasted).
 * `hookBase` is where the sandbox reaches n8n's production webhooks (n8n itself, or the balancer in front of the
 * webhook processes). Sets the sandbox to send every delivery three times, with no random detections. Returns the
 * workflow's id (undefined when the operations are missing).
 * @param {{ n8n: import('./n8n.mjs').N8n, hookBase: string, sandbox: Awaited<ReturnType<typeof import('./sandbox.mjs').startSandboxCli>>,
 *   standin: any, Colleague: any, chat: import('./chat.mjs').ChatReceiver, credential: CredentialRef, googleCredential: CredentialRef, serviceAccount: string,
 *   spreadsheetId: string, rows: string[][], keyColumn: string, check: Check, log: (m: string) => void }} ctx
 */
export async function keepSheetCurrentChecks(ctx) {
  const { n8n, sandbox, standin, chat, check, log, spreadsheetId: id, keyColumn } = ctx;
  const missing = await missingOperations(n8n);
  if (missing.length) {
    log(`  SKIP  ${KEEP_EXAMPLE}: the Google Sheets node has no ${missing.join(', ')} yet (issue 29); nothing checked`);
    return undefined;
  }
  // Every delivery is sent three times (the original and two copies); no random detections.
  await sandbox.call('PUT', '/sandbox/settings', { duplicate_rate: 1, duplicate_copies: 2, detection_rate: 0 });
  const chatPath = `/keep-${id}`;
  standin.create(id, [{ title: SHEET, rows: ctx.rows }]);
  standin.share(id, [ctx.serviceAccount]);
  const json = adaptExample(readExample(KEEP_EXAMPLE), {
    credential: ctx.credential,
    googleCredential: ctx.googleCredential,
    spreadsheetId: id,
    sheetsApiUrl: standin.url,
    chatUrl: `${chat.url}${chatPath}`,
  });
  json.name = `${json.name} [${id}]`;
  const trigger = findNode(json, (nd) => nd.name === KEEP.trigger, KEEP.trigger);
  const wf = await createWorkflow(n8n, json);
  const hookUrl = `${ctx.hookBase}/webhook/${trigger.webhookId}/webhook`;
  const posts = () => chat.at(chatPath).map((m) => String(m.body?.text));
  const sheet = () => /** @type {Records} */ (sheetRecords(standin, id, SHEET));
  const eventsSheet = () => sheetRecords(standin, id, EVENTS_SHEET);
  /** @type {Json} */
  let firstReport = {};

  /** Runs Keep Current from the schedule trigger, as the editor's Execute workflow does; returns its one output item. */
  const keepCurrent = async () => {
    const ex = await runManual(n8n, wf.id, { triggerName: KEEP.schedule, timeoutMs: 180_000 });
    const err = ex.data?.resultData?.error;
    assertEqual(
      ex.status,
      'success',
      `Keep Current execution${err ? ` (${err.message}${err.description ? `: ${err.description}` : ''})` : ''}`,
    );
    const items = ex.data?.resultData?.runData?.[KEEP.watch]?.[0]?.data?.main?.[0] ?? [];
    assertEqual(items.length, 1, 'items out of Keep Current');
    return /** @type {Json} */ (items[0].json);
  };
  const billed = async () => (await sandbox.call('GET', '/usage')).billed_lookup_queries;
  const sorted = (/** @type {string[]} */ codes) => [...codes].sort();

  await check(
    `${KEEP_EXAMPLE}: Keep Current enriches the sheet and makes one monitoring list hold exactly its matched companies`,
    async () => {
      const b0 = await billed();
      const r = await keepCurrent();
      log(`        Keep Current: ${JSON.stringify({ ...r, added_codes: r.added_codes?.length, removed_codes: r.removed_codes?.length })}`);
      const rows = sheet().rows;
      const matched = [...new Set(rows.filter((row) => row.company_data_status === 'matched').map((row) => row[CODE]))];
      assertEqual(sorted(matched), sorted(EXPECTED_CODES), "the sheet's matched companies (e2e/expected.mjs)");
      const list = await listCompanies(sandbox, r.list_id);
      assertEqual(sorted(list.map((c) => c.registry_code)), sorted(EXPECTED_CODES), 'companies on the list');
      // external_ref names the sheet, never a row (rows move).
      assertEqual([...new Set(list.map((c) => c.external_ref))], [`gsheet:${id}#${SHEET}`], 'external_ref of the companies');
      assertEqual([r.created, r.added, r.removed, r.kept], [true, matched.length, 0, 0], 'created, added, removed, kept');
      assertEqual(sorted(r.added_codes), sorted(matched), 'added_codes');
      assertEqual(r.list_name, `Sheet ${id} / ${SHEET}`, 'the list is named after the spreadsheet and sheet');
      const lists = await sandbox.call('GET', '/monitoring/lists');
      assertEqual(
        lists.filter((/** @type {Json} */ l) => l.name === r.list_name).map((/** @type {Json} */ l) => l.id),
        [r.list_id],
        'lists of that name',
      );
      // The rows were enriched first: each distinct query billed once, as the sandbox counts it.
      const paid = (await billed()) - b0;
      assert(paid > 0, 'Keep Current billed nothing: the rows were not enriched first');
      assertEqual([r.enriched?.billedQueries, r.enriched?.uniqueQueries], [paid, paid], 'enriched: billed and distinct queries');
      firstReport = r;
    },
  );

  await check(`${KEEP_EXAMPLE}: a second Keep Current changes nothing (same list, nothing billed, not one cell written)`, async () => {
    assert(firstReport.list_id, 'the first Keep Current did not pass');
    const before = JSON.stringify(standin.values(id, SHEET));
    const b0 = await billed();
    const r = await keepCurrent();
    assertEqual(
      [r.list_id, r.created, r.added, r.removed, r.kept],
      [firstReport.list_id, false, 0, 0, firstReport.added],
      'list, created, added, removed, kept',
    );
    assertEqual((await billed()) - b0, 0, 'billed');
    assertEqual(JSON.stringify(standin.values(id, SHEET)), before, 'the sheet');
    assertEqual(
      sorted((await listCompanies(sandbox, firstReport.list_id)).map((c) => c.registry_code)),
      sorted(EXPECTED_CODES),
      'the list',
    );
  });

  const executions = () => listExecutions(n8n, { workflowId: wf.id, includeData: true });
  /** Waits until no execution of the example is queued or running (a worker saves it when done), then returns them. */
  const settled = async () => {
    await waitFor(
      'the executions to finish',
      async () => (await executions()).every((e) => !['new', 'running', 'waiting'].includes(e.status)),
      {
        timeoutMs: 60_000,
      },
    );
    return executions();
  };
  /** @returns {Promise<SandboxDelivery[]>} */
  const deliveries = async () => (await sandbox.call('GET', '/webhook/deliveries?limit=100')) ?? [];
  /**
   * Changes made in the sandbox now; returns their events as the service lists them (GET /monitoring/events).
   * @param {[string, string, string][]} changes [registry code, category, kind]
   * @returns {Promise<Json[]>}
   */
  const change = async (changes) => {
    /** @type {string[]} */
    const ids = [];
    for (const [registry_code, category, kind] of changes) {
      const res = await sandbox.call('POST', '/sandbox/changes', { registry_code, category, kind });
      assertEqual(res.events.length, 1, `events of the ${kind} of ${registry_code}`);
      ids.push(res.events[0]);
    }
    const n = Number(/^evt_(\d+)$/.exec(ids[0])?.[1]);
    const listed = await sandbox.call('GET', `/monitoring/events?after=evt_${n - 1}&limit=100`);
    return ids.map((eid) => {
      const e = listed.find((/** @type {Json} */ x) => x.id === eid);
      assert(e, `event ${eid} is not among GET /monitoring/events`);
      return e;
    });
  };
  /**
   * Waits until every copy of these events was delivered (the sandbox sends each three times) and as many chat posts
   * arrived, then a moment more for a wrong extra one.
   * @param {Json[]} events
   * @param {number} postsWanted
   */
  const delivered = async (events, postsWanted) => {
    const ids = events.map((e) => e.id);
    await waitFor('every copy of the events to be delivered', async () => {
      const ds = (await deliveries()).filter((d) => ids.includes(d.event_id) && !d.retry_of);
      return (
        ds.length === ids.length &&
        ds.every((d) => d.status === 'delivered' && d.log.filter((a) => a.duplicate && a.status_code === 200).length === 2)
      );
    });
    await waitFor(`${postsWanted} chat posts`, () => posts().length >= postsWanted, { timeoutMs: 60_000 }).catch(async (e) => {
      const why = (await executions()).map(
        (ex) => `${ex.id}:${ex.status}${ex.data?.resultData?.error ? ` (${ex.data.resultData.error.message})` : ''}`,
      );
      throw new Error(`${e.message}; executions: ${why.join(', ') || 'none'}; posts: ${JSON.stringify(posts())}`);
    });
    await sleep(2000);
    const list = await settled();
    const failed = list.filter((ex) => ex.status !== 'success');
    assertEqual(
      failed.map((ex) => `${ex.id}:${ex.status} ${ex.data?.resultData?.error?.message ?? ''}`),
      [],
      'executions that did not succeed',
    );
  };
  /**
   * The rows of the event's company hold the change: its sentence, time and id, and the fields it makes stale.
   * @param {Records} records
   * @param {Json} event
   * @param {Record<string, string>} stale column → what it must hold now
   */
  const assertRowsHold = (records, event, stale) => {
    const code = event.data.company.registry_code;
    const rows = records.rows.filter((row) => row[CODE] === code);
    assert(rows.length > 0, `no row of ${code}`);
    for (const row of rows) {
      assertEqual(
        [row.company_data_changed_at, row.company_data_last_event_id],
        [event.data.detected_at, event.id],
        `${code} (row "${row[keyColumn]}"): changed_at, last_event_id`,
      );
      assert(row.company_data_last_change.length > 10, `${code}: company_data_last_change is "${row.company_data_last_change}"`);
      for (const [column, value] of Object.entries(stale)) assertEqual(row[column], value, `${code} (row "${row[keyColumn]}"): ${column}`);
    }
    return rows.length;
  };
  /**
   * Only the rows of these companies changed, and only in the change columns and these enriched fields.
   * @param {Records} before
   * @param {Records} after
   * @param {string[]} codes
   * @param {string[]} fields
   */
  const assertOnlyThese = (before, after, codes, fields) => {
    const allowed = [...CHANGE_COLUMNS, ...fields];
    const wrong = changedCells(before, after, keyColumn).filter((c) => !codes.includes(c.code) || !allowed.includes(c.column));
    assertEqual(wrong, [], 'cells changed outside the changed companies’ change columns and stale fields');
  };
  /** @returns {string[]} the event ids of the events sheet, one per row */
  const eventIdsInEventsSheet = () => (eventsSheet()?.rows ?? []).map((row) => row.event_id);

  /** @type {Json[]} events the example wrote */
  const written = [];
  const lonely = '14589195';

  await check(`${KEEP_EXAMPLE}: publishing registers the trigger's webhook with the sandbox`, async () => {
    await publishWorkflow(n8n, wf.id);
    await waitFor(`GET /webhook to point at ${hookUrl}`, async () => {
      const hook = await sandbox.call('GET', '/webhook').catch(() => undefined);
      return hook?.url === hookUrl && hook.enabled === true;
    });
  });

  await check(
    `${KEEP_EXAMPLE}: a rename, delivered 3 times: every row of the company gets it, "${EVENTS_SHEET}" is made with the event once, one digest in chat`,
    async () => {
      assert(firstReport.list_id, 'Keep Current did not pass');
      const before = sheet();
      const [event] = await change([['13545698', 'registry', 'name_changed']]);
      await delivered([event], 1);
      const after = sheet();
      const n = assertRowsHold(after, event, { company_data_match_name: event.data.details.new });
      assertOnlyThese(before, after, ['13545698'], ['company_data_match_name']);
      // The sentence says what changed.
      for (const row of after.rows.filter((r) => r[CODE] === '13545698'))
        assert(row.company_data_last_change.includes(event.data.details.new), `last change: "${row.company_data_last_change}"`);
      assertEqual(eventIdsInEventsSheet(), [event.id], `event ids in "${EVENTS_SHEET}"`);
      const [post] = posts();
      assertEqual(posts().length, 1, 'chat posts');
      assert(post.startsWith('*Company Data: 1 change at 1 company*'), `the post is not a digest: ${JSON.stringify(post)}`);
      assert(post.includes(event.data.details.new), `the digest does not name the new name: ${JSON.stringify(post)}`);
      const profile = await sandbox.call('GET', '/companies/13545698?lang=en');
      assertEqual(
        after.rows.find((row) => row[CODE] === '13545698')?.company_data_match_name,
        profile.name,
        'the name the service has now',
      );
      log(`        ${n} rows of 13545698 written; the post:\n          ${post.split('\n').join('\n          ')}`);
      written.push(event);
    },
  );

  await check(
    `${KEEP_EXAMPLE}: three changes at once (a status change, a move, and a move of a company whose row a colleague deleted): each in its rows, each once in "${EVENTS_SHEET}", one post each`,
    async () => {
      assert(written.length === 1, 'the first change did not pass');
      // The colleague deletes the row of a company on the list (until the next Keep Current it stays on the list).
      const at = sheet().rows.findIndex((row) => row[CODE] === lonely);
      assert(at >= 0, `no row of ${lonely}`);
      new ctx.Colleague(standin, id, SHEET).deleteRow(at + 2);
      const before = sheet();
      const postsBefore = posts().length;
      const events = await change([
        ['14397283', 'registry', 'status_changed'],
        ['10022830', 'registry', 'address_changed'],
        [lonely, 'registry', 'address_changed'],
      ]);
      await delivered(events, postsBefore + 3);
      const after = sheet();
      const [status, move] = events;
      const profile = await sandbox.call('GET', '/companies/14397283?lang=en');
      assertRowsHold(after, status, { company_data_match_status_label: profile.status.label });
      assertRowsHold(after, move, { company_data_match_address: move.data.details.new });
      assertEqual(after.rows.filter((row) => row[CODE] === lonely).length, 0, `rows of ${lonely}`);
      assertOnlyThese(
        before,
        after,
        ['14397283', '10022830'],
        ['company_data_match_status_label', 'company_data_match_status', 'company_data_match_address', 'company_data_match_postal_code'],
      );
      assertEqual(sorted(eventIdsInEventsSheet()), sorted([...written, ...events].map((e) => e.id)), `event ids in "${EVENTS_SHEET}"`);
      const fresh = posts().slice(postsBefore);
      assertEqual(fresh.length, 3, 'chat posts');
      for (const e of events)
        assertEqual(
          fresh.filter((p) => p.includes(`(${e.data.company.registry_code})`)).length,
          1,
          `posts naming ${e.data.company.registry_code}`,
        );
      written.push(...events);
    },
  );

  await check(`${KEEP_EXAMPLE}: redelivered events (the sandbox's retry) change no cell and post nothing`, async () => {
    assert(written.length === 4, 'the changes did not pass');
    const before = [JSON.stringify(standin.values(id, SHEET)), JSON.stringify(standin.values(id, EVENTS_SHEET))];
    const postsBefore = posts().length;
    const runsBefore = (await executions()).length;
    const firsts = (await deliveries()).filter((d) => written.some((e) => e.id === d.event_id) && !d.retry_of);
    for (const d of firsts) await sandbox.call('POST', `/webhook/deliveries/${d.id}/retry`);
    await waitFor(
      'the redeliveries',
      async () =>
        (await deliveries()).filter((d) => d.retry_of && firsts.some((f) => f.id === d.retry_of) && d.status === 'delivered').length ===
        firsts.length,
    );
    // The trigger drops an id it has seen: in webhook() while the process remembers it (no execution), else at the
    // start of the execution (n8n's processed-data store, e.g. another webhook process in queue mode): no items.
    await sleep(2000);
    const fresh = (await settled()).slice(0, -runsBefore || undefined);
    assertEqual(
      fresh.filter((ex) => ex.data?.resultData?.runData?.[KEEP.write]).map((ex) => ex.id),
      [],
      'executions of the redeliveries that reached Write Events to Rows',
    );
    log(`        ${firsts.length} redeliveries started ${fresh.length} executions, none reaching Write Events to Rows`);
    assertEqual(posts().length, postsBefore, 'chat posts');
    assertEqual(
      [JSON.stringify(standin.values(id, SHEET)), JSON.stringify(standin.values(id, EVENTS_SHEET))],
      before,
      'the sheet and the events sheet',
    );
  });

  await check(
    `${KEEP_EXAMPLE}: the same events fed to Write Events to Rows again (past the trigger's own dedupe): no item, no post, no cell changed`,
    async () => {
      assert(written.length === 4, 'the changes did not pass');
      // The items as the trigger gave them, from the executions that wrote them.
      const items = (await executions())
        .flatMap((ex) => ex.data?.resultData?.runData?.[KEEP.trigger]?.[0]?.data?.main?.[0] ?? [])
        .map((i) => i.json);
      assertEqual(sorted(items.map((i) => i.id)), sorted(written.map((e) => e.id)), 'events the trigger gave');
      // A copy of the example's lower flow started by hand with those items: the operation's own "once by event id".
      const again = structuredClone(json);
      again.name = `${json.name} (items again)`;
      again.nodes = again.nodes.filter((nd) => [KEEP.write, KEEP.chat].includes(nd.name));
      again.nodes.push(
        { id: 'again-start', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [-400, 240], parameters: {} },
        {
          id: 'again-items',
          name: 'The same events',
          type: 'n8n-nodes-base.code',
          typeVersion: 2,
          position: [-200, 240],
          parameters: { jsCode: `return ${JSON.stringify(items)}.map((json) => ({ json }));` },
        },
      );
      again.connections = {
        Start: { main: [[{ node: 'The same events', type: 'main', index: 0 }]] },
        'The same events': { main: [[{ node: KEEP.write, type: 'main', index: 0 }]] },
        [KEEP.write]: { main: [[{ node: KEEP.chat, type: 'main', index: 0 }]] },
      };
      const before = [JSON.stringify(standin.values(id, SHEET)), JSON.stringify(standin.values(id, EVENTS_SHEET))];
      const postsBefore = posts().length;
      const ex = await runManual(n8n, (await createWorkflow(n8n, again)).id, { timeoutMs: 120_000 });
      const err = ex.data?.resultData?.error;
      assertEqual(ex.status, 'success', `execution${err ? ` (${err.message}${err.description ? `: ${err.description}` : ''})` : ''}`);
      const out = ex.data?.resultData?.runData?.[KEEP.write]?.[0]?.data?.main?.[0] ?? [];
      assertEqual(out.length, 0, 'items out of Write Events to Rows');
      assert(!ex.data?.resultData?.runData?.[KEEP.chat], 'Post to chat ran');
      await sleep(1000);
      assertEqual(posts().length, postsBefore, 'chat posts');
      assertEqual(
        [JSON.stringify(standin.values(id, SHEET)), JSON.stringify(standin.values(id, EVENTS_SHEET))],
        before,
        'the sheet and the events sheet',
      );
    },
  );

  await check(`${KEEP_EXAMPLE}: the next Keep Current takes the company whose row the colleague deleted off the list`, async () => {
    assert(written.length === 4, 'the changes did not pass');
    const r = await keepCurrent();
    assertEqual(
      [r.list_id, r.added, r.removed, r.removed_codes],
      [firstReport.list_id, 0, 1, [lonely]],
      'list, added, removed, removed_codes',
    );
    const list = (await listCompanies(sandbox, r.list_id)).map((c) => c.registry_code);
    assertEqual(sorted(list), sorted(EXPECTED_CODES.filter((c) => c !== lonely)), 'the list');
  });

  return wf.id;
}
