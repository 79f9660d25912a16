/**
 * One table interface over CSV, XLSX, Google Sheets and memory.
 * Row 0 is the header; every value is a string, read unformatted (numbers as plain digits,
 * formulas as their result) and written as text, so codes keep leading zeros.
 */
import type { WriteCheck, WritePlan } from './preflight';

export interface TableSnapshot {
  header: string[];
  /** Data rows (without the header), each padded to at least the header width. */
  rows: string[][];
}

/** One cell write; row 0 is the header row, col 0 is column A. */
export interface CellWrite {
  row: number;
  col: number;
  value: string;
}

/** The header row and some whole columns of a table as they are now, read in one request. */
export interface ColumnsView {
  header: string[];
  /** Each column asked for (0-based, by the index asked): its data rows' values, without the header. */
  columns: Map<number, string[]>;
}

export interface Table {
  /** For messages: file path or spreadsheet/sheet. Never holds credentials. */
  readonly label: string;
  /** Stable identity used to key local state (journal, ledger, lock). */
  readonly id: string;
  /** The file saves go to, for file tables: what the writer lock and the write checks are about. */
  readonly file?: string;
  /** How often a long run should save at most (default 1 s): a save that sends or rewrites a lot asks for less. */
  readonly saveEveryMs?: number;
  /** Characters one cell holds at most (Google 50,000, Excel 32,767); longer values are cut by capCell. None for CSV. */
  readonly maxCellChars?: number;
  read(): Promise<TableSnapshot>;
  /** Queues cell writes; the adapter may send them at once or on the next flush. Grows the grid as needed. */
  write(cells: readonly CellWrite[]): Promise<void>;
  /** Appends whole rows after the last row (inserting rows, never overwriting). Sent at once. */
  append(rows: readonly string[][]): Promise<void>;
  /** Sends or saves everything queued. Files are replaced atomically (temp file, then rename). */
  flush(): Promise<void>;
  /**
   * Checks, before anything is paid for, that the run can save what it plans to write (a shared
   * sheet: access, protection, size). A dry run changes nothing; a real run may make changes the run
   * needs anyway (grow the grid).
   */
  checkWrites?(plan: WritePlan, opts: { dryRun: boolean }): Promise<WriteCheck[]>;
  /**
   * Tables other people edit while a run writes (Google Sheets) re-read the header and a few columns
   * in one request, so a writer can find where rows and columns went since it read them. Files have
   * none: one changed on disk while a run writes it is refused instead.
   */
  readColumns?(cols: readonly number[]): Promise<ColumnsView>;
}

/** Google's limit on one cell: a longer value is refused (HTTP 400) and with it the whole write. */
export const MAX_CELL_CHARS = 50_000;

/**
 * A value that fits in one cell: one over `max` characters keeps its start and ends with a visible
 * marker, "… [cut: 123,456 characters in all]", the whole at most `max` characters long.
 */
export function capCell(value: string, max = MAX_CELL_CHARS): string {
  if (value.length <= max) return value;
  const marker = ` … [cut: ${value.length.toLocaleString('en-US')} characters in all]`;
  let keep = max - marker.length;
  // Never split a surrogate pair.
  const code = value.charCodeAt(keep - 1);
  if (code >= 0xd800 && code <= 0xdbff) keep--;
  return value.slice(0, keep) + marker;
}

/**
 * A value the table cannot hold (a character the file's encoding lacks): nothing was written, and the
 * same value would be refused again. Other values may well be taken.
 */
export class CellValueError extends Error {}

/** Column index (0-based) to A1 letters: 0 → A, 26 → AA. */
export function columnLetters(index: number): string {
  let n = index + 1;
  let s = '';
  while (n > 0) {
    const r = (n - 1) % 26;
    s = String.fromCharCode(65 + r) + s;
    n = Math.floor((n - 1) / 26);
  }
  return s;
}

export function columnIndex(letters: string): number {
  let n = 0;
  for (const ch of letters.toUpperCase()) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n - 1;
}

/** Where a rectangle of pending cells is: `height` rows from `row`, `width` columns from `col`. */
export interface Span {
  row: number;
  col: number;
  height: number;
  width: number;
}

/**
 * Cell writes waiting to be sent: later writes to a cell win. Kept as one sparse array of values per
 * row, not one object per cell: a save of a 100,000-row sheet holds about a million of them.
 */
export class PendingCells {
  private readonly rows = new Map<number, string[]>();

  get empty(): boolean {
    return this.rows.size === 0;
  }

  add(cells: readonly CellWrite[], map: (value: string) => string = (v) => v): void {
    for (const c of cells) {
      let r = this.rows.get(c.row);
      if (!r) this.rows.set(c.row, (r = []));
      r[c.col] = map(c.value);
    }
  }

