/**
 * The Sheets stand-in behaves like Google (../shared/reference/google-sheets-api.md): requests checked
 * against Google's discovery document, reads and writes under per-minute quotas, atomic batches, ragged
 * rows, FORMATTED_VALUE in the spreadsheet's locale. Over real HTTP, except the validator's own cases.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompanyDataClient } from '../../../packages/company-data/src/index';
import { startSandbox } from '../../../packages/company-data/src/sandbox';
import { enrichTable } from '../../../packages/company-data/src/sheets/enrich';
import { GoogleSheetTable } from '../../../packages/company-data/src/sheets/google-table';
import { sheetsDiscovery } from '../../support/sheets-standin-discovery';
import { MAX_SPREADSHEET_CELLS, startSheetsStandin, type SheetsStandin } from '../../support/sheets-standin';

let standin: SheetsStandin;
beforeAll(async () => {
  standin = await startSheetsStandin();
});
afterAll(() => standin.close());

/** One request straight to the stand-in, as a test would send it by hand. */
async function send(
  s: SheetsStandin,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = { 'content-type': 'application/json' },
): Promise<{ status: number; json: any; headers: Headers }> {
  const res = await fetch(`${s.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${s.accessToken}`, ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  return { status: res.status, json: await res.json(), headers: res.headers };
}

describe("requests checked against Google's discovery document", () => {
  const check = (verb: string, path: string, query = '', body?: unknown, contentType = 'application/json') =>
    sheetsDiscovery().check({ verb, path, query: new URLSearchParams(query), contentType, body });

  it('accepts what the document allows', () => {
    expect(check('GET', 'v4/spreadsheets/x/values/Sheet1!A1:B2', 'valueRenderOption=UNFORMATTED_VALUE&majorDimension=ROWS')).toEqual({
      method: 'sheets.spreadsheets.values.get',
      problems: [],
    });
    expect(check('GET', 'v4/spreadsheets/x/values:batchGet', 'ranges=A1&ranges=B2&fields=valueRanges').problems).toEqual([]);
    expect(
      check('POST', 'v4/spreadsheets/x:batchUpdate', '', {
        requests: [{ appendDimension: { sheetId: 0, dimension: 'ROWS', length: 5 } }],
      }).problems,
    ).toEqual([]);
    expect(
      check('POST', "v4/spreadsheets/x/values/'Q1'!A1:append", 'valueInputOption=RAW&insertDataOption=INSERT_ROWS', {
        values: [['a', 1, true, null]],
      }).method,
    ).toBe('sheets.spreadsheets.values.append');
  });

  it('refuses a misspelt field in the body, at any depth, like Google ("Unknown name")', () => {
    const top = check('POST', 'v4/spreadsheets/x/values:batchUpdate', '', { valueInputOptoin: 'RAW', data: [] });
    expect(top.status).toBe(400);
    expect(top.problems).toEqual(['Invalid JSON payload received. Unknown name "valueInputOptoin": Cannot find field.']);
    const nested = check('POST', 'v4/spreadsheets/x/values:batchUpdate', '', {
      valueInputOption: 'RAW',
      data: [{ rnage: 'A1', values: [['x']] }],
    });
    expect(nested.problems).toEqual(['Invalid JSON payload received. Unknown name "rnage" at \'data[0]\': Cannot find field.']);
    const deep = check('POST', 'v4/spreadsheets/x:batchUpdate', '', {
      requests: [{ appendDimension: { sheetID: 0, dimension: 'ROWS', length: 1 } }],
    });
    expect(deep.problems[0]).toMatch(/Unknown name "sheetID" at 'requests\[0\]\.appendDimension'/);
  });

  it('refuses wrong enum values, types and int32 ranges in the body', () => {
    expect(check('POST', 'v4/spreadsheets/x/values:batchUpdate', '', { valueInputOption: 'RAWW', data: [] }).problems[0]).toMatch(
      /Invalid value at 'valueInputOption': must be one of INPUT_VALUE_OPTION_UNSPECIFIED, RAW, USER_ENTERED/,
    );
    const length = (v: unknown) =>
      check('POST', 'v4/spreadsheets/x:batchUpdate', '', { requests: [{ appendDimension: { sheetId: 0, dimension: 'ROWS', length: v } }] })
        .problems;
    expect(length('5')).toHaveLength(1);
    expect(length(1.5)).toHaveLength(1);
    expect(length(2 ** 31)).toHaveLength(1);
    expect(length(5)).toEqual([]);
    expect(
      check('POST', 'v4/spreadsheets/x/values:batchUpdate', '', { valueInputOption: 'RAW', data: { range: 'A1' } }).problems[0],
    ).toMatch(/Invalid value at 'data': must be array/);
  });

  it('refuses unknown query parameters, wrong enums and types, and a parameter given twice that is not repeated', () => {
    expect(check('GET', 'v4/spreadsheets/x/values/A1', 'valueRenderOptions=FORMULA').problems[0]).toMatch(
      /Unknown name "valueRenderOptions": Cannot bind query parameter/,
    );
    expect(check('GET', 'v4/spreadsheets/x/values/A1', 'valueRenderOption=FORMATED_VALUE').problems[0]).toMatch(
      /Invalid value at 'valueRenderOption' \("FORMATED_VALUE"\)/,
    );
    expect(check('GET', 'v4/spreadsheets/x', 'includeGridData=yes').problems[0]).toMatch(/TYPE_BOOL/);
    expect(check('GET', 'v4/spreadsheets/x/values/A1', 'majorDimension=ROWS&majorDimension=ROWS').problems[0]).toMatch(
      /not a repeated parameter/,
    );
    expect(check('PUT', 'v4/spreadsheets/x/values/A1', 'valueInputOption=RAW', { values: [['a']] }, 'text/plain').problems[0]).toMatch(
      /must be sent as application\/json/,
    );
  });

  it('answers 404 for a path or verb no method has', () => {
    expect(check('GET', 'v4/spreadsheets/x/values:batchUpdate')).toMatchObject({ status: 404 });
    expect(check('POST', 'v4/spreadsheets/x/sheetz').problems).toEqual(['no method has the path v4/spreadsheets/x/sheetz']);
    expect(check('DELETE', 'v4/spreadsheets/x/values/A1').problems[0]).toMatch(/DELETE is not a method of/);
  });

  it("checks the stand-in's own answers against the response schema", () => {
    expect(
      sheetsDiscovery().responseProblems('sheets.spreadsheets.values.get', { range: 'S!A1:B2', majorDimension: 'ROWS', values: [[1]] }),
    ).toEqual([]);
    expect(sheetsDiscovery().responseProblems('sheets.spreadsheets.values.get', { range: 'S!A1:B2', rows: [[1]] })).toEqual([
      'Invalid JSON payload received. Unknown name "rows": Cannot find field.',
    ]);
  });

  it('over HTTP: a misspelt request is answered 400 INVALID_ARGUMENT, recorded, and fails the test at close() unless taken', async () => {
    standin.create('typo', [{ title: 'S', rows: [['a']] }]);
    const r = await send(standin, 'POST', 'v4/spreadsheets/typo/values:batchUpdate', {
      valueInputOption: 'RAW',
      data: [{ range: 'S!A1', valuse: [['b']] }],
    });
    expect(r.status).toBe(400);
    expect(r.json.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
    expect(r.json.error.message).toMatch(/Unknown name "valuse" at 'data\[0\]'/);
    expect(standin.values('typo', 'S')).toEqual([['a']]);
    expect(standin.takeViolations()).toEqual([
      expect.stringMatching(/^POST \/v4\/spreadsheets\/typo\/values:batchUpdate: .*Unknown name "valuse"/),
    ]);

    const other = await startSheetsStandin();
    other.create('t', [{ title: 'S' }]);
    expect((await send(other, 'GET', 'v4/spreadsheets/t/values/S?valueRenderOption=PLAIN')).status).toBe(400);
    await expect(other.close()).rejects.toThrow(
      /1 request\(s\) broke Google's discovery document:\nGET \/v4\/spreadsheets\/t\/values\/S\?valueRenderOption=PLAIN/,
    );
  });
});

describe('atomic batches', () => {
  it('values.batchUpdate applies nothing when one range is past the grid, names no sheet that exists, or holds too long a cell', async () => {
    standin.create('atom', [{ title: 'S', rows: [['keep']], rowCount: 5, columnCount: 3 }]);
    const batch = (second: { range: string; values: unknown[][] }) =>
      send(standin, 'POST', 'v4/spreadsheets/atom/values:batchUpdate', {
        valueInputOption: 'RAW',
        data: [{ range: 'S!A1', values: [['changed']] }, second],
      });
    const past = await batch({ range: 'S!A5:A6', values: [['x'], ['y']] });
    expect(past.status).toBe(400);
    expect(past.json.error.message).toMatch(/exceeds grid limits/);
    expect((await batch({ range: "'Nope'!A1", values: [['x']] })).json.error.message).toMatch(/Unable to parse range/);
    expect((await batch({ range: 'S!B1', values: [['z'.repeat(50_001)]] })).json.error.message).toMatch(/50000 characters/);
    expect(standin.values('atom', 'S')).toEqual([['keep']]);
    expect((await batch({ range: 'S!B1', values: [['fine']] })).status).toBe(200);
    expect(standin.values('atom', 'S')).toEqual([['changed', 'fine']]);
  });

  it('spreadsheets.batchUpdate applies nothing when a later request is refused, or the growth passes 10,000,000 cells', async () => {
    standin.create('grid', [{ title: 'S', rowCount: 10, columnCount: 2 }]);
    const sheet = () => standin.spreadsheets.get('grid')!.sheets[0]!;
    const grow = { appendDimension: { sheetId: 0, dimension: 'ROWS', length: 5 } };
    const bad = await send(standin, 'POST', 'v4/spreadsheets/grid:batchUpdate', {
      requests: [grow, { appendDimension: { sheetId: 999, dimension: 'COLUMNS', length: 1 } }],
    });
    expect(bad.status).toBe(400);
    expect(bad.json.error.message).toMatch(/No grid with id: 999/);
    const huge = await send(standin, 'POST', 'v4/spreadsheets/grid:batchUpdate', {
      requests: [grow, { appendDimension: { sheetId: 0, dimension: 'ROWS', length: MAX_SPREADSHEET_CELLS / 2 } }],
    });
    expect(huge.json.error.message).toMatch(/above the limit of 10000000 cells/);
    expect([sheet().rowCount, sheet().columnCount]).toEqual([10, 2]);
    expect((await send(standin, 'POST', 'v4/spreadsheets/grid:batchUpdate', { requests: [grow, grow] })).status).toBe(200);
    expect(sheet().rowCount).toBe(20);
  });
});

describe('reading like Google', () => {
  it('leaves out trailing empty cells of each row and trailing empty rows (ragged rows); the table pads them back', async () => {
    standin.create('ragged', [
      {
        title: 'Data',
        rows: [['name', 'code', '', ''], [], ['', '', 'c'], ['d', ''], ['', '', ''], []],
        rowCount: 10,
        columnCount: 4,
      },
    ]);
    const r = await send(standin, 'GET', 'v4/spreadsheets/ragged/values/Data?valueRenderOption=UNFORMATTED_VALUE');
    expect(r.json).toEqual({ range: 'Data!A1:D10', majorDimension: 'ROWS', values: [['name', 'code'], [], ['', '', 'c'], ['d']] });
    const empty = await send(standin, 'GET', 'v4/spreadsheets/ragged/values/Data!A8:D10');
    expect(empty.json).toEqual({ range: 'Data!A8:D10', majorDimension: 'ROWS' });
    const t = new GoogleSheetTable({
      spreadsheetId: 'ragged',
      sheet: 'Data',
      auth: { accessToken: standin.accessToken },
      rootUrl: standin.url,
    });
    expect(await t.read()).toEqual({
      header: ['name', 'code'],
      rows: [
        ['', ''],
        ['', '', 'c'],
        ['d', ''],
      ],
    });
  });

  it('FORMATTED_VALUE shows numbers in the spreadsheet locale (Estonian by default), UNFORMATTED_VALUE as numbers', async () => {
    const row = [13545698, 1.5, -1234.5, 'text', true];
    standin.create('et', [{ title: 'S', rows: [row] }]);
    standin.create('us', [{ title: 'S', rows: [row] }], { locale: 'en_US' });
    const get = async (id: string, option: string) =>
      (await send(standin, 'GET', `v4/spreadsheets/${id}/values/S!A1:E1?valueRenderOption=${option}`)).json.values[0];
    // Estonian groups digits with a no-break space (U+00A0) and writes a decimal comma.
    expect(await get('et', 'FORMATTED_VALUE')).toEqual(['13\u00a0545\u00a0698', '1,5', '-1\u00a0234,5', 'text', 'TRUE']);
    expect(await get('us', 'FORMATTED_VALUE')).toEqual(['13,545,698', '1.5', '-1,234.5', 'text', 'TRUE']);
    expect(await get('et', 'UNFORMATTED_VALUE')).toEqual(row);
    expect((await send(standin, 'GET', 'v4/spreadsheets/et?fields=properties.locale')).json.properties.locale).toBe('et_EE');
  });

  it('counts reads toward a per-minute quota like writes: 429 RESOURCE_EXHAUSTED without Retry-After; the table spaces its reads', async () => {
    const q = await startSheetsStandin({ readsPerMinute: 3, windowMs: 2000 });
    try {
      q.create('r', [{ title: 'S', rows: [['h'], ['1']] }]);
      for (let i = 0; i < 3; i++) expect((await send(q, 'GET', 'v4/spreadsheets/r/values/S')).status).toBe(200);
      const refused = await send(q, 'GET', 'v4/spreadsheets/r/values/S');
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBeNull();
      expect(refused.json.error).toMatchObject({ status: 'RESOURCE_EXHAUSTED', message: expect.stringMatching(/'Read requests'/) });
      // The table keeps Google's minute, here 30 times faster like the stand-in's window.
      const t0 = Date.now();
      const clock = { now: () => t0 + (Date.now() - t0) * 30, sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, ms / 30)) };
      await new Promise((r) => setTimeout(r, 2100));
      const before = q.calls.length;
      const t = new GoogleSheetTable({
        spreadsheetId: 'r',
        sheet: 'S',
        auth: { accessToken: q.accessToken },
        rootUrl: q.url,
        clock,
        readsPerMinute: 3,
      });
      for (let i = 0; i < 5; i++) expect((await t.read()).rows).toEqual([['1']]);
      expect(q.calls.slice(before).map((c) => c.status)).toEqual([200, 200, 200, 200, 200]);
    } finally {
      await q.close();
    }
  });
});

