/** A1 notation, as Sheets reads it: A1, A1:C10, A:C (whole columns), 2:5 (whole rows), A2:C (to the last row). */

export interface Rect {
  row: number; // 1-based
  col: number;
  rows: number;
  cols: number;
}

export const columnLetters = (col: number): string => {
  let n = col;
  let s = '';
  while (n > 0) {
    s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
    n = Math.floor((n - 1) / 26);
  }
  return s;
};

const columnNumber = (letters: string) => [...letters.toUpperCase()].reduce((n, ch) => n * 26 + ch.charCodeAt(0) - 64, 0);

const CELL = /^\$?([A-Za-z]*)\$?(\d*)$/;

/** Parses "A1:C3" of a sheet with the given grid; undefined when it is not A1 notation. */
export function parseA1(a1: string, maxRows: number, maxCols: number): Rect | undefined {
  const parts = a1.trim().split(':');
  if (parts.length > 2 || !parts[0]) return undefined;
  const cells = parts.map((p) => CELL.exec(p));
  if (cells.some((m) => !m || (!m[1] && !m[2]))) return undefined;
  const a = cells[0] as RegExpExecArray;
  const b = cells[1] ?? undefined;
  const c = b ?? a;
  const col0 = a[1] ? columnNumber(a[1]) : 1;
  const row0 = a[2] ? Number(a[2]) : 1;
  const col1 = c[1] ? columnNumber(c[1]) : b ? maxCols : col0;
  const row1 = c[2] ? Number(c[2]) : b ? maxRows : row0;
  if (!b && (!a[1] || !a[2])) return undefined;
  const row = Math.min(row0, row1);
  const col = Math.min(col0, col1);
  return { row, col, rows: Math.abs(row1 - row0) + 1, cols: Math.abs(col1 - col0) + 1 };
}

export function toA1(r: Rect): string {
  const first = `${columnLetters(r.col)}${r.row}`;
  if (r.rows === 1 && r.cols === 1) return first;
  return `${first}:${columnLetters(r.col + r.cols - 1)}${r.row + r.rows - 1}`;
}

/** Splits "'My sheet'!A1:B2" into its sheet name and its A1 part. */
export function splitSheetName(ref: string): { sheet?: string; a1: string } {
  const m = /^(?:'((?:[^']|'')+)'|([^!']+))!(.+)$/.exec(ref);
  if (!m) return { a1: ref };
  return { sheet: m[1] !== undefined ? m[1].replace(/''/g, "'") : m[2], a1: m[3] as string };
}