  /** Rows and columns the cells reach (one past the last). */
  extent(): { rows: number; cols: number } {
    let rows = 0;
    let cols = 0;
    for (const [row, r] of this.rows) {
      if (row + 1 > rows) rows = row + 1;
      if (r.length > cols) cols = r.length;
    }
    return { rows, cols };
  }

  /** The values of `width` pending cells of a row from `col`. */
  line(row: number, col: number, width: number): string[] {
    return this.rows.get(row)!.slice(col, col + width);
  }

  /** Runs of adjacent cells, row by row, left to right (spans one row high). */
  *runs(): Generator<Span> {
    const order = Array.from(this.rows.keys()).sort((a, b) => a - b);
    for (const row of order) {
      const r = this.rows.get(row);
      if (!r) continue;
      const found: Span[] = [];
      let run: Span | undefined;
      // forEach skips the holes: a gap between written columns ends a run.
      r.forEach((_, col) => {
        if (run && run.col + run.width === col) run.width++;
        else found.push((run = { row, col, height: 1, width: 1 }));
      });
      yield* found;
    }
  }

  /** Forgets the cells of these spans (they were written). */
  remove(spans: readonly Span[]): void {
    for (const s of spans)
      for (let row = s.row; row < s.row + s.height; row++) {
        const r = this.rows.get(row);
        if (!r) continue;
        for (let col = s.col; col < s.col + s.width; col++) delete r[col];
        if (!r.some(() => true)) this.rows.delete(row);
      }
  }

  /** These cells with `newer` written over them: what is still pending after a save that failed part way. */
  under(newer: PendingCells): PendingCells {
    for (const [row, r] of newer.rows) {
      const mine = this.rows.get(row);
      if (!mine) this.rows.set(row, r);
      else r.forEach((value, col) => (mine[col] = value));
    }
    return this;
  }
}

/** Sizes for packSpans: request bytes around the rectangles, and the most bytes one range can take. */
export interface RequestBudget {
  maxBytes: number;
  /** Bytes of the request with no rectangle in it, e.g. {"valueInputOption":"RAW","data":[]}. */
  baseBytes: number;
  /** Upper bound of one range as JSON ("'Sheet'!A1:B2" with its quotes). */
  rangeBytes: number;
}

/** One request's rectangles, and an upper bound of its body in bytes. */
export interface Packed {
  spans: Span[];
  bytes: number;
}

/** {"range":R,"values":[...]}: the bytes around R and the rows. */
const BLOCK_BYTES = '{"range":,"values":[]}'.length;

/** UTF-8 bytes of a value as JSON. */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value));
}

/**
 * Groups the pending cells into rectangles (consecutive rows with the same run of columns), and the
 * rectangles into requests whose JSON stays within budget.maxBytes, counted in UTF-8 bytes. A run too
 * large for one request is cut between columns; one cell always goes, even alone over the budget (it
 * holds at most 50,000 characters). Lazy, and holding no values: one request's geometry exists at a
 * time, and the values are read again when the request is written out.
 */
export function* packSpans(pending: PendingCells, budget?: RequestBudget): Generator<Packed> {
  const max = budget?.maxBytes ?? Infinity;
  const base = budget?.baseBytes ?? 0;
  const blockBase = budget ? BLOCK_BYTES + budget.rangeBytes : 0;
  const bytesOf = (s: Span) => (budget ? jsonBytes(pending.line(s.row, s.col, s.width)) : 0);
  /** The run and its JSON bytes; cut between columns when it cannot go in one request. */
  const pieces = (run: Span): [Span, number][] => {
    const whole = bytesOf(run);
    if (base + blockBase + whole <= max) return [[run, whole]];
    const out: [Span, number][] = [];
    let cur: [Span, number] | undefined;
    pending.line(run.row, run.col, run.width).forEach((v, j) => {
      const b = jsonBytes(v) + 1;
      if (cur && base + blockBase + cur[1] + b > max) cur = undefined;
      if (!cur) out.push((cur = [{ row: run.row, col: run.col + j, height: 1, width: 0 }, 1]));
      cur[0].width++;
      cur[1] += b;
    });
    return out;
  };
  let part: Span[] = [];
  let bytes = base;
  // Open rectangles by their columns (col and width in one number: both are under 20,000).
  let open = new Map<number, Span>();
  for (const whole of pending.runs()) {
    for (const [run, runBytes] of pieces(whole)) {
      const key = run.col * 20_000 + run.width;
      let b = open.get(key);
      if (b && b.row + b.height !== run.row) b = undefined;
      let extra = b ? runBytes + 1 : blockBase + runBytes + (part.length ? 1 : 0);
      if (part.length && bytes + extra > max) {
        yield { spans: part, bytes };
        part = [];
        open = new Map();
        bytes = base;
        b = undefined;
        extra = blockBase + runBytes;
      }
      if (b) b.height++;
      else {
        part.push((b = { ...run }));
        open.set(key, b);
      }
      bytes += extra;
    }
  }
  if (part.length) yield { spans: part, bytes };
}

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
