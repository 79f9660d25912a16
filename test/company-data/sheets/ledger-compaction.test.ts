/**
 * Compaction of the events ledger: a history of 10,000 events is rewritten to what is still needed,
 * each event stays in the sheet exactly once across restarts, and a compaction that crashed before
 * its rename (its temp file left behind) loses nothing.
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { describe, expect, it } from 'vitest';
import { CsvTable } from '../../../packages/company-data/src/sheets/csv-table';
import { EventLedger, LEDGER_COMPACT_ABOVE_BYTES } from '../../../packages/company-data/src/sheets/event-ledger';
import { EVENT_COLUMNS, EventSheetWriter, eventRecords } from '../../../packages/company-data/src/sheets/events-to-rows';
import { MemoryTable } from '../../../packages/company-data/src/sheets/table';
import { tempDirs } from '../../support/temp-dirs';

const N = 10_000;

const tempDir = tempDirs();

function change(n: number) {
  return {
    id: `evt_${n}`,
    type: 'monitoring.change',
    created_at: '2025-01-02T07:00:00.000Z',
    data: {
      company: { registry_code: String(10_000_000 + n), name: `Firm ${n} OÜ` },
      lists: [{ id: 'lst_a1', name: 'Customers', external_ref: `crm-${n}` }],
      category: 'tax',
      kind: 'tax_debt',
      tone: 'bad',
      details: { old: 0, new: 1200 + n },
      detected_at: '2025-01-02T06:55:00.000Z',
    },
  };
}

const rowOf = (n: number) => {
  const rec = eventRecords(change(n) as never)[0]!;
  return EVENT_COLUMNS.map((c) => rec[c] ?? '');
};

/** A sheet with events 1..n and the ledger a writer would have left: begin, done and cursor per event. */
function history(dir: string, n: number, extraLedger = '') {
  const sheet = join(dir, 'events.csv');
  const ledger = join(dir, 'events.jsonl');
  const rows: string[][] = [[...EVENT_COLUMNS]];
  const lines: string[] = [];
  for (let i = 1; i <= n; i++) {
    const row = rowOf(i);
    rows.push(row);
    lines.push(
      JSON.stringify({ t: 'begin', id: `evt_${i}`, rows: [row] }),
      JSON.stringify({ t: 'done', id: `evt_${i}` }),
      JSON.stringify({ t: 'cursor', after: `evt_${i}` }),
    );
  }
  writeFileSync(sheet, stringify(rows));
  writeFileSync(ledger, lines.join('\n') + '\n' + extraLedger);
  return { sheet, ledger };
}

const sheetIds = (file: string) => (parse(readFileSync(file, 'utf8')) as string[][]).slice(1).map((r) => r[0]!);

