/**
 * Sheet titles that look like cells (Q1, Jan2025): Google reads an unquoted Q1 as cell Q1 of the first
 * sheet, so every range the tool sends quotes the title. The stand-in parses A1 as Google documents.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompanyDataClient } from '../../../packages/company-data/src/index';
import { enrichTable } from '../../../packages/company-data/src/sheets/enrich';
import { EventSheetWriter } from '../../../packages/company-data/src/sheets/events-to-rows';
import { a1Sheet, GoogleSheetTable } from '../../../packages/company-data/src/sheets/google-table';
import { startSheetsStandin, type SheetsStandin } from '../../support/sheets-standin';
import { startLookupServer, type LookupServer } from './support/lookup-server';
import { taxDebtChange } from './support/events';

let standin: SheetsStandin;
let server: LookupServer;
let client: CompanyDataClient;
let dir: string;
beforeAll(async () => {
  standin = await startSheetsStandin();
  server = await startLookupServer();
  client = new CompanyDataClient({ baseUrl: server.url, apiKey: server.apiKey });
  dir = mkdtempSync(join(tmpdir(), 'sheet-titles-'));
});
afterAll(async () => {
  await client.close();
  await server.close();
  await standin.close();
  rmSync(dir, { recursive: true, force: true });
});

const table = (id: string, sheet?: string) =>
  new GoogleSheetTable({
    spreadsheetId: id,
    ...(sheet ? { sheet } : {}),
    auth: { accessToken: standin.accessToken },
    rootUrl: standin.url,
  });

const change = (n: number) => taxDebtChange(n);

describe('sheet titles that look like cells', () => {
  it('quotes every title, doubling quotes inside', () => {
    expect(a1Sheet('Q1')).toBe("'Q1'");
    expect(a1Sheet('Jan2025')).toBe("'Jan2025'");
    expect(a1Sheet("Q3 'hot' leads")).toBe("'Q3 ''hot'' leads'");
  });

  it('the stand-in reads an unquoted Q1 as a cell of the first sheet, as Google does', async () => {
    standin.create('a1', [
      { title: 'First', rows: [['x']] },
      { title: 'Q1', rows: [['in Q1']] },
      { title: "it's", rows: [['quoted']] },
    ]);
    const get = async (range: string) => {
      const res = await fetch(`${standin.url}v4/spreadsheets/a1/values/${encodeURIComponent(range)}`, {
        headers: { authorization: `Bearer ${standin.accessToken}` },
      });
      return (await res.json()) as { range?: string; values?: string[][] };
    };
    expect((await get('Q1')).range).toBe('First!Q1:Q1');
    expect((await get('Q1:Q2')).range).toBe('First!Q1:Q2');
    expect((await get("'Q1'")).values).toEqual([['in Q1']]);
    expect((await get("'Q1'!A1")).values).toEqual([['in Q1']]);
    expect((await get("'it''s'!A1")).values).toEqual([['quoted']]);
  });

  it('enrich reads and writes the sheet titled Q1, leaving the first sheet alone', async () => {
    standin.create('enq', [
      { title: 'Summary', rows: [['total', '2']] },
      {
        title: 'Q1',
        rows: [
          ['Registry code', 'note'],
          ['10000001', 'a'],
          ['10000018', 'b'],
        ],
        rowCount: 3,
        columnCount: 2,
      },
    ]);
    await enrichTable({ table: table('enq', 'Q1'), client, fields: ['name'], stateDir: join(dir, 'enrich') });
    const q1 = standin.values('enq', 'Q1');
    expect(q1[0]!.slice(0, 2)).toEqual(['Registry code', 'note']);
    expect(q1[0]).toContain('company_data_match_name');
    expect(q1.slice(1).map((r) => [r[0], r[1]])).toEqual([
      ['10000001', 'a'],
      ['10000018', 'b'],
    ]);
    expect(q1.slice(1).every((r) => String(r[2] ?? '') !== '')).toBe(true);
    expect(standin.values('enq', 'Summary')).toEqual([['total', '2']]);
  });

  it('the events writer keeps the header of a sheet titled Jan2025 and writes each event once across a restart', async () => {
    standin.create('evq', [
      { title: 'Notes', rows: [['keep me']] },
      { title: 'Jan2025', rows: [['my column', 'event_id']] },
    ]);
    const stateDir = join(dir, 'events');
    for (const round of [1, 2]) {
      const w = new EventSheetWriter({ table: table('evq', 'Jan2025'), stateDir });
      await w.open();
      expect(await w.accept(change(1) as never)).toBe(round === 1 ? 'appended' : 'duplicate');
      expect(await w.accept(change(round + 1) as never)).toBe('appended');
      await w.close();
    }
    const v = standin.values('evq', 'Jan2025');
    expect(v[0]!.slice(0, 3)).toEqual(['my column', 'event_id', 'type']);
    expect(v.slice(1).map((r) => r[1])).toEqual(['evt_1', 'evt_2', 'evt_3']);
    expect(v.slice(1).every((r) => r[0] === '')).toBe(true);
    expect(standin.values('evq', 'Notes')).toEqual([['keep me']]);
  });

  it('an unknown --sheet names the sheets that exist', async () => {
    standin.create('unk', [{ title: 'Q1' }, { title: 'Jan2025' }]);
    await expect(table('unk', 'Q2').read()).rejects.toThrow(/no sheet named "Q2" in spreadsheet unk; its sheets are "Q1", "Jan2025"/);
    await expect(new EventSheetWriter({ table: table('unk', 'Q2'), stateDir: join(dir, 'unk') }).open()).rejects.toThrow(
      /its sheets are "Q1", "Jan2025"/,
    );
  });
});
