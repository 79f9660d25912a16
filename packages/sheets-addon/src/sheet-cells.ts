/**
 * The add-on's few ways of writing a sheet over SpreadsheetApp, each once: the grid grown before a write that
 * needs it, text written as text ('@' first, since setValues parses strings as if typed), a sheet made only
 * when no run made it first, and JSON kept over as many cells as it needs.
 */

/** Characters of JSON per cell (Google: 50,000 a cell). */
const JSON_CHUNK = 45_000;

/** Grows the grid to hold rows x cols (insertRowsAfter / insertColumnsAfter), never shrinks it. */
export function ensureGrid(sheet: GoogleAppsScript.Sheet, rows: number, cols: number): void {
  const maxCols = sheet.getMaxColumns();
  if (cols > maxCols) sheet.insertColumnsAfter(maxCols, cols - maxCols);
  const maxRows = sheet.getMaxRows();
  if (rows > maxRows) sheet.insertRowsAfter(maxRows, rows - maxRows);
}

/** Writes `rows` as plain text from row `row`, column A, each padded with empty cells to `width`. */
export function writeTextRows(
  sheet: GoogleAppsScript.Sheet,
  row: number,
  rows: readonly (readonly string[])[],
  width = rows.reduce((n, r) => Math.max(n, r.length), 1),
): void {
  ensureGrid(sheet, row - 1 + rows.length, width);
  const range = sheet.getRange(row, 1, rows.length, width);
  range.setNumberFormat('@');
  range.setValues(rows.map((r) => Array.from({ length: width }, (_, i) => r[i] ?? '')));
}

/** Makes the sheet `name`; undefined when a sheet of that name was made first (insertSheet refuses a name in use). */
export function insertSheetOnce(book: GoogleAppsScript.Spreadsheet, name: string): GoogleAppsScript.Sheet | undefined {
  try {
    return book.insertSheet(name);
  } catch (e) {
    if (book.getSheetByName(name)) return undefined;
    throw e;
  }
}

/** The rows from row `from` (1-based) to the last, as text. */
export function textRows(sheet: GoogleAppsScript.Sheet, from: number): string[][] {
  const last = sheet.getLastRow();
  if (last < from) return [];
  return sheet
    .getRange(from, 1, last - from + 1, Math.max(1, sheet.getLastColumn()))
    .getValues()
    .map((r) => r.map((v) => (v === null || v === undefined ? '' : String(v))));
}

/** A value's JSON over cells of at most JSON_CHUNK characters. */
export function jsonCells(value: unknown): string[] {
  const json = JSON.stringify(value);
  const cells: string[] = [];
  for (let i = 0; i < json.length; i += JSON_CHUNK) cells.push(json.slice(i, i + JSON_CHUNK));
  return cells;
}

/** The value jsonCells wrote, or undefined when the cells do not hold JSON (edited or damaged). */
export function fromJsonCells(cells: readonly string[]): unknown {
  try {
    return JSON.parse(cells.join('')) as unknown;
  } catch {
    return undefined;
  }
}
