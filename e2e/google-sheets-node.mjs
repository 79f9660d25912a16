#!/usr/bin/env node
// The Company Data: Google Sheets node (issue 28) in a real n8n 2.41.1 against the Google Sheets stand-in
// (test/support/sheets-standin*.ts, bundled and run in this process) and the sandbox, through the example
// workflow examples/enrich-google-sheet.json with only its credentials, spreadsheet and Sheets API address
// changed. The sheet is shared with a service account whose key (a fresh RSA key) signs in at the stand-in's
// token endpoint. Checks: the sheet picker; an enrich of examples/companies.csv while a colleague inserts
// rows and sorts the sheet; the rerun that enriches only the row the colleague added, and one more that bills
// nothing; view-only sharing refused before any lookup is billed; an access token that expires mid-run;
// Google's 429 waited out; the requests as Google's discovery document describes them; no secret in what n8n
// keeps. Usage: node e2e/google-sheets-node.mjs [--keep]. Prints "N passed, N failed"; exits 1 on a failure.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import { ensureRuntime } from './lib/runtime.mjs';
import {
  api,
  createCredential,
  createWorkflow,
  listExecutions,
  loadOptionsResults,
  nodeTypes,
  resourceLocatorResults,
  rest,
  runManual,
  startN8n,
} from './lib/n8n.mjs';
import { startSandboxCli } from './lib/sandbox.mjs';
import { adaptExample, CREDENTIAL_NAME, GOOGLE_CREDENTIAL_TYPE, readExample, SHEETS_NODE_TYPE } from './lib/examples.mjs';
import { buildIfStale } from './lib/build.mjs';
import { assert, assertEqual, checkRun } from './lib/checks.mjs';
import { countCalls, loadSheetsStandin } from './lib/sheets-standin.mjs';
import { startChatReceiver } from './lib/chat.mjs';
import { keepSheetCurrentChecks } from './lib/keep-sheet-current.mjs';
import { expectedEnrichment } from './expected.mjs';

/** @typedef {import('./lib/examples.mjs').Workflow} Workflow */
/** @typedef {import('./lib/examples.mjs').CredentialRef} CredentialRef */
/** @typedef {import('./lib/n8n.mjs').Execution} Execution */
/** @typedef {Record<string, any>} Report the node's output item: the run's report (any: the checks read a few fields by name) */

const repoDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const keep = process.argv.includes('--keep');
const { secs, log, check, cleanups, finish } = checkRun({ traceLines: 8 });

const EXAMPLE = 'enrich-google-sheet.json';
const SERVICE_ACCOUNT = 'enrich@e2e-project.iam.gserviceaccount.com';
const SHEET = 'Sheet1';
/** The columns expected.mjs gives for each row of companies.csv, all written by the node. */
const CHECKED_COLUMNS = Object.keys(expectedEnrichment[0]);
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/**
 * A sheet's cells as text.
 * @param {any} standin a SheetsStandin (bundled TypeScript)
 * @param {string} id
 * @returns {string[][]}
 */
const sheetText = (standin, id) => standin.values(id, SHEET).map((/** @type {unknown[]} */ row) => row.map(String));

/** Where the node is missing from the sources, the checks that need it say so instead of failing. */
const nodeSourceExists = () =>
  fs.existsSync(path.join(repoDir, 'nodes')) &&
  fs
    .readdirSync(path.join(repoDir, 'nodes'), { recursive: true })
    .some(
      (f) =>
        String(f).endsWith('.node.ts') &&
        fs.readFileSync(path.join(repoDir, 'nodes', String(f)), 'utf8').includes("name: 'companyDataGoogleSheets'"),
    );

