import { isStreamed, type CellWrite, type ColumnsView, type Table, type TableSnapshot } from './table';

/**
 * A whole table (not streamed) that remembers what a run read and wrote through it, so the caller has the
 * table as the run last saw it without reading it once more (`company-data watch` reads the sheet's
 * companies after enrich: on a Google sheet that read is a request against Google's 60 a minute, and the
 * whole sheet again).
 *
 * What it gives is the last whole read with the run's own writes applied, and only while everything the run
 * read since agreed with that: a column read again (enrich's reads before and after each save, of the header,
 * the key column and its own columns) holding anything else (a colleague's edit, sort, insert or delete, a
 * value Google cut) makes `seen()` answer undefined, and the caller reads the table. So does a save that
 * failed (it may have half landed) or an append (rows after the last seen).
 */
export class SeenTable implements Table {
  readonly readColumns?: (cols: readonly number[]) => Promise<ColumnsView>;
  readonly checkWrites?: Table['checkWrites'];
  readonly create?: Table['create'];
  readonly leaseTarget?: Table['leaseTarget'];
  private base: TableSnapshot | undefined;
  /** Cells the run wrote since the base, by row (0: the header), then column. */
  private written = new Map<number, Map<number, string>>();
  private queued: CellWrite[] = [];
  private differs = false;

  constructor(readonly inner: Table) {
    if (isStreamed(inner)) throw new Error('SeenTable: a streamed table (CSV) is read row by row, never held whole');
    if (inner.readColumns) this.readColumns = (cols) => this.readColumnsOf(inner.readColumns!.bind(inner), cols);
    if (inner.checkWrites) this.checkWrites = inner.checkWrites.bind(inner);
    if (inner.create) this.create = inner.create.bind(inner);
    if (inner.leaseTarget) this.leaseTarget = inner.leaseTarget.bind(inner);
  }

  get label() {
    return this.inner.label;
  }
  get id() {
    return this.inner.id;
  }
  get file() {
    return this.inner.file;
  }
  get saveEveryMs() {
    return this.inner.saveEveryMs;
  }
  get maxCellChars() {
    return this.inner.maxCellChars;
  }

  async read(): Promise<TableSnapshot> {
    const snap = await this.inner.read();
    this.base = snap;
    this.written = new Map();
    this.differs = false;
    return snap;
  }

  async write(cells: readonly CellWrite[]): Promise<void> {
    await this.inner.write(cells);
    for (const c of cells) this.queued.push(c);
  }

  async flush(): Promise<void> {
    const queued = this.queued;
    this.queued = [];
    try {
      await this.inner.flush();
    } catch (e) {
      this.differs = true;
      // eslint-disable-next-line @n8n/community-nodes/require-node-api-error -- shared with the CLI; the node converts errors at its entry points
      throw e;
    }
    for (const c of queued) {
      let row = this.written.get(c.row);
      if (!row) this.written.set(c.row, (row = new Map()));
      row.set(c.col, c.value);
    }
  }

  async append(rows: readonly string[][]): Promise<void> {
    this.differs = true;
    await this.inner.append(rows);
  }

  private cell(row: number, col: number): string {
    const w = this.written.get(row)?.get(col);
    if (w !== undefined) return w;
    return (row === 0 ? this.base!.header[col] : this.base!.rows[row - 1]?.[col]) ?? '';
  }

  private header(): string[] {
    const width = Math.max(this.base!.header.length, ...[...(this.written.get(0)?.keys() ?? [])].map((c) => c + 1));
    const header = Array.from({ length: width }, (_, c) => this.cell(0, c));
    while (header.length && header[header.length - 1] === '') header.pop();
    return header;
  }

  private async readColumnsOf(read: (cols: readonly number[]) => Promise<ColumnsView>, cols: readonly number[]): Promise<ColumnsView> {
    const view = await read(cols);
    if (this.base && !this.differs) {
      const header = this.header();
      if (header.length !== view.header.length || header.some((h, i) => h !== view.header[i])) this.differs = true;
      for (const [col, values] of view.columns) {
        if (this.differs) break;
        const n = Math.max(values.length, this.base.rows.length);
        for (let r = 0; r < n; r++)
          if ((values[r] ?? '') !== this.cell(r + 1, col)) {
            this.differs = true;
            break;
          }
      }
    }
    return view;
  }

  /**
   * The table as the run last saw it (the last whole read with its writes), or undefined when the run did not
   * read it whole, or saw it differ since: then read it.
   */
  seen(): TableSnapshot | undefined {
    if (!this.base || this.differs || this.queued.length) return undefined;
    const header = this.header();
    const rows = this.base.rows.map((r, i) => {
      const w = this.written.get(i + 1);
      if (!w && r.length >= header.length) return r;
      const row = [...r];
      while (row.length < header.length) row.push('');
      for (const [c, v] of w ?? []) row[c] = v;
      return row;
    });
    return { header, rows };
  }
}
