import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startSandbox, type Sandbox } from '../../../packages/company-data/src/sandbox';
import { CompanyDataGoogleSheets } from '../../../nodes/CompanyDataGoogleSheets/CompanyDataGoogleSheets.node';
import { googleExecuteContext, type GoogleContextOptions } from '../../support/n8n-google-context';
import { listedCodes } from '../../support/sandbox-codes';
import { SheetsStandin, type StandinOptions } from '../../support/sheets-standin';
import { StandinRefusal } from '../../support/sheets-standin-permissions';

/**
 * Company Data: Google Sheets, Enrich Rows, through the node's execute() with n8n's execution context
 * (jest-mock-extended) and every request over real HTTP: lookups to the sandbox, Google's token endpoint and
 * Sheets API to the stand-in (which checks each request against Google's discovery document). The sandbox's
 * usage counter says what was billed.
 */
const node = new CompanyDataGoogleSheets();
let sb: Sandbox;
let codes: string[];
const standins: SheetsStandin[] = [];

beforeAll(async () => {
  sb = await startSandbox({ port: 0, seed: 1, companies: 2000 });
  codes = await listedCodes(sb, 150);
});
afterAll(async () => {
  await sb?.close();
  for (const g of standins) await g.close();
});

const billed = () => sb.usage(sb.apiKey).billed_lookup_queries;

/** A stand-in with one spreadsheet: header, then one registry code per row. */
async function sheetWorld(rows: number, options: StandinOptions = {}, id = `sheet-enrich-${standins.length}-0001`) {
  const g = await new SheetsStandin({ readsPerMinute: 600, writesPerMinute: 600, ...options }).listen();
  standins.push(g);
  g.create(id, [{ title: 'Leads', rows: [['Company', 'Registry code'], ...codes.slice(0, rows).map((c, i) => [`Lead ${i + 1}`, c])] }]);
  const key = g.serviceAccountKey('enrich@standin.iam.gserviceaccount.com');
  g.share(id, [key.client_email]);
  return { g, id, key };
}

type World = Awaited<ReturnType<typeof sheetWorld>>;

function params(w: World, more: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    authentication: 'serviceAccount',
    operation: 'enrich',
    spreadsheet: { __rl: true, mode: 'url', value: `https://docs.google.com/spreadsheets/d/${w.id}/edit#gid=0` },
    sheet: { __rl: true, mode: 'list', value: '0' },
    keyColumn: '',
    fields: ['name', 'registry_code', 'status_label'],
    mode: 'missing',
    maxBilledQueries: 0,
    options: { sheetsApiUrl: w.g.url },
    ...more,
  };
}

async function run(w: World, more: Record<string, unknown> = {}, ctxOptions: Partial<GoogleContextOptions> = {}) {
  const before = billed();
  const { ctx, requests } = googleExecuteContext({
    params: params(w, more),
    companyData: { apiKey: sb.apiKey, baseUrl: sb.url, authStyle: 'xApiKey' },
    serviceAccount: { serviceAccountKey: JSON.stringify(w.key) },
    ...ctxOptions,
  });
  const out = (await node.execute.call(ctx)) as INodeExecutionData[][];
  return { out: out[0]!, report: out[0]![0]!.json, billed: billed() - before, requests };
}

/** The sheet as rows of header → text. */
function table(w: World): Record<string, string>[] {
  const [header, ...rows] = w.g.values(w.id, 'Leads').map((r) => r.map(String));
  return rows.map((r) => Object.fromEntries(header!.map((h, i) => [h, r[i] ?? ''])));
}

