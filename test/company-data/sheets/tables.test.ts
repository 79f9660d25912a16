import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { sheets_v4 } from 'googleapis/build/src/apis/sheets';
import { OAuth2Client } from 'googleapis-common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CsvTable } from '../../../packages/company-data/src/sheets/csv-table';
import { GoogleSheetTable } from '../../../packages/company-data/src/sheets/google-table';
import { columnLetters, packSpans, PendingCells } from '../../../packages/company-data/src/sheets/table';
import { XlsxTable } from '../../../packages/company-data/src/sheets/xlsx-table';
import { startSheetsStandin, type SheetsStandin } from '../../support/sheets-standin';

const tricky = ['=1+1', '00123', '+372 5555 1234', '+3725555'];

describe('blocks and A1 letters', () => {
  it('names columns like a spreadsheet', () => {
    expect([0, 25, 26, 701, 702].map(columnLetters)).toEqual(['A', 'Z', 'AA', 'ZZ', 'AAA']);
  });
  it('merges adjacent cells into rectangles', () => {
    const cells = [0, 1, 2].flatMap((row) => [3, 4].map((col) => ({ row, col, value: `${row}${col}` })));
    const pending = new PendingCells();
    pending.add([...cells, { row: 5, col: 0, value: 'x' }]);
    const [all] = packSpans(pending);
    const rectangles = all!.spans.map((s) => ({
      row: s.row,
      col: s.col,
      values: Array.from({ length: s.height }, (_, i) => pending.line(s.row + i, s.col, s.width)),
    }));
    expect(rectangles).toEqual([
      {
        row: 0,
        col: 3,
        values: [
          ['03', '04'],
          ['13', '14'],
          ['23', '24'],
        ],
      },
      { row: 5, col: 0, values: [['x']] },
    ]);
  });
});

describe('CSV table', () => {
  const dir = mkdtempSync(join(tmpdir(), 'csv-table-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  it('keeps separator, BOM and text as typed; saves atomically', async () => {
    const path = join(dir, 'a.csv');
    writeFileSync(path, '\ufeffcode;name\r\n00123;"A; B"\r\n');
    const t = new CsvTable(path, { formulas: 'keep' });
    const snap = await t.read();
    expect(snap).toEqual({ header: ['code', 'name'], rows: [['00123', 'A; B']] });
    await t.write(tricky.map((value, i) => ({ row: i + 1, col: 2, value })));
    await t.write([{ row: 0, col: 2, value: 'extra' }]);
    await t.flush();
    const text = readFileSync(path, 'utf8');
    expect(text.startsWith('\ufeffcode;name;extra\r\n')).toBe(true);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    const again = await new CsvTable(path).read();
    expect(again.rows.map((r) => r[2])).toEqual(tricky);
    expect(again.rows[0]![0]).toBe('00123');
  });
  it('writes to --out and leaves the source alone', async () => {
    const src = join(dir, 'src.csv');
    writeFileSync(src, 'name\nBolt\n');
    const t = new CsvTable(src, { out: join(dir, 'out.csv') });
    await t.read();
    await t.write([{ row: 1, col: 1, value: 'ok' }]);
    await t.flush();
    expect(readFileSync(src, 'utf8')).toBe('name\nBolt\n');
    expect(readFileSync(join(dir, 'out.csv'), 'utf8')).toBe('name,\nBolt,ok\n');
  });
});

