import { describe, expect, it, vi } from 'vitest';
import { processedDataStore, TURN_ENTRY } from '../../../src/n8n/trigger/seen';
import { ProcessedDataTable } from './harness';

const KEY = 'wf-1:node-1';

describe("the model of n8n's processed-data store (test/n8n/trigger/harness.ts)", () => {
  it('loses an id when two updates of the row overlap, and refuses a second insert of it, as n8n 2.41.1 does', async () => {
    const table = new ProcessedDataTable();
    const h = table.helpers();
    await h.checkProcessedAndRecord(['evt_0'], 'node', { mode: 'entries' });
    const both = await Promise.all(['evt_1', 'evt_2'].map((id) => h.checkProcessedAndRecord([id], 'node', { mode: 'entries' })));
    expect(both.map((r) => r.new)).toEqual([['evt_1'], ['evt_2']]);
    expect(table.entries()).toHaveLength(2); // evt_0 and the later writer's id: one id lost

    const fresh = new ProcessedDataTable();
    const inserts = await Promise.allSettled(
      [1, 2].map(() => fresh.helpers().checkProcessedAndRecord(['evt_x'], 'node', { mode: 'entries' })),
    );
    expect(inserts.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
  });
});

/**
 * Several n8n processes (workers), each with its own processedDataStore(), checking events at once on
 * one database, every event delivered 1-3 times to random processes.
 */
async function burst(seed: number, { processes = 3, events = 120 } = {}) {
  const table = new ProcessedDataTable({ seed });
  const stores = Array.from({ length: processes }, () => processedDataStore());
  const warn = vi.fn();
  let r = seed;
  const rand = (n: number) => (r = (r * 48271) % 2147483647) % n;
  const calls: Array<Promise<{ id: string; fresh: boolean }>> = [];
  for (let e = 0; e < events; e++) {
    const id = `evt_${seed}_${e}`;
    const copies = 1 + rand(3);
    for (let c = 0; c < copies; c++) {
      const store = stores[rand(processes)]!;
      calls.push(store(table.helpers(), KEY, [id], warn).then((s) => ({ id, fresh: s.has(id) })));
    }
  }
  const results = await Promise.all(calls);
  return { table, results, warn };
}

describe('taking turns across processes', () => {
  it.each([1, 2, 3, 4, 5])('a burst over 3 processes (seed %i): every event passes exactly once and every id is kept', async (seed) => {
    const { table, results, warn } = await burst(seed);
    const passed = new Map<string, number>();
    for (const { id, fresh } of results) passed.set(id, (passed.get(id) ?? 0) + (fresh ? 1 : 0));
    expect([...passed.values()].every((n) => n === 1)).toBe(true);
    expect(passed.size).toBe(120);
    expect(table.entries()).toHaveLength(120);
    expect([...passed.keys()].every((id) => table.holds(id))).toBe(true);
    expect(table.rows.has('')).toBe(false); // the turn is given back
    expect(warn).not.toHaveBeenCalled();
  });

  it('calls that arrive while a turn is awaited are checked together in the next turn, copies within a batch passing once', async () => {
    const table = new ProcessedDataTable({ seed: 7 });
    const store = processedDataStore();
    const warn = vi.fn();
    const ids = Array.from({ length: 30 }, (_, n) => `evt_batch_${n}`);
    const calls = [...ids, ...ids.slice(0, 5)].map((id) => store(table.helpers(), KEY, [id], warn).then((s) => ({ id, fresh: s.has(id) })));
    const results = await Promise.all(calls);
    expect(table.calls).toBe(2); // the first call alone, then the 34 that came while it held the turn
    expect(
      results
        .filter((r) => r.fresh)
        .map((r) => r.id)
        .sort(),
    ).toEqual([...ids].sort());
    expect(table.entries()).toHaveLength(30);
    expect(table.rows.has('')).toBe(false);

    // Later calls start a new batch: a repeat is still a repeat.
    expect(await store(table.helpers(), KEY, ['evt_batch_3', 'evt_batch_new'], warn)).toEqual(new Set(['evt_batch_new']));
    expect(warn).not.toHaveBeenCalled();
  });

  it('a turn left by a killed process is taken over once it is stale, with a warning', async () => {
    const table = new ProcessedDataTable();
    await table.helpers().checkProcessedAndRecord([TURN_ENTRY], 'workflow', { mode: 'entries' }); // holder killed
    let clock = 0;
    const store = processedDataStore({ now: () => (clock += 1000), staleMs: 30_000 });
    const warn = vi.fn();
    const fresh = await store(table.helpers(), KEY, ['evt_after_crash'], warn);
    expect(fresh.has('evt_after_crash')).toBe(true);
    expect(warn).toHaveBeenCalledWith(expect.stringMatching(/held for over 30 s .*taking it over/));
    expect(table.rows.has('')).toBe(false);
  });

  it('a Remove Duplicates node with scope Workflow in the same workflow: its row is left alone, events are still checked, one warning', async () => {
    const table = new ProcessedDataTable();
    const h = table.helpers();
    await h.checkProcessedAndRecord(['a', 'b', 'c'], 'workflow', { mode: 'entries' });
    const store = processedDataStore();
    const warn = vi.fn();
    expect((await store(h, KEY, ['evt_1'], warn)).has('evt_1')).toBe(true);
    expect((await store(h, KEY, ['evt_1'], warn)).has('evt_1')).toBe(false);
    expect(table.rows.get('')!.data).toHaveLength(3);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]![0]).toMatch(/Remove Duplicates node with scope Workflow/);

    const latest = new ProcessedDataTable();
    await latest.helpers().checkProcessedAndRecord([5], 'workflow', { mode: 'latestIncrementalKey' } as never);
    const warn2 = vi.fn();
    expect((await processedDataStore()(latest.helpers(), KEY, ['evt_2'], warn2)).has('evt_2')).toBe(true);
    expect(latest.rows.get('')!.mode).toBe('latestIncrementalKey');
    expect(warn2).toHaveBeenCalledTimes(1);
  });

  it('the turn is given back when the check fails', async () => {
    const table = new ProcessedDataTable();
    table.failures = 3;
    const warn = vi.fn();
    const fresh = await processedDataStore()(table.helpers(), KEY, ['evt_1'], warn);
    expect(fresh.has('evt_1')).toBe(true);
    expect(warn).toHaveBeenCalledWith(expect.stringMatching(/failed \(Connection terminated/));
    expect(table.rows.has('')).toBe(false);
  });
});
