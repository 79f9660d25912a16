/**
 * Any size within Google's limits, over real HTTP against the Sheets stand-in: saves and appends split
 * into requests under 2 MB (sizes counted at the stand-in), several hundred thousand cells with no stack
 * limit, a 30,000-row enrich within the per-minute quotas, and a save refused part way whose resume
 * writes everything without paying twice.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompanyDataClient } from '../../../packages/company-data/src/index';
import { startSandbox } from '../../../packages/company-data/src/sandbox';
import { enrichTable } from '../../../packages/company-data/src/sheets/enrich';
import { GoogleSheetTable, MAX_REQUEST_BYTES, type GoogleSheetTableOptions } from '../../../packages/company-data/src/sheets/google-table';
import type { CellWrite } from '../../../packages/company-data/src/sheets/table';
import { startSheetsStandin, type SheetsStandin } from '../../support/sheets-standin';

let standin: SheetsStandin;
let dir: string;
beforeAll(async () => {
  standin = await startSheetsStandin();
  dir = mkdtempSync(join(tmpdir(), 'sheet-size-'));
});
afterAll(async () => {
  await standin.close();
  rmSync(dir, { recursive: true, force: true });
});

const table = (id: string, s: SheetsStandin = standin, more: Partial<GoogleSheetTableOptions> = {}) =>
  new GoogleSheetTable({ spreadsheetId: id, sheet: 'S', auth: { accessToken: s.accessToken }, rootUrl: s.url, ...more });

/**
 * Takes the account's edit access away (view only) once this many saves of the spreadsheet went
 * through, as a colleague would mid-run; undo() gives it back.
 */
function refuseSavesAfter(s: SheetsStandin, id: string, saves: number): { undo(): void } {
  let done = 0;
  s.access.onWrite = (sheet, method) => {
    if (sheet === id && method === 'values.batchUpdate' && ++done === saves) s.access.setRole(id, 'oauth-user', 'reader');
  };
  return {
    undo: () => {
      s.access.onWrite = undefined;
      s.access.setRole(id, 'oauth-user', 'writer');
    },
  };
}

const writesOf = (s: SheetsStandin, from: number, method = 'values.batchUpdate') =>
  s.calls.slice(from).filter((c) => c.method === method && c.status === 200);

