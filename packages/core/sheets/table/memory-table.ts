import type { CellWrite, Table, TableSnapshot } from './table';

/** Applies writes to an in-memory grid (header + rows), growing it as needed. */
export function applyWrites(grid: string[][], cells: readonly CellWrite[]): void {
  for (const c of cells) {
    while (grid.length <= c.row) grid.push([]);
    const r = grid[c.row]!;
    while (r.length <= c.col) r.push('');
    r[c.col] = c.value;
  }
}

export function snapshotOf(grid: readonly string[][]): TableSnapshot {
  const header = [...(grid[0] ?? [])];
  while (header.length && header[header.length - 1] === '') header.pop();
  const width = header.length;
  // Rows are shared with the grid, not copied (100,000 rows would double the memory); short rows are padded copies.
  const rows = grid.slice(1).map((r) => (r.length >= width ? r : [...r, ...Array<string>(width - r.length).fill('')]));
  // Trailing empty rows are not data (spreadsheets and CSV exports often carry them).
  while (rows.length && rows[rows.length - 1]!.every((v) => v === '')) rows.pop();
  return { header, rows };
}

/** In-memory table for tests and library callers who hold their own rows. */
export class MemoryTable implements Table {
  readonly label: string;
  readonly id: string;
  readonly calls = { read: 0, write: 0, append: 0 };
  constructor(
    public grid: string[][] = [],
    name = 'memory',
  ) {
    this.label = name;
    this.id = `memory:${name}`;
  }
  async read(): Promise<TableSnapshot> {
    this.calls.read++;
    return snapshotOf(this.grid);
  }
  async write(cells: readonly CellWrite[]): Promise<void> {
    if (!cells.length) return;
    this.calls.write++;
    applyWrites(this.grid, cells);
  }
  async append(rows: readonly string[][]): Promise<void> {
    if (!rows.length) return;
    this.calls.append++;
    const last = snapshotOf(this.grid).rows.length + 1;
    this.grid.length = Math.max(this.grid.length, last);
    // Pushed one by one, not spread into splice's arguments: a large append would overflow the stack.
    const after = this.grid.splice(last);
    for (const r of rows) this.grid.push([...r]);
    for (const r of after) this.grid.push(r);
  }
  async flush(): Promise<void> {}
}