describe('CSV table, streamed (enrich)', () => {
  it('rewrites row by row keeping separator, BOM and CRLF; a file changed on disk since it was read is not overwritten', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'csv-stream-'));
    try {
      const file = join(dir, 'a.csv');
      writeFileSync(file, '\ufeffcode;note\r\n00123;x\r\n00124;"a;b"\r\n');
      const t = new CsvTable(file);
      const seen: string[][] = [];
      for await (const r of t.rows()) seen.push(r);
      expect(seen).toEqual([
        ['code', 'note'],
        ['00123', 'x'],
        ['00124', 'a;b'],
      ]);
      await t.rewrite((row, i) => (i === 0 ? [[2, 'name']] : i === 1 ? [[2, '=HYPERLINK("x")']] : undefined), 3);
      expect(readFileSync(file, 'utf8')).toBe('\ufeffcode;note;name\r\n00123;x;"\'=HYPERLINK(""x"")"\r\n00124;"a;b";\r\n');
      expect(readdirSync(dir)).toEqual(['a.csv']);

      const u = new CsvTable(file);
      for await (const r of u.rows()) void r;
      // A person saves the file between enrich's read and its write.
      writeFileSync(file, 'code;note\r\n99999;typed meanwhile\r\n');
      await expect(u.rewrite(() => [[1, 'ours']], 2)).rejects.toThrow(
        /file: .*a\.csv was changed on disk while enrich ran; it was not overwritten/,
      );
      expect(readFileSync(file, 'utf8')).toBe('code;note\r\n99999;typed meanwhile\r\n');
      expect(readdirSync(dir)).toEqual(['a.csv']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('XLSX table', () => {
  it('reads numbers unformatted and formulas as results; writes text that stays text', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'xlsx-table-'));
    try {
      const path = join(dir, 'a.xlsx');
      const wb = new ExcelJS.Workbook();
      const ws = wb.addWorksheet('Firms');
      ws.addRow(['registry code', 'n']);
      ws.addRow(['10137319', 5]);
      ws.addRow([10137319, { formula: '1+1', result: 2 }]);
      wb.addWorksheet('Other').addRow(['keep me']);
      await wb.xlsx.writeFile(path);

      const t = new XlsxTable(path, { sheet: 'Firms' });
      expect(await t.read()).toEqual({
        header: ['registry code', 'n'],
        rows: [
          ['10137319', '5'],
          ['10137319', '2'],
        ],
      });
      await t.write(tricky.map((value, i) => ({ row: i + 1, col: 2, value })));
      await t.flush();

      const back = new ExcelJS.Workbook();
      await back.xlsx.readFile(path);
      const col = tricky.map((_, i) => back.getWorksheet('Firms')!.getCell(i + 2, 3).value);
      expect(col).toEqual(tricky);
      expect(back.getWorksheet('Other')!.getCell(1, 1).value).toBe('keep me');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('Google Sheets table against the stand-in', () => {
  let standin: SheetsStandin;
  beforeAll(async () => {
    standin = await startSheetsStandin();
  });
  afterAll(() => standin.close());

  it('USER_ENTERED turns "=1+1" into 2 and "00123" into 123; the adapter writes RAW and keeps them', async () => {
    standin.create('raw', [{ title: 'Data', rows: [['value']] }]);
    const auth = new OAuth2Client();
    auth.setCredentials({ access_token: standin.accessToken });
    const api = new sheets_v4.Sheets({ auth, rootUrl: standin.url });
    await api.spreadsheets.values.update({
      spreadsheetId: 'raw',
      range: 'Data!B2:B3',
      valueInputOption: 'USER_ENTERED',
      requestBody: { values: [['=1+1'], ['00123']] },
    });
    expect(standin.cell('raw', 'Data', 'B2')).toEqual({ v: 2, f: '=1+1' });
    expect(standin.cell('raw', 'Data', 'B3')).toEqual({ v: 123 });

    const t = new GoogleSheetTable({
      spreadsheetId: 'raw',
      sheet: 'Data',
      auth: { accessToken: standin.accessToken },
      rootUrl: standin.url,
    });
    await t.read();
    await t.write(tricky.map((value, i) => ({ row: i + 1, col: 0, value })));
    await t.flush();
    expect(tricky.map((_, i) => standin.cell('raw', 'Data', `A${i + 2}`))).toEqual(tricky.map((v) => ({ v })));
    expect(standin.calls.filter((c) => c.method === 'values.batchUpdate').map((c) => c.valueInputOption)).toEqual(['RAW']);
    // Read back unformatted: numbers come back as plain digits, text exactly as stored.
    const snap = await new GoogleSheetTable({
      spreadsheetId: 'raw',
      sheet: 'Data',
      auth: { accessToken: standin.accessToken },
      rootUrl: standin.url,
    }).read();
    expect(snap.rows.map((r) => r[0])).toEqual(tricky);
    expect(snap.rows.slice(0, 2).map((r) => r[1])).toEqual(['2', '123']);
  });

  it('batches many cells into one write and grows the grid in one structural call', async () => {
    standin.create('grow', [{ title: 'S', rows: [['name'], ['a'], ['b']], rowCount: 3, columnCount: 1 }]);
    const t = new GoogleSheetTable({ spreadsheetId: 'grow', sheet: 'S', auth: { accessToken: standin.accessToken }, rootUrl: standin.url });
    const before = standin.calls.length;
    await t.read();
    const cells = Array.from({ length: 50 }, (_, i) => [
      { row: i + 1, col: 1, value: `x${i}` },
      { row: i + 1, col: 2, value: `y${i}` },
    ]).flat();
    await t.write([
      { row: 0, col: 1, value: 'x' },
      { row: 0, col: 2, value: 'y' },
    ]);
    await t.write(cells);
    await t.flush();
    const made = standin.calls.slice(before).map((c) => c.method);
    expect(made).toEqual(['values.get', 'spreadsheets.get', 'spreadsheets.batchUpdate', 'values.batchUpdate']);
    const v = standin.values('grow', 'S');
    expect(v.length).toBe(51);
    expect(v[50]).toEqual(['', 'x49', 'y49']);
  });

  it('appends rows with INSERT_ROWS after the last row', async () => {
    standin.create('app', [{ title: 'Events', rows: [['event_id'], ['evt_1']], rowCount: 2, columnCount: 1 }]);
    const t = new GoogleSheetTable({
      spreadsheetId: 'app',
      sheet: 'Events',
      auth: { accessToken: standin.accessToken },
      rootUrl: standin.url,
    });
    await t.append([
      ['evt_2', 'x'],
      ['evt_3', 'y'],
    ]);
    expect(standin.values('app', 'Events')).toEqual([['event_id'], ['evt_1'], ['evt_2', 'x'], ['evt_3', 'y']]);
  });

  it('works with a service-account key (self-signed JWT, offline) and rejects a wrong token', async () => {
    standin.create('sa', [{ title: 'S', rows: [['h'], ['1']] }]);
    const dir = mkdtempSync(join(tmpdir(), 'sa-'));
    try {
      const keyFile = join(dir, 'key.json');
      writeFileSync(keyFile, JSON.stringify(standin.serviceAccountKey()));
      const t = new GoogleSheetTable({ spreadsheetId: 'sa', sheet: 'S', auth: { serviceAccountKeyFile: keyFile }, rootUrl: standin.url });
      expect((await t.read()).rows).toEqual([['1']]);
      const bad = new GoogleSheetTable({ spreadsheetId: 'sa', sheet: 'S', auth: { accessToken: 'nope' }, rootUrl: standin.url });
      await expect(bad.read()).rejects.toThrow(/401 UNAUTHENTICATED/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('Google quota: 429 RESOURCE_EXHAUSTED and back-off', () => {
  it('backs off, honours Retry-After and succeeds; the governor keeps under the per-minute quota', async () => {
    const standin = await startSheetsStandin({ writesPerMinute: 2, windowMs: 1500, retryAfterSeconds: 1 });
    try {
      standin.create('q', [{ title: 'S', rows: [['h']] }]);
      const sleeps: number[] = [];
      const clock = { now: () => Date.now(), sleep: (ms: number) => (sleeps.push(ms), new Promise<void>((r) => setTimeout(r, ms))) };
      const t = new GoogleSheetTable({
        spreadsheetId: 'q',
        sheet: 'S',
        auth: { accessToken: standin.accessToken },
        rootUrl: standin.url,
        backoffBaseMs: 50,
        random: () => 0,
        clock,
      });
      await t.read();
      for (let i = 1; i <= 4; i++) {
        await t.write([{ row: i, col: 0, value: `v${i}` }]);
        await t.flush();
      }
      expect(standin.values('q', 'S').map((r) => r[0])).toEqual(['h', 'v1', 'v2', 'v3', 'v4']);
      const rejected = standin.calls.filter((c) => c.status === 429);
      expect(rejected.length).toBeGreaterThan(0);
      expect(t.calls.retries).toBe(rejected.length);
      // Retry-After: 1 s wins over the 50 ms first back-off step.
      expect(sleeps.every((ms) => ms >= 1000)).toBe(true);

      // With the governor set to the stand-in's quota, no request is refused.
      const before = standin.calls.length;
      const sleeps2: number[] = [];
      const minute = {
        now: () => Date.now(),
        sleep: (ms: number) => (sleeps2.push(ms), new Promise<void>((r) => setTimeout(r, Math.min(ms, 1600)))),
      };
      const g = new GoogleSheetTable({
        spreadsheetId: 'q',
        sheet: 'S',
        auth: { accessToken: standin.accessToken },
        rootUrl: standin.url,
        writesPerMinute: 2,
        clock: minute,
      });
      await new Promise((r) => setTimeout(r, 1600));
      await g.write([{ row: 1, col: 1, value: 'a' }]);
      await g.flush();
      await g.write([{ row: 1, col: 1, value: 'b' }]);
      await g.flush();
      expect(standin.calls.slice(before).filter((c) => c.status === 429)).toEqual([]);
      expect(sleeps2).toEqual([]);
    } finally {
      await standin.close();
    }
  });

  it("answers 429 with Google's error body", async () => {
    const standin = await startSheetsStandin({ writesPerMinute: 0 });
    try {
      standin.create('z', [{ title: 'S' }]);
      const res = await fetch(`${standin.url}v4/spreadsheets/z/values/S!A1:append?valueInputOption=RAW`, {
        method: 'POST',
        headers: { authorization: `Bearer ${standin.accessToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ values: [['x']] }),
      });
      expect(res.status).toBe(429);
      const body = (await res.json()) as { error: { code: number; status: string; message: string; details: { reason: string }[] } };
      expect(body.error.code).toBe(429);
      expect(body.error.status).toBe('RESOURCE_EXHAUSTED');
      expect(body.error.message).toMatch(/Quota exceeded for quota metric 'Write requests'/);
      expect(body.error.details[0]!.reason).toBe('RATE_LIMIT_EXCEEDED');
    } finally {
      await standin.close();
    }
  });
});