describe('an Estonian-locale sheet with registry codes stored as numbers', () => {
  it('enriches every row: the table reads UNFORMATTED_VALUE, so "10 137 319" as shown is still the code 10137319', async () => {
    const sb = await startSandbox({ port: 0, seed: 1, companies: 300 });
    const client = new CompanyDataClient({ baseUrl: sb.url, apiKey: sb.apiKey });
    const dir = mkdtempSync(join(tmpdir(), 'et-locale-'));
    try {
      const codes = sb.dataset.companies.slice(0, 40).map((c) => c.code);
      standin.create('numbers', [{ title: 'S', rows: [['registrikood', 'märkus'], ...codes.map((c, i) => [Number(c), `rida ${i}`])] }]);
      const shown = (await send(standin, 'GET', 'v4/spreadsheets/numbers/values/S!A2')).json.values[0][0];
      expect(shown).toBe(Number(codes[0]).toLocaleString('et-EE'));
      expect(shown).not.toBe(codes[0]);
      const t = new GoogleSheetTable({
        spreadsheetId: 'numbers',
        sheet: 'S',
        auth: { accessToken: standin.accessToken },
        rootUrl: standin.url,
      });
      const report = await enrichTable({ table: t, client, fields: ['registry_code', 'name'], stateDir: join(dir, 'state') });
      expect(report).toMatchObject({ rowsInScope: 40, matched: 40, invalid: 0, errors: 0, billedQueries: 40 });
      const v = standin.values('numbers', 'S');
      const col = (name: string) => v.slice(1).map((r) => r[v[0]!.indexOf(name)]);
      expect(col('company_data_match_registry_code')).toEqual(codes);
      expect(col('company_data_query')).toEqual(codes);
      expect(col('company_data_status').every((s) => s === 'matched')).toBe(true);
      // The key column is untouched: still numbers.
      expect(col('registrikood')).toEqual(codes.map(Number));
    } finally {
      await client.close();
      await sb.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('sheets added, hidden and deleted as Google does', () => {
  const batch = (id: string, requests: unknown[]) => send(standin, 'POST', `v4/spreadsheets/${id}:batchUpdate`, { requests });

  it('refuses addSheet of a title that is there (without regard to case), and the whole batch with it', async () => {
    standin.create('add-twice', [{ title: 'Leads', rows: [['a']] }]);
    const made = await batch('add-twice', [{ addSheet: { properties: { sheetId: 77, title: 'Lock', hidden: true } } }]);
    expect(made.status).toBe(200);
    expect(made.json.replies[0].addSheet.properties).toMatchObject({ sheetId: 77, title: 'Lock', hidden: true });
    const again = await batch('add-twice', [
      { appendDimension: { sheetId: 0, dimension: 'ROWS', length: 5 } },
      { addSheet: { properties: { title: 'LOCK' } } },
    ]);
    expect(again.status).toBe(400);
    expect(again.json.error).toMatchObject({
      status: 'INVALID_ARGUMENT',
      message: 'Invalid requests[1].addSheet: A sheet with the name "LOCK" already exists. Please enter another name.',
    });
    const meta = await send(standin, 'GET', 'v4/spreadsheets/add-twice?fields=sheets.properties');
    expect(meta.json.sheets.map((s: any) => s.properties)).toEqual([
      { sheetId: 0, title: 'Leads', index: 0, sheetType: 'GRID', gridProperties: { rowCount: 1000, columnCount: 26 } },
      { sheetId: 77, title: 'Lock', index: 1, sheetType: 'GRID', gridProperties: { rowCount: 1000, columnCount: 26 }, hidden: true },
    ]);
  });

  it('deletes a sheet by id once: a second delete of the id is refused with "No grid with id"', async () => {
    standin.create('last-visible', [{ title: 'Only' }]);
    expect((await batch('last-visible', [{ deleteSheet: { sheetId: 0 } }])).json.error.message).toMatch(/can't remove all/);
    standin.create('delete-twice', [{ title: 'Leads' }, { title: 'Other' }]);
    expect((await batch('delete-twice', [{ deleteSheet: { sheetId: 1001 } }])).status).toBe(200);
    const again = await batch('delete-twice', [{ deleteSheet: { sheetId: 1001 } }]);
    expect(again.status).toBe(400);
    expect(again.json.error.message).toBe('Invalid requests[0].deleteSheet: No grid with id: 1001');
    const meta = await send(standin, 'GET', 'v4/spreadsheets/delete-twice?fields=sheets.properties.title');
    expect(meta.json.sheets).toEqual([{ properties: { title: 'Leads' } }]);
  });

  it('writes cells of an existing sheet by id with updateCells, and refuses an id no sheet has', async () => {
    standin.create('update-cells', [{ title: 'Leads' }]);
    const rows = [{ values: [{ userEnteredValue: { stringValue: '0012' } }] }];
    expect((await batch('update-cells', [{ updateCells: { start: { sheetId: 0 }, rows, fields: 'userEnteredValue' } }])).status).toBe(200);
    expect(standin.values('update-cells', 'Leads')).toEqual([['0012']]);
    const gone = await batch('update-cells', [{ updateCells: { start: { sheetId: 5 }, rows, fields: 'userEnteredValue' } }]);
    expect(gone.status).toBe(400);
    expect(gone.json.error.message).toBe('Invalid requests[0]: No grid with id: 5');
  });

  it('reads a range without a sheet name from the first VISIBLE sheet', async () => {
    standin.create('first-visible', [
      { title: 'Hidden one', rows: [['h']], hidden: true },
      { title: 'Shown', rows: [['s']] },
    ]);
    expect((await send(standin, 'GET', 'v4/spreadsheets/first-visible/values/A1')).json.values).toEqual([['s']]);
  });
});
