/**
 * The core's sheet lease (packages/core/sheets/lease) over SpreadsheetApp: the same lease sheet the CLI and
 * the n8n node take over Sheets REST, so the add-on and the other doors never write one sheet at once.
 * insertSheet refuses a name in use (Google: "A sheet with the name … already exists"), which makes
 * create-if-absent; renew and remove find the sheet by its id, never by its title.
 */
import { leaseCells, readLeaseCells, type LeaseRecord, type LeaseSheets } from '@company-data/core/sheets/lease/port';
import { writeTextRows } from './sheet-cells';

const byTitle = (book: GoogleAppsScript.Spreadsheet, name: string) =>
  book.getSheets().find((s) => s.getName().toLowerCase() === name.toLowerCase());

const byId = (book: GoogleAppsScript.Spreadsheet, id: string) => book.getSheets().find((s) => String(s.getSheetId()) === id);

/** Writes the record as text ('@'), so no time becomes a number or a date. */
function writeRecord(sheet: GoogleAppsScript.Sheet, record: LeaseRecord): void {
  writeTextRows(sheet, 1, leaseCells(record));
  SpreadsheetApp.flush();
}

/** Google's "You do not have permission…" for a user who can only view, in the add-on's words. */
function viewOnly(e: unknown): unknown {
  const message = e instanceof Error ? e.message : String(e);
  if (!/permission/i.test(message)) return e;
  return new Error(
    'You can only view this spreadsheet: ask its owner to share it with you as an Editor, then run again. Nothing was billed.',
  );
}

export function appsScriptLeaseSheets(book: GoogleAppsScript.Spreadsheet): LeaseSheets {
  return {
    async create(name, record) {
      if (byTitle(book, name)) return undefined;
      let sheet: GoogleAppsScript.Sheet;
      try {
        sheet = book.insertSheet(name);
      } catch (e) {
        if (byTitle(book, name)) return undefined;
        throw viewOnly(e);
      }
      // Two calls, not one atomic step as over REST: the record is written straight after, in the same
      // execution; a door reading in between finds an empty lease sheet (docs/decisions/sheets-addon.md,
      // "The sheet's lease over SpreadsheetApp (lease-sheets.ts)").
      writeRecord(sheet, record);
      sheet.hideSheet();
      return String(sheet.getSheetId());
    },
    async read(name) {
      const sheet = byTitle(book, name);
      if (!sheet) return undefined;
      const id = String(sheet.getSheetId());
      return { id, record: readLeaseCells(sheet.getDataRange().getValues()) };
    },
    async renew(id, record) {
      const sheet = byId(book, id);
      if (!sheet) return false;
      writeRecord(sheet, record);
      return true;
    },
    async remove(id) {
      const sheet = byId(book, id);
      if (!sheet) return false;
      try {
        book.deleteSheet(sheet);
      } catch (e) {
        if (!byId(book, id)) return false;
        throw e;
      }
      return true;
    },
  };
}
