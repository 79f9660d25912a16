/**
 * The sheet lease's algorithm (core sheets/lease) over an in-memory spreadsheet that keeps the port's
 * guarantees (one create per title, delete and renew by id, each sheet a fresh id), with a hand-moved clock:
 * who takes it, when it is taken over, when a holder knows it lost it. No timers, no timing.
 */
import { describe, expect, it } from 'vitest';
import { guardedTable } from '../../../packages/core/sheets/lease/guarded-table';
import { takeSheetLease, type SheetLeaseOptions } from '../../../packages/core/sheets/lease/lease';
import { withSheetLease } from '../../../packages/core/sheets/lease/lease-locks';
import type { HeldLock } from '../../../packages/core/sheets/ports';
import {
  leaseCells,
  leaseSheetName,
  readLeaseCells,
  type LeaseRecord,
  type LeaseSheets,
  type LeaseSlot,
} from '../../../packages/core/sheets/lease/port';
import { MemoryTable } from '../../../packages/core/sheets/table/memory-table';

/** A spreadsheet's sheets in memory; every call yields first, so calls started together interleave. */
class MemorySheets implements LeaseSheets {
  readonly sheets = new Map<string, { title: string; cells: string[][] }>();
  private next = 1;
  /** Runs inside renew, after its write landed (a slow answer). */
  onRenewed?: () => void;

  async create(name: string, record: LeaseRecord): Promise<string | undefined> {
    await Promise.resolve();
    if ([...this.sheets.values()].some((s) => s.title.toLowerCase() === name.toLowerCase())) return undefined;
    const id = String(this.next++);
    this.sheets.set(id, { title: name, cells: leaseCells(record) });
    return id;
  }
  async read(name: string): Promise<LeaseSlot | undefined> {
    await Promise.resolve();
    const hit = [...this.sheets.entries()].find(([, s]) => s.title === name);
    return hit && { id: hit[0], record: readLeaseCells(hit[1].cells) };
  }
  async renew(id: string, record: LeaseRecord): Promise<boolean> {
    await Promise.resolve();
    const s = this.sheets.get(id);
    if (!s) return false;
    s.cells = leaseCells(record);
    this.onRenewed?.();
    return true;
  }
  async remove(id: string): Promise<boolean> {
    await Promise.resolve();
    return this.sheets.delete(id);
  }
  /** A person or another program puts a sheet of this title (a fresh id). */
  put(name: string, cells: string[][]): string {
    const id = String(this.next++);
    this.sheets.set(id, { title: name, cells });
    return id;
  }
}

const T0 = 1_800_000_000_000;
function clockAt(t = T0) {
  const c = { t, now: () => c.t, sleep: async () => {} };
  return c;
}
const opts = (clock: ReturnType<typeof clockAt>, who: string): SheetLeaseOptions => ({ clock, who, background: false });
const NAME = leaseSheetName('Leads');

