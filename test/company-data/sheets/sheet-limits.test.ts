/**
 * Google's limits and refusals against the stand-in: 50,000-character cells (capped with a marker,
 * the events pipeline keeps going) and errors that say what to do (403 not shared, 404 wrong id).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventSheetWriter } from '../../../packages/company-data/src/sheets/events-to-rows';
import { GoogleSheetTable } from '../../../packages/company-data/src/sheets/google-table';
import { capCell, MAX_CELL_CHARS } from '../../../packages/company-data/src/sheets/table';
import { startSheetsStandin, type SheetsStandin } from '../../support/sheets-standin';
import { taxDebtChange } from './support/events';

let standin: SheetsStandin;
let dir: string;
beforeAll(async () => {
  standin = await startSheetsStandin();
  dir = mkdtempSync(join(tmpdir(), 'sheet-limits-'));
});
afterAll(async () => {
  await standin.close();
  rmSync(dir, { recursive: true, force: true });
});

const table = (id: string, sheet = 'Events') =>
  new GoogleSheetTable({ spreadsheetId: id, sheet, auth: { accessToken: standin.accessToken }, rootUrl: standin.url });

const change = (n: number, details?: unknown) => taxDebtChange(n, { details });

describe('50,000-character cells', () => {
  it('capCell keeps short values and cuts long ones to the limit with a visible marker', () => {
    expect(capCell('short')).toBe('short');
    const long = 'x'.repeat(123_456);
    const cut = capCell(long);
    expect(cut.length).toBeLessThanOrEqual(MAX_CELL_CHARS);
    expect(cut).toMatch(/^x+ … \[cut: 123,456 characters in all\]$/);
    expect(capCell('x'.repeat(MAX_CELL_CHARS))).toHaveLength(MAX_CELL_CHARS);
  });

  it("the stand-in refuses a longer cell with Google's 400, applying nothing", async () => {
    standin.create('big', [{ title: 'S', rows: [['a']] }]);
    const res = await fetch(`${standin.url}v4/spreadsheets/big/values/'S'!A1:append?valueInputOption=RAW`, {
      method: 'POST',
      headers: { authorization: `Bearer ${standin.accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ values: [['ok', 'y'.repeat(50_001)]] }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: { code: 400, message: expect.stringMatching(/maximum of 50000 characters in a single cell/), status: 'INVALID_ARGUMENT' },
    });
    expect(standin.values('big', 'S')).toEqual([['a']]);
  });

  it('enrich-style cell writes are capped too', async () => {
    standin.create('cellw', [{ title: 'S', rows: [['a']] }]);
    const t = table('cellw', 'S');
    await t.write([{ row: 1, col: 0, value: 'z'.repeat(60_000) }]);
    await t.flush();
    expect(String(standin.values('cellw', 'S')[1]![0])).toMatch(/^z{49000,} … \[cut: 60,000 characters in all\]$/);
  });

  it('an event with a 200,000-character field is written capped; later events too, each once across a restart', async () => {
    standin.create('poison', [{ title: 'Events', rows: [['my notes']] }]);
    const stateDir = join(dir, 'poison');
    const events = [change(1), change(2, { text: 'p'.repeat(200_000) }), change(3)];
    for (const round of [1, 2]) {
      const w = new EventSheetWriter({ table: table('poison'), stateDir });
      await w.open();
      for (const e of events) expect(await w.accept(e as never)).toBe(round === 1 ? 'appended' : 'duplicate');
      if (round === 2) expect(await w.accept(change(4) as never)).toBe('appended');
      await w.close();
    }
    const v = standin.values('poison', 'Events').map((r) => r.map(String));
    expect(v[0]!.slice(0, 2)).toEqual(['my notes', 'event_id']);
    expect(v.slice(1).map((r) => r[1])).toEqual(['evt_1', 'evt_2', 'evt_3', 'evt_4']);
    const details = v[2]![v[0]!.indexOf('details')]!;
    expect(details.length).toBeLessThanOrEqual(MAX_CELL_CHARS);
    expect(details).toMatch(/ … \[cut: 200,011 characters in all\]$/);
  });
});

describe('errors that say what to do', () => {
  it('403: names the service account to share the spreadsheet with', async () => {
    standin.create('private', [{ title: 'Events', rows: [['a']] }]);
    standin.share('private', ['someone@example.com']);
    const keyFile = join(dir, 'key.json');
    writeFileSync(keyFile, JSON.stringify(standin.serviceAccountKey('sync-bot@proj.iam.gserviceaccount.com')));
    const t = new GoogleSheetTable({
      spreadsheetId: 'private',
      sheet: 'Events',
      auth: { serviceAccountKeyFile: keyFile },
      rootUrl: standin.url,
    });
    await expect(t.read()).rejects.toThrow(
      /Google Sheets 403 PERMISSION_DENIED: The caller does not have permission \(share the spreadsheet with sync-bot@proj\.iam\.gserviceaccount\.com as an Editor/,
    );
  });

  it('404: names the spreadsheet id to check', async () => {
    await expect(table('no-such-id').read()).rejects.toThrow(
      /Google Sheets 404 NOT_FOUND: Requested entity was not found\. \(no spreadsheet has the id no-such-id: check the id/,
    );
  });

  it('401: says to renew the credentials', async () => {
    standin.create('tok', [{ title: 'Events' }]);
    const t = new GoogleSheetTable({ spreadsheetId: 'tok', sheet: 'Events', auth: { accessToken: 'expired' }, rootUrl: standin.url });
    await expect(t.read()).rejects.toThrow(/Google Sheets 401 UNAUTHENTICATED: .*\(the credentials were refused or have expired/);
  });
});