async function main() {
  log('Company Data: Google Sheets node in a real n8n, against the Google Sheets stand-in');
  if (!nodeSourceExists()) {
    log('  SKIP  waiting for the node: no companyDataGoogleSheets node in nodes/ yet (issue 28, branch i28-node); nothing checked');
    return;
  }
  const runtime = await ensureRuntime({ log: (m) => log(`[runtime] ${m}`) });
  await buildIfStale(repoDir, (m) => log(`[build] ${m}`));

  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'company-data-sheets-node-'));
  cleanups.push(async () => (keep ? log(`[keep] ${work}`) : fs.rmSync(work, { recursive: true, force: true })));

  const apiKey = `sk_api_${randomBytes(20).toString('hex')}`;
  const sandbox = await startSandboxCli({ repoDir, apiKey, companies: 2000 });
  cleanups.push(() => sandbox.stop());
  /** @returns {Promise<number>} the key's billed lookup queries so far (the sandbox's GET /usage) */
  const billed = async () => (await sandbox.call('GET', '/usage')).billed_lookup_queries;

  const { startSheetsStandin, Colleague } = await loadSheetsStandin(work);
  // Google's default quotas: 60 reads and 60 writes a minute per user.
  const standin = await startSheetsStandin({ readsPerMinute: 60, writesPerMinute: 60 });
  cleanups.push(() => standin.close());
  const key = standin.serviceAccountKey(SERVICE_ACCOUNT);
  log(`[stand-in] ${standin.url} (token endpoint ${key.token_uri}); [sandbox] ${sandbox.url}`);

  const t = Date.now();
  const n8n = await startN8n({ runtime, packageDir: repoDir, userFolder: path.join(work, 'n8n'), log: (m) => log(`[n8n] ${m}`) });
  cleanups.push(() => n8n.stop({ keepUserFolder: keep }));
  log(`[time] n8n started in ${secs(t)}`);

  const csv = /** @type {Record<string, string>[]} */ (
    parse(fs.readFileSync(path.join(repoDir, 'examples', 'companies.csv'), 'utf8'), { columns: true })
  );
  const header = Object.keys(csv[0]);
  const csvRows = csv.map((r) => header.map((h) => r[h]));
  /** What expected.mjs says a row holding this key gets (duplicates agree). */
  const expectedByKey = new Map(csv.map((r, i) => [r.company, expectedEnrichment[i]]));

  /** @type {CredentialRef} */
  let credential;
  /** @type {CredentialRef} */
  let googleCredential;

  await check('n8n loads the Company Data: Google Sheets node', async () => {
    const types = await nodeTypes(n8n);
    assert(
      types.some((ty) => ty.name === SHEETS_NODE_TYPE),
      `${SHEETS_NODE_TYPE} is not among n8n's node types (${types.length} loaded)`,
    );
  });

  await check(
    'credentials: the Company Data API key and the service-account key file (JSON); the Google credential’s Test signs in at the token endpoint',
    async () => {
      credential = await createCredential(n8n, {
        name: CREDENTIAL_NAME,
        type: 'companyDataApi',
        data: { apiKey, baseUrl: sandbox.url, authStyle: 'xApiKey', webhookSigningSecret: '' },
      });
      googleCredential = await createCredential(n8n, {
        name: 'Google service account (stand-in)',
        type: GOOGLE_CREDENTIAL_TYPE,
        data: { serviceAccountKey: JSON.stringify(key, null, 2) },
      });
      assert(credential?.id && googleCredential?.id, 'a credential has no id');
      // What the editor's "Test" button does: one token exchange at the key's token_uri (the stand-in).
      const issued0 = standin.auth.issuedCount(JWT_BEARER);
      const test = await rest(n8n, 'POST', '/credentials/test', {
        credentials: {
          id: googleCredential.id,
          name: googleCredential.name,
          type: GOOGLE_CREDENTIAL_TYPE,
          data: { serviceAccountKey: JSON.stringify(key) },
        },
      });
      const result = test?.data ?? test;
      assertEqual(result?.status, 'OK', `Google credential test (${result?.message})`);
      assertEqual(standin.auth.issuedCount(JWT_BEARER) - issued0, 1, 'tokens the test fetched');
    },
  );

  /**
   * The example workflow pointed at this spreadsheet of the stand-in, stored in n8n.
   * @param {string} spreadsheetId
   */
  const exampleFor = async (spreadsheetId) => {
    const wf = adaptExample(readExample(EXAMPLE), { credential, googleCredential, spreadsheetId, sheetsApiUrl: standin.url });
    const node = wf.nodes.find((nd) => nd.type === SHEETS_NODE_TYPE);
    assert(node, `${EXAMPLE} has no ${SHEETS_NODE_TYPE} node`);
    wf.name = `${wf.name} [${spreadsheetId}]`;
    return { node: node.name, id: (await createWorkflow(n8n, wf)).id };
  };
  /**
   * Runs a stored example; returns the execution, the node's report, the billed queries and the stand-in's calls of the run.
   * @param {{ node: string, id: string }} wf
   */
  const run = async (wf) => {
    const b0 = await billed();
    const c0 = standin.calls.length;
    const ex = await runManual(n8n, wf.id, { timeoutMs: 180_000 });
    const items = ex.data?.resultData?.runData?.[wf.node]?.[0]?.data?.main?.[0] ?? [];
    return {
      ex,
      error: ex.data?.resultData?.error,
      /** @type {Report} */ report: items[0]?.json,
      items,
      billed: (await billed()) - b0,
      calls: countCalls(standin.calls.slice(c0)),
    };
  };
  /** @param {{ ex: Execution, error?: { message?: string, description?: string } }} r */
  const succeeded = (r) =>
    assertEqual(
      r.ex.status,
      'success',
      `execution status${r.error ? ` (${r.error.message}${r.error.description ? `: ${r.error.description}` : ''})` : ''}`,
    );

  // The sheet the example enriches: companies.csv as a person would paste it, plus a second tab.
  const LEADS = 'e2eLeadsSheet0001';
  standin.create(LEADS, [
    { title: SHEET, rows: [header, ...csvRows] },
    { title: 'Notes', rows: [['not enriched']] },
  ]);
  standin.share(LEADS, [SERVICE_ACCOUNT]);

  await check("editor: the Sheet picker lists the spreadsheet's tabs, the Key Column list its headers", async () => {
    const description = (await nodeTypes(n8n)).find((ty) => ty.name === SHEETS_NODE_TYPE);
    const sheetProp = description?.properties.find((p) => p.name === 'sheet');
    const method = sheetProp?.modes?.find((/** @type {{ name: string }} */ m) => m.name === 'list')?.typeOptions?.searchListMethod;
    assert(method, `the sheet parameter has no list mode with a search method (${JSON.stringify(sheetProp?.modes)})`);
    const wf = adaptExample(readExample(EXAMPLE), { credential, googleCredential, spreadsheetId: LEADS, sheetsApiUrl: standin.url });
    const node = wf.nodes.find((nd) => nd.type === SHEETS_NODE_TYPE);
    const res = await resourceLocatorResults(n8n, {
      node: { type: SHEETS_NODE_TYPE, version: 1, parameters: node?.parameters ?? {} },
      credentialType: GOOGLE_CREDENTIAL_TYPE,
      credential: googleCredential,
      path: 'sheet',
      methodName: method,
    });
    assertEqual(
      res.results.map((r) => r.name),
      [SHEET, 'Notes'],
      'tabs listed',
    );
    // The Key Column list: the headers of the tab picked from that list.
    const picked = { ...node?.parameters, sheet: { __rl: true, mode: 'list', value: res.results[0].value } };
    const columns = await loadOptionsResults(n8n, {
      node: { type: SHEETS_NODE_TYPE, version: 1, parameters: picked },
      credentialType: GOOGLE_CREDENTIAL_TYPE,
      credential: googleCredential,
      path: 'keyColumn',
      methodName: description?.properties.find((p) => p.name === 'keyColumn')?.typeOptions?.loadOptionsMethod,
    });
    assert(
      header.every((h) => columns.some((c) => c.value === h)),
      `Key Column lists ${JSON.stringify(columns.map((c) => c.value))}, not every header of ${JSON.stringify(header)}`,
    );
  });

  // A company the colleague adds while the run goes: in the sandbox, not in companies.csv.
  const listed = /** @type {{ registry_code: string }[]} */ (await sandbox.call('GET', '/companies?limit=50'));
  const added = listed.map((c) => c.registry_code).find((code) => !expectedByKey.has(code));
  assert(added, 'no sandbox company outside companies.csv');
  const leads = await exampleFor(LEADS);
  const colleague = new Colleague(standin, LEADS, SHEET);
  /** @type {number} */
  let firstBilled = -1;

  await check(
    'enrich: companies.csv in a sheet, a colleague inserting rows and sorting during the run; every row holds its own company',
    async () => {
      // After the sheet was read and planned, before the first save re-reads it: two rows appear (a company the
      // run looks up anyway, and one it never planned); then, between that re-read and the write, a sort.
      colleague.before('values.batchGet', (/** @type {any} */ c) => {
        c.insertRow(4, ['13545698', 'Liis', 'inserted during the run (a key the run looks up)']);
        c.insertRow(9, [added, 'Liis', 'inserted during the run (a new key)']);
      });
      colleague.before('values.batchUpdate', (/** @type {any} */ c) => c.sortBy(0, 'desc'));
      const r = await run(leads);
      succeeded(r);
      assertEqual(
        colleague.done,
        ['insert row 4', 'insert row 9', 'sort by column 1 desc'],
        "the colleague's edits happened during the run",
      );
      assertEqual(r.items.length, 1, 'items out of the node (one: the report)');
      const rows = sheetText(standin, LEADS);
      const head = rows[0];
      for (const col of [...header, ...CHECKED_COLUMNS])
        assert(head.includes(col), `column ${col} missing from the header (${head.join(', ')})`);
      assertEqual(rows.length - 1, csv.length + 2, 'data rows (the 30 of the CSV and the colleague’s 2)');
      const keys = rows.slice(1).map((row) => row[0]);
      assertEqual(
        keys,
        [...keys].sort((a, b) => -a.localeCompare(b, 'en', { numeric: true })),
        "the colleague's sort is kept (rows are not moved back)",
      );
      /** @type {string[]} */
      const bad = [];
      for (const [i, row] of rows.slice(1).entries()) {
        const cell = (/** @type {string} */ col) => row[head.indexOf(col)] ?? '';
        const want = row[0] === added ? Object.fromEntries(CHECKED_COLUMNS.map((c) => [c, ''])) : expectedByKey.get(row[0]);
        if (!want) bad.push(`row ${i + 2}: unexpected key "${row[0]}"`);
        else
          for (const [col, value] of Object.entries(want))
            if (cell(col) !== value) bad.push(`row ${i + 2} ("${row[0]}") ${col}: "${cell(col)}", expected "${value}"`);
        // Input columns are a person's: untouched.
        const source = csv.find((c) => c.company === row[0]);
        if (source && cell('owner') !== source.owner && !/^inserted/.test(cell('note')))
          bad.push(`row ${i + 2}: owner "${cell('owner')}" changed`);
      }
      assertEqual(bad, [], 'cells not as expected');
      const rep = r.report;
      log(`        report: ${JSON.stringify(rep)}`);
      assertEqual(rep?.leftAlone, 1, 'report: rows changed by someone else and left alone (the new key)');
      assertEqual(rep?.billedQueries, r.billed, "report's billed queries = what the sandbox billed");
      assertEqual(r.billed, rep?.uniqueQueries, 'each distinct query billed once');
      assertEqual(rep?.errors, 0, 'errors');
      firstBilled = r.billed;
      log(`        billed ${r.billed} for ${csv.length} rows; stand-in: ${JSON.stringify(r.calls)}`);
    },
  );

  await check('again: only the row the colleague added is looked up (1 billed), and it gets its company', async () => {
    assert(firstBilled > 0, 'the first run did not pass');
    const r = await run(leads);
    succeeded(r);
    assertEqual([r.billed, r.report?.billedQueries], [1, 1], 'billed (sandbox, report)');
    const rows = sheetText(standin, LEADS);
    const row = rows.find((x) => x[0] === added);
    const codeCol = rows[0].indexOf('company_data_match_registry_code');
    assertEqual(row?.[codeCol], added, 'registry code written to the added row');
  });

  await check('a rerun on the enriched sheet bills nothing and changes no cell', async () => {
    const before = JSON.stringify(standin.values(LEADS, SHEET));
    const r = await run(leads);
    succeeded(r);
    assertEqual([r.billed, r.report?.billedQueries], [0, 0], 'billed (sandbox, report)');
    assertEqual(JSON.stringify(standin.values(LEADS, SHEET)), before, 'the sheet after the rerun');
    log(`        stand-in: ${JSON.stringify(r.calls)}`);
  });

  await check(
    'view-only sharing: refused before paying (no lookup billed, no cell written, the error says to share as Editor)',
    async () => {
      const id = 'e2eViewOnlySheet01';
      standin.create(id, [{ title: SHEET, rows: [header, ...csvRows.slice(0, 5)] }]);
      standin.access.setRole(id, SERVICE_ACCOUNT, 'reader');
      const before = JSON.stringify(standin.values(id, SHEET));
      const r = await run(await exampleFor(id));
      assertEqual(r.ex.status, 'error', 'execution status');
      assertEqual(r.billed, 0, 'lookups billed');
      assertEqual(JSON.stringify(standin.values(id, SHEET)), before, 'the sheet');
      const text = `${r.error?.message ?? ''} ${r.error?.description ?? ''}`;
      log(`        error: ${text}`);
      assert(/view/i.test(text) && /editor/i.test(text), `the error should say the sheet is view-only and to share it as Editor: ${text}`);
      assert(text.includes(SERVICE_ACCOUNT), `the error should name the account to share with (${SERVICE_ACCOUNT}): ${text}`);
    },
  );

  await check(
    'an access token that expires mid-run: the node fetches a new token and finishes; every answer is written, none billed twice',
    async () => {
      const id = 'e2eTokenExpiry0001';
      standin.create(id, [{ title: SHEET, rows: [header, ...csvRows.slice(0, 6)] }]);
      standin.share(id, [SERVICE_ACCOUNT]);
      const issued0 = standin.auth.issuedCount(JWT_BEARER);
      // Just before the write of the paid answers, every token issued so far stops working (as at its hour's end).
      new Colleague(standin, id, SHEET).before('values.batchUpdate', () => standin.auth.expireAccessTokens());
      const r = await run(await exampleFor(id));
      succeeded(r);
      assert(r.calls.unauthenticated >= 1, 'the stand-in refused no request with 401: the token did not expire mid-run');
      // Tokens may be kept between executions, so the run itself may fetch only the one after the expiry.
      assert(standin.auth.issuedCount(JWT_BEARER) - issued0 >= 1, 'no new token was fetched after the expiry');
      assertEqual(r.billed, r.report?.uniqueQueries, 'billed once per distinct query');
      const rows = sheetText(standin, id);
      const status = rows[0].indexOf('company_data_status');
      assertEqual(
        rows.slice(1).map((row) => row[status]),
        expectedEnrichment.slice(0, 6).map((e) => e.company_data_status),
        'statuses written',
      );
    },
  );

  await check(
    "Google's 429 is waited out: another job of the same account used up the quota (4 reads, 4 writes per 10 s); the run waits and finishes",
    async () => {
      const tight = await startSheetsStandin({ readsPerMinute: 4, writesPerMinute: 4, windowMs: 10_000 });
      cleanups.push(() => tight.close());
      const cred = await createCredential(n8n, {
        name: 'Google service account (tight quota)',
        type: GOOGLE_CREDENTIAL_TYPE,
        data: { serviceAccountKey: JSON.stringify(tight.serviceAccountKey(SERVICE_ACCOUNT)) },
      });
      const id = 'e2eQuotaSheet00001';
      tight.create(id, [
        { title: SHEET, rows: [header, ...csvRows.slice(0, 8)] },
        { title: 'Notes', rows: [['used by another job']] },
      ]);
      const wf = adaptExample(readExample(EXAMPLE), { credential, googleCredential: cred, spreadsheetId: id, sheetsApiUrl: tight.url });
      wf.name = `${wf.name} [tight quota]`;
      const stored = await createWorkflow(n8n, wf);
      // The same service account, elsewhere, reads and writes until Google says 429 (its quota is per account).
      const other = { authorization: `Bearer ${tight.auth.issueAccessToken(SERVICE_ACCOUNT)}`, 'content-type': 'application/json' };
      const cell = `${tight.url}v4/spreadsheets/${id}/values/Notes!B1`;
      for (const [method, url, body] of /** @type {const} */ ([
        ['GET', cell, undefined],
        ['PUT', `${cell}?valueInputOption=RAW`, JSON.stringify({ values: [['x']] })],
      ]))
        for (let i = 0; i < 10 && (await fetch(url, { method, headers: other, body })).status !== 429; i++);
      const c0 = tight.calls.length;
      const ex = await runManual(n8n, stored.id, { timeoutMs: 180_000 });
      const err = ex.data?.resultData?.error;
      assertEqual(ex.status, 'success', `execution status${err ? ` (${err.message})` : ''}`);
      const calls = countCalls(tight.calls.slice(c0));
      assert(calls.rateLimited >= 1, `no request of the node was answered 429 (${JSON.stringify(calls)}): the check proves nothing`);
      const rows = sheetText(tight, id);
      const status = rows[0].indexOf('company_data_status');
      assert(status >= 0 && rows.slice(1).every((row) => row[status]), 'a row without a status');
      assertEqual(tight.takeViolations(), [], 'requests that broke the discovery document');
      log(`        the node's requests: ${JSON.stringify(calls)}`);
    },
  );

  // Issue 29: examples/keep-sheet-current.json, its two flows on a sheet of its own (e2e/lib/keep-sheet-current.mjs).
  const chat = await startChatReceiver();
  cleanups.push(() => chat.close());
  const tKeep = Date.now();
  // In a closure: the credentials are set by the check above (undefined when it failed, and these checks fail too).
  const keepContext = () => ({
    n8n,
    hookBase: n8n.baseUrl,
    sandbox,
    standin,
    Colleague,
    chat,
    credential,
    googleCredential,
    serviceAccount: SERVICE_ACCOUNT,
    spreadsheetId: 'e2eKeepCurrentSheet1',
    rows: [header, ...csvRows],
    keyColumn: header[0],
    check,
    log,
  });
  await keepSheetCurrentChecks(keepContext());
  log(`[time] keep-sheet-current.json checks ${secs(tKeep)}`);

  await check("every request the node sent fits Google's discovery document; none was answered 429 at Google's quotas", async () => {
    assertEqual(standin.takeViolations(), [], 'requests that broke the discovery document');
    assertEqual(countCalls(standin.calls).rateLimited, 0, 'requests answered 429 at 60 reads and 60 writes a minute');
  });

  await check('no key, token or API key in the executions, workflows or the n8n log', async () => {
    const secrets = [...standin.auth.secrets(), apiKey];
    assert(secrets.length >= 3, `the stand-in handed out ${standin.auth.secrets().length} secrets`);
    const kept = [
      JSON.stringify(await listExecutions(n8n, { includeData: true })),
      JSON.stringify(await api(n8n, 'GET', '/workflows')),
      fs.readFileSync(path.join(n8n.userFolder, 'n8n.log'), 'utf8'),
    ].join('\n');
    for (const s of secrets) assert(!kept.includes(s), `a secret (${s.slice(0, 6)}...) is in what n8n keeps`);
  });
}

await finish(main);