describe('saves split under 2 MB', () => {
  it('400,000 cells (40,000 rows × 10) go out in requests each under 2 MB, every cell written, no stack overflow', async () => {
    const rows = 40_000;
    standin.create('big', [{ title: 'S', rows: [['key']], rowCount: rows + 1, columnCount: 12 }]);
    const t = table('big');
    await t.read();
    const cells: CellWrite[] = [];
    // Multi-byte text, so bytes and characters differ (the limit is in bytes as sent).
    for (let r = 1; r <= rows; r++) for (let c = 1; c <= 10; c++) cells.push({ row: r, col: c, value: `Põltsamaa ${r}/${c} õüäö` });
    const before = standin.calls.length;
    await t.write(cells);
    await t.flush();
    const sent = writesOf(standin, before);
    const total = sent.reduce((n, c) => n + c.bytes, 0);
    expect(total).toBeGreaterThan(3 * MAX_REQUEST_BYTES);
    expect(sent.every((c) => c.bytes < MAX_REQUEST_BYTES)).toBe(true);
    // Packed full: no more requests than the bytes need, plus one for the remainder.
    expect(sent.length).toBe(Math.ceil(total / MAX_REQUEST_BYTES));
    const v = standin.values('big', 'S');
    expect(v.length).toBe(rows + 1);
    expect(v[1]).toEqual(['', ...Array.from({ length: 10 }, (_, c) => `Põltsamaa 1/${c + 1} õüäö`)]);
    expect(v[rows]![10]).toBe(`Põltsamaa ${rows}/10 õüäö`);
    // Nothing left pending: another flush sends nothing.
    await t.flush();
    expect(writesOf(standin, before).length).toBe(sent.length);
  });

  it('a row too large for one request is cut between its cells; a lone cell over the budget still goes whole', async () => {
    standin.create('wide', [{ title: 'S', rows: [['key']], rowCount: 3, columnCount: 30 }]);
    const t = table('wide', standin, { maxRequestBytes: 10_000 });
    await t.read();
    const before = standin.calls.length;
    await t.write(Array.from({ length: 20 }, (_, c) => ({ row: 1, col: c, value: `${c}`.padEnd(1000, 'x') })));
    await t.write([{ row: 2, col: 0, value: 'y'.repeat(12_000) }]);
    await t.flush();
    const sent = writesOf(standin, before);
    // 20 kB of row 1 in pieces under 10 kB, then the 12 kB cell alone.
    expect(sent.length).toBe(4);
    expect(sent.slice(0, 3).every((c) => c.bytes <= 10_000)).toBe(true);
    expect(sent[3]!.bytes).toBeGreaterThan(12_000);
    const v = standin.values('wide', 'S');
    expect(v[1]!.map((x) => String(x).slice(0, 2))).toEqual(Array.from({ length: 20 }, (_, c) => `${c}`.padEnd(2, 'x')));
    expect(v[2]![0]).toBe('y'.repeat(12_000));
  });

  it('appends are split under the request size too; the rows land in order', async () => {
    standin.create('app', [{ title: 'S', rows: [['id', 'text']], rowCount: 1, columnCount: 2 }]);
    const t = table('app', standin, { maxRequestBytes: 50_000 });
    const rows = Array.from({ length: 3000 }, (_, i) => [`evt_${i}`, 'ä'.repeat(40)]);
    const before = standin.calls.length;
    await t.append(rows);
    const sent = writesOf(standin, before, 'values.append');
    expect(sent.length).toBeGreaterThan(3);
    expect(sent.every((c) => c.bytes <= 50_000)).toBe(true);
    expect(standin.values('app', 'S').map((r) => r[0])).toEqual(['id', ...rows.map((r) => r[0])]);
  });
  it('a flush refused part way keeps exactly the unsent cells pending, under anything written since', async () => {
    const cells = Array.from({ length: 2000 }, (_, i) => ({ row: i + 1, col: 1, value: `first ${i}` }));
    // The same save with nothing refused, for its size.
    standin.create('whole', [{ title: 'S', rows: [['key']], rowCount: 2001, columnCount: 3 }]);
    const w = table('whole', standin, { maxRequestBytes: 5_000 });
    await w.read();
    await w.write(cells);
    let before = standin.calls.length;
    await w.flush();
    const whole = writesOf(standin, before);
    const wholeBytes = whole.reduce((n, c) => n + c.bytes, 0);
    expect(whole.length).toBeGreaterThan(3);

    standin.create('part', [{ title: 'S', rows: [['key']], rowCount: 2001, columnCount: 3 }]);
    const t = table('part', standin, { maxRequestBytes: 5_000 });
    await t.read();
    await t.write(cells);
    before = standin.calls.length;
    const refusal = refuseSavesAfter(standin, 'part', 2);
    try {
      await expect(t.flush()).rejects.toThrow(/403 PERMISSION_DENIED/);
    } finally {
      refusal.undo();
    }
    // Parts go in row order: the first two are written, nothing after them.
    const written = standin.values('part', 'S').map((r) => r[1] ?? '');
    const sentRows = written.filter((x) => x !== '').length;
    expect(sentRows).toBeGreaterThan(0);
    expect(sentRows).toBeLessThan(2000);
    expect(written.slice(1, sentRows + 1)).toEqual(cells.slice(0, sentRows).map((c) => c.value));
    // A newer value for a cell not sent yet wins over the pending one.
    await t.write([{ row: 2000, col: 1, value: 'first 1999 (newer)' }]);
    await t.flush();
    const v = standin.values('part', 'S');
    expect(v.slice(1, 2000).map((r) => r[1])).toEqual(cells.slice(0, 1999).map((c) => c.value));
    expect(v[2000]![1]).toBe('first 1999 (newer)');
    // What was written once is not sent again: the successful requests carry the whole save's bytes (plus the newer value's 8).
    const ok = writesOf(standin, before);
    expect(ok.reduce((n, c) => n + c.bytes, 0)).toBeLessThanOrEqual(wholeBytes + 8 + (ok.length - whole.length) * 120);
  });
});