describe('taking the lease', () => {
  it('of contenders starting together on a free sheet, one holds it; the others are told who does', async () => {
    const m = new MemorySheets();
    const clock = clockAt();
    const got = await Promise.allSettled(['a', 'b', 'c'].map((who) => takeSheetLease(m, 'Leads', 'sheet "Leads"', opts(clock, who))));
    expect(got.filter((g) => g.status === 'fulfilled')).toHaveLength(1);
    for (const g of got.filter((x) => x.status === 'rejected'))
      expect(((g as PromiseRejectedResult).reason as Error).message).toMatch(/^lock: sheet "Leads" is being written by [abc] \(since/);
    expect([...m.sheets.values()].map((s) => s.title)).toEqual([NAME]);
  });

  it('a lease past its end by less than the clocks may differ is still held; past that, contenders race and one takes it over', async () => {
    const m = new MemorySheets();
    const clock = clockAt();
    const crashed = await takeSheetLease(m, 'Leads', 'Leads', opts(clock, 'crashed'));
    expect(crashed.lost()).toBeUndefined();
    clock.t = T0 + 120_000 + 30_000; // its end plus the skew allowed: not yet
    await expect(takeSheetLease(m, 'Leads', 'Leads', opts(clock, 'early'))).rejects.toThrow(/being written by crashed/);
    clock.t += 1;
    const got = await Promise.allSettled(['x', 'y', 'z'].map((who) => takeSheetLease(m, 'Leads', 'Leads', opts(clock, who))));
    const held = got.filter((g) => g.status === 'fulfilled');
    expect(held).toHaveLength(1);
    const holder = readLeaseCells([...m.sheets.values()][0]!.cells)!;
    expect(['x', 'y', 'z']).toContain(holder.who);
    expect(m.sheets.size).toBe(1);
    // The old holder, back: its sheet is gone, so it knows it lost, and it never deletes the new holder's sheet.
    await expect(crashed.check()).rejects.toThrow(/lock: the run stopped writing Leads because its lock .* was lost/);
    await crashed.release();
    expect(m.sheets.size).toBe(1);
  });

  it('cells a person edited are not taken for a lease: refused, naming the sheet to delete', async () => {
    const m = new MemorySheets();
    m.put(NAME, [['hello']]);
    await expect(takeSheetLease(m, 'Leads', 'Leads', opts(clockAt(), 'a'))).rejects.toThrow(`delete the sheet "${NAME}"`);
  });

  it('its own lease from an attempt whose answer was lost is its own', async () => {
    const m = new MemorySheets();
    let first = true;
    const create = m.create.bind(m);
    // The sheet is made but the answer is lost; the retry finds the title taken.
    m.create = async (name, record) => {
      const id = await create(name, record);
      if (first) {
        first = false;
        return await create(name, record);
      }
      return id;
    };
    const lease = await takeSheetLease(m, 'Leads', 'Leads', opts(clockAt(), 'a'));
    expect(lease.lost()).toBeUndefined();
    await lease.release();
    expect(m.sheets.size).toBe(0);
  });
});

describe('holding the lease', () => {
  it('renews when due; a holder not renewed in time stops before its lease ends', async () => {
    const m = new MemorySheets();
    const clock = clockAt();
    const lease = await takeSheetLease(m, 'Leads', 'Leads', { ...opts(clock, 'a'), renewEveryMs: 30_000 });
    clock.t += 30_000;
    await lease.check();
    expect(readLeaseCells([...m.sheets.values()][0]!.cells)!.expiresAt).toBe(clock.t + 120_000);
    // No check for longer than the lease minus the margin: lost, though nobody took it.
    clock.t += 120_000 - 30_000;
    expect(lease.lost()?.message).toMatch(/could not be renewed in time/);
    await expect(lease.check()).rejects.toThrow(/could not be renewed in time/);
  });

  it('a renewal whose answer comes after the lease it renews ended does not count', async () => {
    const m = new MemorySheets();
    const clock = clockAt();
    const lease = await takeSheetLease(m, 'Leads', 'Leads', { ...opts(clock, 'a'), renewEveryMs: 30_000, stopBeforeMs: 0 });
    clock.t += 100_000;
    m.onRenewed = () => (clock.t += 20_001);
    await expect(lease.check()).rejects.toThrow(/its renewal came after it ended/);
  });

  it('the writer sees its table refuse writes once the lease is lost (its sheet deleted), and the rows are untouched', async () => {
    const m = new MemorySheets();
    const clock = clockAt();
    const locks = withSheetLease(undefined, { ...opts(clock, 'a'), renewEveryMs: 0 });
    const inner = new MemoryTable([['key'], ['1']]);
    const table = Object.assign(inner, { leaseTarget: async () => ({ sheets: m, sheetTitle: 'Leads' }) });
    const lock = await locks.acquire(table);
    const guarded = guardedTable(table, lock);
    await guarded.write([{ row: 1, col: 1, value: 'ok' }]);
    m.sheets.clear();
    await expect(guarded.write([{ row: 1, col: 1, value: 'late' }])).rejects.toThrow(/its lock sheet was deleted or taken over/);
    expect(lock.lost?.()).toBeInstanceOf(Error);
    expect((await inner.read()).rows[0]).toEqual(['1', 'ok']);
    await lock.release();
  });

  it('a door that waits its turn (Write Events to Rows) takes the lease once the holder lets go; without a wait it is refused at once', async () => {
    const m = new MemorySheets();
    // A clock whose sleep moves time: the holder lets go after the waiter's second look.
    let looks = 0;
    let held: HeldLock | undefined;
    const clock = {
      t: T0,
      now: () => clock.t,
      sleep: async (ms: number) => {
        clock.t += ms;
        if (++looks === 2) await held!.release();
      },
    };
    const o = (who: string): SheetLeaseOptions => ({ clock, who, background: false });
    const table = () => Object.assign(new MemoryTable([['key']]), { leaseTarget: async () => ({ sheets: m, sheetTitle: 'Leads' }) });
    held = await withSheetLease(undefined, o('worker 1')).acquire(table());
    await expect(withSheetLease(undefined, o('worker 2')).acquire(table())).rejects.toThrow(/being written by worker 1/);
    const lock = await withSheetLease(undefined, o('worker 2'), { maxMs: 60_000 }).acquire(table());
    expect(looks).toBe(2);
    expect(readLeaseCells([...m.sheets.values()][0]!.cells)?.who).toBe('worker 2');
    await lock.release();
  });

  it("waiting ends with the holder's refusal when the wait is over, or at once on Stop", async () => {
    const m = new MemorySheets();
    const clock = { t: T0, now: () => clock.t, sleep: async (ms: number) => void (clock.t += ms) };
    const o = (who: string): SheetLeaseOptions => ({ clock, who, background: false });
    const table = () => Object.assign(new MemoryTable([['key']]), { leaseTarget: async () => ({ sheets: m, sheetTitle: 'Leads' }) });
    const held = await withSheetLease(undefined, { ...o('worker 1'), ttlMs: 3_600_000 }).acquire(table());
    const start = clock.t;
    await expect(withSheetLease(undefined, o('worker 2'), { maxMs: 30_000 }).acquire(table())).rejects.toThrow(/being written by worker 1/);
    expect(clock.t - start).toBeGreaterThan(20_000);
    expect(clock.t - start).toBeLessThanOrEqual(30_000);
    const stop = new AbortController();
    stop.abort();
    const before = clock.t;
    await expect(withSheetLease(undefined, o('worker 3'), { maxMs: 30_000, signal: stop.signal }).acquire(table())).rejects.toThrow(
      /being written by worker 1/,
    );
    expect(clock.t).toBe(before);
    await held.release();
  });
});
