/**
 * SeenTable: the table as a run last saw it (its last whole read with its own writes), given only while every
 * column the run read again agreed with it; anything else (a colleague's edit, sort or insert, a failed save,
 * an append) and the caller is told to read the table.
 */
import { describe, expect, it } from 'vitest';
import { MemoryTable, type ColumnsView } from '@company-data/core/sheets';
import { SeenTable } from '@company-data/core/sheets/table/seen-table';

/** A memory table that others edit (grid), read by columns like a Google sheet; counts its reads. */
class SharedTable extends MemoryTable {
  failFlush = false;
  /** Fresh rows, as Google's answer is: a colleague's later edit of the grid does not reach what was read. */
  override async read() {
    const snap = await super.read();
    return { header: snap.header, rows: snap.rows.map((r) => [...r]) };
  }
  async readColumns(cols: readonly number[]): Promise<ColumnsView> {
    this.calls.read++;
    const header = [...(this.grid[0] ?? [])];
    while (header.length && header[header.length - 1] === '') header.pop();
    const columns = new Map(cols.map((c) => [c, this.grid.slice(1).map((r) => r[c] ?? '')]));
    for (const values of columns.values()) while (values.length && values[values.length - 1] === '') values.pop();
    return { header, columns };
  }
  override async flush(): Promise<void> {
    if (this.failFlush) throw new Error('Google Sheets no answer (timeout)');
  }
}

const grid = () => [
  ['Company', 'Registry code'],
  ['Alfa', '10000001'],
  ['Beeta', '10000002'],
];

/** What enrich does to a Google sheet: read it whole, read the columns before a save, save, read them after. */
async function enrichLike(t: SeenTable, between?: () => void) {
  await t.read();
  await t.readColumns!([1]);
  await t.write([
    { row: 0, col: 2, value: 'company_data_status' },
    { row: 1, col: 2, value: 'matched' },
    { row: 2, col: 2, value: 'no_match' },
  ]);
  await t.flush();
  between?.();
  await t.readColumns!([1, 2]);
}

describe('SeenTable', () => {
  it('gives the last whole read with the writes, without another read', async () => {
    const inner = new SharedTable(grid());
    const t = new SeenTable(inner);
    await enrichLike(t);
    const reads = inner.calls.read;
    expect(t.seen()).toEqual({
      header: ['Company', 'Registry code', 'company_data_status'],
      rows: [
        ['Alfa', '10000001', 'matched'],
        ['Beeta', '10000002', 'no_match'],
      ],
    });
    expect(inner.calls.read).toBe(reads);
  });

  it("nothing once a column read again differs: a colleague's edit, sort or inserted row", async () => {
    for (const colleague of [
      (g: string[][]) => void (g[1]![1] = '10000003'),
      (g: string[][]) => void g.splice(1, 2, g[2]!, g[1]!),
      (g: string[][]) => void g.splice(1, 0, ['Gamma', '10000004']),
      (g: string[][]) => void (g[0]![1] = 'Code'),
    ]) {
      const inner = new SharedTable(grid());
      const t = new SeenTable(inner);
      await enrichLike(t, () => colleague(inner.grid));
      expect(t.seen()).toBeUndefined();
    }
  });

  it('nothing after a save that failed (it may have half landed) or an append; a whole read starts afresh', async () => {
    const inner = new SharedTable(grid());
    const t = new SeenTable(inner);
    await t.read();
    await t.write([{ row: 1, col: 2, value: 'x' }]);
    inner.failFlush = true;
    await expect(t.flush()).rejects.toThrow(/no answer/);
    expect(t.seen()).toBeUndefined();
    // Read whole again: what is there now (the memory table applied the write at once).
    await t.read();
    expect(t.seen()).toEqual({ header: ['Company', 'Registry code'], rows: [['Alfa', '10000001', 'x'], grid()[2]] });
    inner.failFlush = false;
    await t.append([['Delta', '10000005']]);
    expect(t.seen()).toBeUndefined();
    expect(new SeenTable(new SharedTable()).seen()).toBeUndefined();
  });
});