describe('Enrich Rows', () => {
  test('enriches a sheet: each row gets its company, one item reports the run; a rerun bills nothing', async () => {
    const w = await sheetWorld(25);
    const first = await run(w);
    expect(first.out).toHaveLength(1);
    expect(first.report).toMatchObject({
      spreadsheetId: w.id,
      sheet: 'Leads',
      keyColumn: 'Registry code',
      rows: 25,
      rowsEnriched: 25,
      matched: 25,
      noMatch: 0,
      invalid: 0,
      billedQueries: 25,
      interrupted: false,
    });
    expect(first.billed).toBe(25);
    const rows = table(w);
    expect(rows.map((r) => r.company_data_match_registry_code)).toEqual(codes.slice(0, 25));
    for (const r of rows) {
      expect(r.company_data_match_name).not.toBe('');
      expect(r.company_data_match_status_label).not.toBe('');
    }
    const again = await run(w);
    expect(again.billed).toBe(0);
    expect(again.report).toMatchObject({ billedQueries: 0, rowsInScope: 0 });
    expect(again.requests.filter((r) => r.url.endsWith('/companies/lookup'))).toHaveLength(0);
  });

  test('a sheet shared view-only is refused before paying: NodeOperationError saying what to do, nothing billed or written', async () => {
    const w = await sheetWorld(10);
    w.g.access.setRole(w.id, w.key.client_email, 'reader');
    const before = JSON.stringify(w.g.values(w.id, 'Leads'));
    const billedBefore = billed();
    const err = await run(w).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NodeOperationError);
    expect((err as NodeOperationError).message).toMatch(/cannot take the answers/);
    expect((err as NodeOperationError).description).toContain('Nothing was sent and nothing was billed');
    expect((err as NodeOperationError).description).toContain(w.key.client_email);
    expect(billed()).toBe(billedBefore);
    expect(JSON.stringify(w.g.values(w.id, 'Leads'))).toBe(before);
    expect(w.g.count('write')).toBe(0);

    // With Continue On Fail the refusal is the output item.
    const { out, billed: paid } = await run(w, {}, { continueOnFail: true });
    expect(paid).toBe(0);
    expect(out).toHaveLength(1);
    expect(String(out[0]!.json.error)).toMatch(/cannot take the answers/);
  });

  test('no key column found: an error naming the Key Column field and the headers, before paying', async () => {
    const w = await sheetWorld(3);
    w.g.create('sheet-enrich-nokey-01', [
      {
        title: 'Leads',
        rows: [
          ['Lead', 'Owner'],
          ['a', 'b'],
        ],
      },
    ]);
    const start = billed();
    const err = await run({ ...w, id: 'sheet-enrich-nokey-01' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NodeOperationError);
    // Named as the node's parameter, as every field error of the node is: "Key Column: …".
    expect((err as Error).message).toMatch(/^Key Column: no registry code, VAT number or name header found/);
    expect((err as Error).message).toMatch(/Lead, Owner/);
    expect((err as NodeOperationError).description).toMatch(/^Set Key Column to the header of the column/);
    expect(billed()).toBe(start);
  });

  test('a token that expires mid-run is renewed, and the run finishes', async () => {
    const w = await sheetWorld(30);
    let seen = 0;
    w.g.auth.onAuthenticated = () => {
      if (++seen === 4) w.g.auth.expireAccessTokens();
    };
    const issued = w.g.auth.issuedCount();
    const res = await run(w);
    expect(res.report).toMatchObject({ matched: 30, billedQueries: 30 });
    expect(w.g.auth.issuedCount() - issued).toBeGreaterThanOrEqual(2);
    expect(table(w).every((r) => r.company_data_match_name !== '')).toBe(true);
  });

  test('a 429 storm is waited out', async () => {
    // Google's quota far below what the table paces for: most requests are refused with 429 at first.
    const w = await sheetWorld(20, { readsPerMinute: 2, writesPerMinute: 2, windowMs: 1500 });
    const res = await run(w);
    expect(res.report).toMatchObject({ matched: 20, billedQueries: 20, interrupted: false });
    expect(w.g.calls.filter((c) => c.status === 429).length).toBeGreaterThan(0);
    expect(table(w).every((r) => r.company_data_match_name !== '')).toBe(true);
  });

  test('with OAuth2 too: n8n’s helper throws Google’s 429s, the node reads them back and waits them out', async () => {
    const w = await sheetWorld(10, { readsPerMinute: 2, writesPerMinute: 2, windowMs: 1500 });
    w.g.share(w.id, ['oauth-user']);
    const res = await run(w, { authentication: 'oAuth2' }, { oauth: { oauthTokenData: { access_token: w.g.accessToken } } });
    expect(res.report).toMatchObject({ matched: 10, billedQueries: 10, interrupted: false });
    expect(w.g.calls.filter((c) => c.status === 429).length).toBeGreaterThan(0);
    expect(table(w).every((r) => r.company_data_match_name !== '')).toBe(true);
  });

  test('Stop during a quota wait ends the run within a second or so', async () => {
    // One request a minute: the run waits on Google's quota long after it started.
    const w = await sheetWorld(20, { readsPerMinute: 1, writesPerMinute: 1, windowMs: 60_000 });
    const stop = new AbortController();
    let stoppedAt = 0;
    w.g.beforeRequest.push(() => {
      if (!stoppedAt && w.g.calls.some((c) => c.status === 429)) {
        stoppedAt = Date.now();
        stop.abort();
      }
    });
    const billedBefore = billed();
    const settled = run(w, {}, { signal: stop.signal }).then(
      (r) => ({ ok: true as const, r }),
      (e: unknown) => ({ ok: false as const, e }),
    );
    const result = await settled;
    expect(stoppedAt).toBeGreaterThan(0);
    // Far below the minute Google's quota would keep it waiting; generous for a loaded machine.
    expect(Date.now() - stoppedAt).toBeLessThan(5_000);
    // Stopped before it paid: a report marked interrupted, or the error saying it was stopped.
    if (result.ok) expect(result.r.report.interrupted).toBe(true);
    else {
      expect(result.e).toBeInstanceOf(NodeOperationError);
      expect((result.e as Error).message).toBe('The run was stopped');
    }
    expect(billed()).toBe(billedBefore);
  });

  test("Stop during Google's back-off after a 503: no retry is sent after it, the run ends at once", async () => {
    const w = await sheetWorld(10);
    const stop = new AbortController();
    let unavailableSince = 0;
    let writesAfterStop = 0;
    // Every save is answered 503 (Google's "try again"); Stop is pressed while the first back-off (0.5-1 s) runs.
    w.g.beforeRequest.push(({ httpMethod }) => {
      if (httpMethod === 'GET') return;
      if (stop.signal.aborted) writesAfterStop++;
      if (!unavailableSince) {
        unavailableSince = Date.now();
        setTimeout(() => stop.abort(), 200);
      }
      throw new StandinRefusal(503, 'UNAVAILABLE', 'The service is currently unavailable.');
    });
    const result = await run(w, {}, { signal: stop.signal }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(stop.signal.aborted).toBe(true);
    expect(result).toBeInstanceOf(NodeOperationError);
    expect((result as Error).message).toBe('The run was stopped');
    // A save begun after Stop still goes out once; its retries, and those of the save under way, do not.
    expect(writesAfterStop).toBeLessThanOrEqual(1);
    expect(Date.now() - unavailableSince).toBeLessThan(10_000);
  });

  test('Stop while answers come in: every answer paid for is saved to the sheet, and the rerun bills only what was not', async () => {
    const w = await sheetWorld(150);
    const stop = new AbortController();
    const start = billed();
    // Stopped at the first Sheets request after the sandbox billed answers (the save of the first answers).
    w.g.beforeRequest.push(() => {
      if (!stop.signal.aborted && billed() > start) stop.abort();
    });
    const first = await run(w, {}, { signal: stop.signal }).then(
      (r) => r.report,
      (e: unknown) => e,
    );
    expect(stop.signal.aborted).toBe(true);
    const paid = billed() - start;
    expect(paid).toBeGreaterThan(0);
    const saved = () => table(w).filter((r) => r.company_data_match_name).length;
    // Every answer paid for is in the sheet (a request cut off by Stop may be billed without an answer: n8n aborts it).
    const savedAfterStop = saved();
    expect(savedAfterStop).toBeGreaterThan(0);
    if (!(first instanceof Error)) expect((first as IDataObject).interrupted).toBe(true);
    const again = await run(w);
    expect(saved()).toBe(150);
    expect(again.billed).toBe(150 - savedAfterStop);
  });

  test('a save refused mid-run keeps what was paid; the rerun after sharing is fixed bills nothing for it', async () => {
    const w = await sheetWorld(40);
    const staticData: IDataObject = {};
    // Edit access is withdrawn right after the checks' probe write (the sheet's lease, taken before, is a spreadsheets.batchUpdate).
    w.g.access.onWrite = (_id, method) => {
      if (method === 'spreadsheets.batchUpdate') return;
      w.g.access.setRole(w.id, w.key.client_email, 'reader');
      w.g.access.onWrite = undefined;
    };
    const start = billed();
    const err = await run(w, {}, { staticData }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NodeOperationError);
    const paid = billed();
    expect(paid - start).toBeGreaterThan(0);
    expect(Object.keys(staticData)).toContain('companyDataPaidAnswers');

    w.g.access.setRole(w.id, w.key.client_email, 'writer');
    const again = await run(w, {}, { staticData });
    const rows = table(w);
    expect(rows.every((r) => r.company_data_match_name !== '')).toBe(true);
    // Every answer the first run paid for came back for free.
    expect(again.report.freeQueries as number).toBeGreaterThan(0);
    expect((again.report.billedQueries as number) + (again.report.freeQueries as number)).toBe(again.report.uniqueQueries);
    expect(billed() - paid).toBe(again.report.billedQueries);
    expect((again.report.billedQueries as number) + (again.report.freeQueries as number)).toBeLessThanOrEqual(40);
  });

  test('OAuth2: n8n’s authenticated helper signs the requests; a Max Billed Queries cap refuses before paying', async () => {
    const w = await sheetWorld(12);
    w.g.share(w.id, ['oauth-user']);
    const oauth = { oauthTokenData: { access_token: w.g.accessToken } };
    const billedBefore = billed();
    const capped = await run(w, { authentication: 'oAuth2', maxBilledQueries: 5 }, { oauth }).catch((e: unknown) => e);
    expect(capped).toBeInstanceOf(NodeOperationError);
    expect((capped as Error).message).toMatch(/12/);
    expect(billed()).toBe(billedBefore);
    const res = await run(w, { authentication: 'oAuth2' }, { oauth });
    expect(res.report).toMatchObject({ matched: 12, billedQueries: 12 });
    expect(res.requests.some((r) => r.url.startsWith(w.g.url) && r.headers.Authorization === `Bearer ${w.g.accessToken}`)).toBe(true);
  });
});
