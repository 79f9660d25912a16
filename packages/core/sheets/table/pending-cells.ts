import { utf8Bytes } from '../../web-free';
import type { CellWrite } from './table';

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
  return utf8Bytes(JSON.stringify(value));
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
