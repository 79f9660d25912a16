/**
 * The core's events writer taking events in batches (acceptMany), on its ports alone: a table in memory that
 * counts appends and can refuse a value or fail in the middle of an append, and a ledger in memory that stays
 * across writers (what a crash leaves). Each event is in the sheet once; one batch is one append.
 */
import { describe, expect, it } from 'vitest';
import {
  EventRowsWriter,
  EVENTS_PER_BATCH,
  MemoryTable,
  type EventLedgerStore,
  type LedgerCompaction,
  type LedgerRows,
} from '@company-data/core/sheets';

/** A durable ledger in memory, without beginMany (the port's optional batch write): the writer begins each. */
class MemoryLedger implements EventLedgerStore {
  readonly done = new Set<string>();
  readonly pending = new Map<string, LedgerRows>();
  cursor: string | undefined;
  compacted = false;
  readonly size = 0;
  /** Durable writes made, by kind. */
  readonly writes = { begin: 0, finish: 0 };
  load() {}
  begin(id: string, rows: LedgerRows) {
    this.writes.begin++;
    this.pending.set(id, rows);
  }
  finish(id: string) {
    this.finishMany([id]);
  }
  finishMany(ids: readonly string[]) {
    this.writes.finish++;
    for (const id of ids) {
      this.pending.delete(id);
      this.done.add(id);
    }
  }
  setCursor(after: string) {
    this.cursor = after;
  }
  compact(): LedgerCompaction {
    return { bytesBefore: 0, bytesAfter: 0, dropped: 0 };
  }
  close() {}
}

/** The same with the batch write: one durable write of intent per batch. */
class BatchLedger extends MemoryLedger {
  beginMany(entries: readonly { id: string; rows: LedgerRows }[]) {
    this.writes.begin++;
    for (const { id, rows } of entries) this.pending.set(id, rows);
  }
}

/** Refuses (as Google's 400, nothing applied) an append holding a row with `refuse`; `landThenFail` rows of the next append land, then it fails. */
class FaultyTable extends MemoryTable {
  refuse: string | undefined;
  landThenFail: number | undefined;
  readonly appended: number[] = [];
  override async append(rows: readonly string[][]): Promise<void> {
    if (this.refuse && rows.some((r) => r.some((v) => v.includes(this.refuse!))))
      throw Object.assign(new Error('Google Sheets 400 INVALID_ARGUMENT: Invalid values[1][8]'), { status: 400 });
    if (this.landThenFail !== undefined) {
      const n = this.landThenFail;
      this.landThenFail = undefined;
      await super.append(rows.slice(0, n));
      throw new Error('Google Sheets no answer (timeout)');
    }
    this.appended.push(rows.length);
    await super.append(rows);
  }
}