describe('large enrich runs against the sandbox', () => {
  type Sb = Awaited<ReturnType<typeof startSandbox>>;
  let sb: Sb;
  let client: CompanyDataClient;
  let codes: string[];
  beforeAll(async () => {
    sb = await startSandbox({ port: 0, seed: 1, companies: 2500 });
    client = new CompanyDataClient({ baseUrl: sb.url, apiKey: sb.apiKey });
    codes = sb.dataset.companies.slice(0, 2000).map((c) => c.code);
  });
  afterAll(async () => {
    await client.close();
    await sb.close();
  });
  const billed = async () => ((await client.reference.usage()).data as { billed_lookup_queries?: number }).billed_lookup_queries ?? 0;
  /** n rows cycling over `distinct` codes, every fifth typed with spaces around it. */
  const sheetRows = (n: number, distinct: number) => [
    ['registry code', 'owner'],
    ...Array.from({ length: n }, (_, i) => {
      const c = codes[(i * 7919) % distinct]!;
      return [i % 5 === 3 ? ` ${c} ` : c, `owner ${i % 50}`];
    }),
  ];

  it("30,000 rows over 2,000 distinct codes, within Google's 60 reads and 60 writes a minute: no 429, every request under 2 MB", async () => {
    // Google's limits per window, with the window (the stand-in's and the client's minute) 30 times shorter.
    const fast = await startSheetsStandin({ readsPerMinute: 60, writesPerMinute: 60, windowMs: 2000 });
    try {
      const t0 = Date.now();
      const clock = { now: () => t0 + (Date.now() - t0) * 30, sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, ms / 30)) };
      fast.create('leads', [{ title: 'S', rows: sheetRows(30_000, 2000), rowCount: 30_001, columnCount: 10 }]);
      const b0 = await billed();
      const report = await enrichTable({ table: table('leads', fast, { clock }), client, stateDir: join(dir, 's30k') });
      expect(report.errors).toBe(0);
      expect(report.billedQueries).toBe(2000);
      expect((await billed()) - b0).toBe(2000);
      expect(fast.calls.filter((c) => c.status === 429)).toEqual([]);
      expect(fast.calls.every((c) => c.bytes < MAX_REQUEST_BYTES)).toBe(true);
      const v = fast.values('leads', 'S');
      const status = v[0]!.indexOf('company_data_status');
      expect(v.slice(1).filter((r) => r[status] === 'matched').length).toBe(30_000);

      // Small requests (50 kB) need more than a window's 60 writes: the client spaces them, still no 429.
      fast.create('small', [{ title: 'S', rows: sheetRows(30_000, 2000), rowCount: 30_001, columnCount: 10 }]);
      const before = fast.calls.length;
      await enrichTable({ table: table('small', fast, { clock, maxRequestBytes: 50_000 }), client, stateDir: join(dir, 's30k-small') });
      const calls = fast.calls.slice(before);
      expect(calls.filter((c) => c.kind === 'write').length).toBeGreaterThan(60);
      expect(calls.filter((c) => c.status === 429)).toEqual([]);
      expect(
        fast
          .values('small', 'S')
          .slice(1)
          .filter((r) => r[status] === 'matched').length,
      ).toBe(30_000);
    } finally {
      await fast.close();
    }
  });

  it('a save refused part way: the parts before it are written, the run fails; the resume writes every row and bills nothing again', async () => {
    // The user's case: 20,000 rows over 45 codes, about 4 MB to save.
    standin.create('refused', [{ title: 'S', rows: sheetRows(20_000, 45), rowCount: 20_001, columnCount: 12 }]);
    const state = join(dir, 's-refused');
    const b0 = await billed();
    const before = standin.calls.length;
    const refusal = refuseSavesAfter(standin, 'refused', 1);
    try {
      await expect(enrichTable({ table: table('refused'), client, stateDir: state })).rejects.toThrow(/403 PERMISSION_DENIED/);
    } finally {
      refusal.undo();
    }
    expect((await billed()) - b0).toBe(45);
    expect(writesOf(standin, before).length).toBe(1);
    const v = standin.values('refused', 'S');
    const status = v[0]!.indexOf('company_data_status');
    const written = v.slice(1).filter((r) => r[status] === 'matched').length;
    expect(written).toBeGreaterThan(0);
    expect(written).toBeLessThan(20_000);

    const again = await enrichTable({ table: table('refused'), client, stateDir: state });
    expect(again.billedQueries).toBe(0);
    expect((await billed()) - b0).toBe(45);
    const after = standin.values('refused', 'S');
    expect(after.slice(1).filter((r) => r[status] === 'matched').length).toBe(20_000);
    expect(after.slice(1, written + 1)).toEqual(v.slice(1, written + 1));
  });
});