describe('events ledger compaction', () => {
  it('10,000 events: compacted on open, exactly once across a restart, no regrowth', async () => {
    const dir = tempDir('ledger-compact-');
    // evt_10001 was begun (rows in the ledger) but the crash came before the append.
    const pending = JSON.stringify({ t: 'begin', id: `evt_${N + 1}`, rows: [rowOf(N + 1)] }) + '\n';
    const { sheet, ledger } = history(dir, N, pending);
    const bytes0 = statSync(ledger).size;
    expect(bytes0).toBeGreaterThan(LEDGER_COMPACT_ABOVE_BYTES);

    // The default size limit; a window smaller than the default, so most ids rely on the sheet.
    const opts = { ledgerPath: ledger, keepDone: 2000 };
    const w1 = new EventSheetWriter({ table: new CsvTable(sheet), ...opts });
    await w1.open();
    expect(w1.compactions).toHaveLength(1);
    expect(w1.compactions[0]).toMatchObject({ bytesBefore: bytes0, dropped: N - 2000 });
    expect(w1.compactions[0]!.bytesAfter).toBeLessThan(150_000);
    // The pending event survived compaction and was settled from its rows; ids older than the
    // window are not recorded again (the sheet holds them).
    expect(w1.stats.reconciled).toBe(1);
    expect(w1.ledger.cursor).toBe(`evt_${N}`);
    expect(w1.ledger.done.has('evt_1')).toBe(false);
    expect(w1.ledger.done.has(`evt_${N}`)).toBe(true);
    for (const n of [1, 5000, N - 1, N + 1]) expect(await w1.accept(change(n) as never)).toBe('duplicate');
    expect(await w1.accept(change(N + 2) as never)).toBe('appended');
    await w1.close();
    const afterRun = statSync(ledger).size;

    // Restart: nothing to compact, nothing re-recorded, every event still once.
    const w2 = new EventSheetWriter({ table: new CsvTable(sheet), ...opts });
    await w2.open();
    expect(w2.compactions).toHaveLength(0);
    expect(w2.stats.reconciled).toBe(0);
    for (const n of [1, 2, 7999, 8001, N, N + 1, N + 2]) expect(await w2.accept(change(n) as never)).toBe('duplicate');
    expect(await w2.accept(change(N + 3) as never)).toBe('appended');
    await w2.close();
    expect(statSync(ledger).size - afterRun).toBeLessThan(2000);

    const ids = sheetIds(sheet);
    expect(ids).toHaveLength(N + 3);
    expect(new Set(ids).size).toBe(N + 3);
    expect(ids.slice(-3)).toEqual([`evt_${N + 1}`, `evt_${N + 2}`, `evt_${N + 3}`]);
  }, 60_000);

  it('with the default window (50,000) all 10,000 ids stay; only rows and old cursors go', async () => {
    const dir = tempDir('ledger-default-');
    const { ledger } = history(dir, N);
    const l = new EventLedger(ledger);
    const r = l.compact();
    expect(r.dropped).toBe(0);
    const back = new EventLedger(ledger);
    expect(back.done.size).toBe(N);
    expect(back.compacted).toBe(false);
    expect(back.cursor).toBe(`evt_${N}`);
    expect(back.pending.size).toBe(0);
    expect(statSync(ledger).size).toBe(r.bytesAfter);
    expect(r.bytesAfter).toBeLessThan(r.bytesBefore / 10);
  });

  it('a compaction that crashed before its rename (temp file left) loses nothing', async () => {
    const dir = tempDir('ledger-crash-');
    const { sheet, ledger } = history(dir, N);
    const original = readFileSync(ledger, 'utf8');
    // What a killed compaction leaves: the ledger untouched and a half-written temp file beside it
    // (named as writeFileAtomic names it, by the pid of the process that died).
    const temp = join(dir, '.events.jsonl.999999.tmp');
    writeFileSync(temp, '{"t":"compacted","at":"2025-01-01T00:00:00.000Z","dropped":8000}\n{"t":"done","id":"evt_80');
    expect(readFileSync(ledger, 'utf8')).toBe(original);

    const opts = { ledgerPath: ledger, keepDone: 2000 };
    const w = new EventSheetWriter({ table: new CsvTable(sheet), ...opts });
    await w.open();
    expect(existsSync(temp)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    expect(w.compactions).toHaveLength(1);
    expect(w.stats.reconciled).toBe(0);
    for (const n of [1, 4321, N]) expect(await w.accept(change(n) as never)).toBe('duplicate');
    expect(await w.accept(change(N + 1) as never)).toBe('appended');
    await w.close();
    expect(w.ledger.cursor).toBe(`evt_${N}`);
    const ids = sheetIds(sheet);
    expect(ids).toHaveLength(N + 1);
    expect(new Set(ids).size).toBe(N + 1);
  }, 60_000);

  it('a receiver that runs for long compacts while running and still stores each event once', async () => {
    const dir = tempDir('ledger-run-');
    const table = new MemoryTable();
    const opts = { table, ledgerPath: join(dir, 'events.jsonl'), compactAboveBytes: 40_000, keepDone: 50 };
    const w = new EventSheetWriter(opts);
    await w.open();
    for (let n = 1; n <= 300; n++) expect(await w.accept(change(n) as never)).toBe('appended');
    expect(w.compactions.length).toBeGreaterThan(1);
    expect(w.compactions.every((c) => c.bytesBefore > 40_000)).toBe(true);
    expect(w.ledger.size).toBeLessThanOrEqual(40_000);
    for (const n of [1, 100, 300]) expect(await w.accept(change(n) as never)).toBe('duplicate');
    await w.close();
    const again = new EventSheetWriter(opts);
    await again.open();
    for (let n = 1; n <= 300; n++) expect(await again.accept(change(n) as never)).toBe('duplicate');
    await again.close();
    const ids = table.grid.slice(1).map((r) => r[0]);
    expect(ids).toHaveLength(300);
    expect(new Set(ids).size).toBe(300);
  });

  it('a torn last line does not swallow the next entry', () => {
    const dir = tempDir('ledger-torn-');
    const path = join(dir, 'l.jsonl');
    writeFileSync(path, '{"t":"done","id":"evt_1"}\n{"t":"begin","id":"evt_2","ro');
    const l = new EventLedger(path);
    l.finish('evt_3');
    l.close();
    expect([...new EventLedger(path).done]).toEqual(['evt_1', 'evt_3']);
  });
});
