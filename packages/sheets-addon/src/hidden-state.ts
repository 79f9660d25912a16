/**
 * Small named records the add-on keeps between executions that may outgrow a property (9 KB a value): the
 * monitoring list's members, the events cursor, the changes read but not yet in their rows. One row of a
 * hidden sheet per name, its JSON over as many cells as it needs (50,000 characters a cell).
 */
import { fromJsonCells, insertSheetOnce, jsonCells, textRows, writeTextRows } from './sheet-cells';

export const STATE_SHEET = 'company_data_state';

function stateSheet(book: GoogleAppsScript.Spreadsheet, make: boolean): GoogleAppsScript.Sheet | undefined {
  const found = book.getSheetByName(STATE_SHEET);
  if (found || !make) return found ?? undefined;
  const sheet = insertSheetOnce(book, STATE_SHEET);
  if (!sheet) return book.getSheetByName(STATE_SHEET) ?? undefined;
  sheet.hideSheet();
  return sheet;
}

export function readState<T>(book: GoogleAppsScript.Spreadsheet, name: string): T | undefined {
  const sheet = stateSheet(book, false);
  const row = sheet ? textRows(sheet, 1).find((r) => r[0] === name) : undefined;
  return row ? (fromJsonCells(row.slice(1)) as T | undefined) : undefined;
}

export function writeState(book: GoogleAppsScript.Spreadsheet, name: string, value: unknown): void {
  const sheet = stateSheet(book, true)!;
  const cells = [name, ...jsonCells(value)];
  const rows = textRows(sheet, 1);
  const at = rows.findIndex((r) => r[0] === name);
  const width = Math.max(cells.length, at >= 0 ? rows[at]!.length : 0);
  writeTextRows(sheet, at >= 0 ? at + 1 : rows.length + 1, [cells], width);
}
