/**
 * Small named records the add-on keeps between executions that may outgrow a property (9 KB a value): the
 * monitoring list's members, the events cursor, the changes read but not yet in their rows. One row of a
 * hidden sheet per name, its JSON over as many cells as it needs (50,000 characters a cell).
 */
export const STATE_SHEET = 'company_data_state';
const CHUNK = 45_000;

function stateSheet(book: GoogleAppsScript.Spreadsheet, make: boolean): GoogleAppsScript.Sheet | undefined {
  const found = book.getSheetByName(STATE_SHEET);
  if (found || !make) return found ?? undefined;
  try {
    const sheet = book.insertSheet(STATE_SHEET);
    sheet.hideSheet();
    return sheet;
  } catch (e) {
    const again = book.getSheetByName(STATE_SHEET);
    if (again) return again;
    throw e;
  }
}

function rowsOf(sheet: GoogleAppsScript.Sheet): string[][] {
  const last = sheet.getLastRow();
  if (!last) return [];
  return sheet
    .getRange(1, 1, last, Math.max(1, sheet.getLastColumn()))
    .getValues()
    .map((r) => r.map((v) => (v === null || v === undefined ? '' : String(v))));
}

export function readState<T>(book: GoogleAppsScript.Spreadsheet, name: string): T | undefined {
  const sheet = stateSheet(book, false);
  const row = sheet ? rowsOf(sheet).find((r) => r[0] === name) : undefined;
  if (!row) return undefined;
  try {
    return JSON.parse(row.slice(1).join('')) as T;
  } catch {
    return undefined;
  }
}

export function writeState(book: GoogleAppsScript.Spreadsheet, name: string, value: unknown): void {
  const sheet = stateSheet(book, true)!;
  const json = JSON.stringify(value);
  const cells = [name];
  for (let i = 0; i < json.length; i += CHUNK) cells.push(json.slice(i, i + CHUNK));
  const rows = rowsOf(sheet);
  const at = rows.findIndex((r) => r[0] === name);
  const row = at >= 0 ? at + 1 : rows.length + 1;
  const width = Math.max(cells.length, at >= 0 ? rows[at]!.length : 0);
  if (width > sheet.getMaxColumns()) sheet.insertColumnsAfter(sheet.getMaxColumns(), width - sheet.getMaxColumns());
  if (row > sheet.getMaxRows()) sheet.insertRowsAfter(sheet.getMaxRows(), row - sheet.getMaxRows());
  const range = sheet.getRange(row, 1, 1, width);
  range.setNumberFormat('@');
  range.setValues([Array.from({ length: width }, (_, i) => cells[i] ?? '')]);
}