const change = (n: number, extra: Record<string, unknown> = {}) => ({
  id: `evt_${n}`,
  type: 'monitoring.change',
  created_at: '2026-11-20T05:00:00Z',
  data: {
    company: { registry_code: String(10_000_000 + (n % 50)), name: `Firma ${n}` },
    category: 'court',
    kind: 'court_case',
    tone: 'bad',
    details: { n, ...extra },
    detected_at: '2026-11-20T05:00:00Z',
  },
});
const idsIn = (t: MemoryTable) => {
  const col = t.grid[0]!.indexOf('event_id');
  return t.grid.slice(1).map((r) => r[col]);
};
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('acceptMany', () => {
  it('1,200 events: one append and two ledger writes per batch of 500; again: all duplicates, nothing sent', async () => {
    const table = new FaultyTable();
    const ledger = new BatchLedger();
    const w = new EventRowsWriter({ table, ledger });
    await w.open();
    const events = range(1, 1200).map((n) => change(n));
    const outcomes = await w.acceptMany(events);
    expect(outcomes.every((o) => o === 'appended')).toBe(true);
    expect(table.appended).toEqual([EVENTS_PER_BATCH, EVENTS_PER_BATCH, 1200 - 2 * EVENTS_PER_BATCH]);
    expect(ledger.writes).toEqual({ begin: 3, finish: 3 });
    expect(idsIn(table)).toEqual(events.map((e) => e.id));
    expect(ledger.done.size).toBe(1200);
    expect(ledger.pending.size).toBe(0);

    // Redelivered, some twice in one call, and one on its own through accept, at the same time.
    const [again, single] = await Promise.all([w.acceptMany([...events.slice(0, 300), ...events.slice(0, 10)]), w.accept(events[5]!)]);
    expect(new Set(again)).toEqual(new Set(['duplicate']));
    expect(single).toBe('duplicate');
    expect(table.appended).toHaveLength(3);
    expect(w.stats).toMatchObject({ appended: 1200, duplicates: 311, rows: 1200 });
    await w.close();
  });

  it('a batch of every kind: refused, ignored, twice in the batch, unreadable, and one the sheet refuses (a stub row); the rest in a few appends', async () => {
    const table = new FaultyTable();
    table.refuse = 'VALUE-REFUSED';
    const ledger = new MemoryLedger();
    const problems: string[] = [];
    const w = new EventRowsWriter({ table, ledger, onProblem: (id, p) => problems.push(`${id}: ${p}`) });
    await w.open();
    const good = range(1, 200).map((n) => change(n));
    const poisoned = change(201, { note: 'VALUE-REFUSED' });
    const batch = [
      ...good.slice(0, 100),
      { id: '', type: 'monitoring.change' },
      { id: 'evt_test', type: 'webhook.test' },
      good[3]!,
      poisoned,
      { id: 'evt_bad', type: 'monitoring.change', data: { company: {} } },
      ...good.slice(100),
    ];
    const outcomes = await w.acceptMany(batch);
    expect(outcomes.slice(99, 106)).toEqual(['appended', 'refused', 'ignored', 'duplicate', 'appended', 'appended', 'appended']);
    // Every event with rows is in the sheet once, in order; the refused one as a stub naming it.
    expect(idsIn(table)).toEqual([...good.slice(0, 100), poisoned, { id: 'evt_bad' }, ...good.slice(100)].map((e) => e.id));
    const summary = table.grid[0]!.indexOf('summary');
    expect(table.grid.find((r) => r.includes('evt_201'))![summary]).toMatch(/^Not written in full/);
    expect(problems.some((p) => p.startsWith('evt_201: written as a stub row'))).toBe(true);
    expect(problems.some((p) => p.startsWith('evt_bad: written as one row holding the event as received'))).toBe(true);
    // Halved until the refused event was alone: a handful of appends, not one per event.
    expect(table.appended.length).toBeLessThanOrEqual(2 * Math.ceil(Math.log2(batch.length)) + 1);
    expect(w.stats).toMatchObject({ appended: 202, refused: 1, ignored: 1, duplicates: 1, stubbed: 1, unreadable: 1 });
    // Without beginMany the ledger records each intent; completion is one write per append.
    expect(ledger.writes.begin).toBe(202);
    expect(ledger.pending.size).toBe(0);
    await w.close();
  });

  it('killed in the middle of a batch (part of its rows landed): the next writer appends exactly the rest', async () => {
    const table = new FaultyTable();
    const ledger = new BatchLedger();
    const first = new EventRowsWriter({ table, ledger });
    await first.open();
    await first.acceptMany(range(1, 50).map((n) => change(n)));
    table.landThenFail = 120;
    await expect(first.acceptMany(range(51, 350).map((n) => change(n)))).rejects.toThrow(/no answer/);
    // The process dies here: its intent is durable, its completion never came.
    expect(ledger.pending.size).toBe(300);
    expect(idsIn(table)).toHaveLength(170);

    const next = new EventRowsWriter({ table, ledger });
    await next.open();
    expect(next.stats.reconciled).toBe(300);
    expect(table.appended.at(-1)).toBe(180);
    expect(idsIn(table)).toEqual(range(1, 350).map((n) => `evt_${n}`));
    expect(ledger.pending.size).toBe(0);
    // Redelivered after the restart: nothing more.
    expect(new Set(await next.acceptMany(range(1, 350).map((n) => change(n))))).toEqual(new Set(['duplicate']));
    expect(idsIn(table)).toHaveLength(350);
    await next.close();
  });
});
