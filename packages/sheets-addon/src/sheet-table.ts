/**
 * The engine's Table over SpreadsheetApp: one sheet of the open spreadsheet. Reads are one block
 * (getValues of the data range); writes queue until flush and go out as one setValues per rectangle of
 * cells, each first formatted as plain text ('@'), so a code '12345678' or a date '2024-01-05' stays the
 * text written (setValues parses strings as if typed). The engine writes only its company_data_ columns;
 * the grid is grown before a write that needs it (an imported CSV's grid is exactly its data).
 */
import {
  cellLimitCheck,
  cellProtected,
  protectionCheck,
  sheetFound,
  writeAccessOk,
  writeAccessUnchecked,
  type GridRange,
  type ProtectedRange,
  type WriteCheck,
  type WritePlan,
} from '@company-data/core/sheets/checks/preflight';
import type { LeaseSheets } from '@company-data/core/sheets/lease/port';
import { appsScriptLeaseSheets } from './lease-sheets';
import { ensureGrid, insertSheetOnce, writeTextRows } from './sheet-cells';
import { packSpans, PendingCells } from '@company-data/core/sheets/table/pending-cells';
import {
  capCell,
  MAX_CELL_CHARS,
  type CellWrite,
  type ColumnsView,
  type Table,
  type TableSnapshot,
} from '@company-data/core/sheets/table/table';

/** A cell as getValues gives it, as the engine's text: dates as ISO, booleans as Sheets shows them. */
export function cellText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'boolean') return v ? 'TRUE' : 'FALSE';
  if (v instanceof Date) return isNaN(v.getTime()) ? '' : v.toISOString();
  return String(v);
}

function gridRange(r: GoogleAppsScript.Range): GridRange {
  return {
    startRowIndex: r.getRow() - 1,
    endRowIndex: r.getRow() - 1 + r.getNumRows(),
    startColumnIndex: r.getColumn() - 1,
    endColumnIndex: r.getColumn() - 1 + r.getNumColumns(),
  };
}

export class SheetTable implements Table {
  readonly label: string;
  readonly id: string;
  /** A save reads the sheet again before and after it writes: every 10 s at most, as the Google table. */
  readonly saveEveryMs = 10_000;
  readonly maxCellChars = MAX_CELL_CHARS;
  private pending = new PendingCells();

  constructor(
    private readonly book: GoogleAppsScript.Spreadsheet,
    readonly title: string,
  ) {
    this.label = `sheet "${title}"`;
    this.id = `gsheet:${book.getId()}#${title}`;
  }

  /** Where this sheet's lease is kept: the spreadsheet itself, as for the other doors. */
  async leaseTarget(): Promise<{ sheets: LeaseSheets; sheetTitle: string }> {
    return { sheets: appsScriptLeaseSheets(this.book), sheetTitle: this.title };
  }

  /** The sheet, found by its name now (a colleague may have deleted it). */
  sheet(): GoogleAppsScript.Sheet {
    const s = this.book.getSheetByName(this.title);
    if (!s) throw new Error(`sheetName: no sheet named "${this.title}" in this spreadsheet; its sheets are ${sheetList(this.book)}`);
    return s;
  }

  async read(): Promise<TableSnapshot> {
    const values = this.sheet().getDataRange().getValues();
    const header = (values[0] ?? []).map(cellText);
    while (header.length && header[header.length - 1] === '') header.pop();
    const rows = values.slice(1).map((r) => {
      const row = r.map(cellText);
      while (row.length < header.length) row.push('');
      return row;
    });
    while (rows.length && rows[rows.length - 1]!.every((v) => v === '')) rows.pop();
    return { header, rows };
  }

  /** The header and whole columns as they are now: one block read of the data range. */
  async readColumns(cols: readonly number[]): Promise<ColumnsView> {
    const values = this.sheet().getDataRange().getValues();
    const header = (values[0] ?? []).map(cellText);
    while (header.length && header[header.length - 1] === '') header.pop();
    const body = values.slice(1);
    let last = body.length;
    while (last > 0 && body[last - 1]!.every((v) => cellText(v) === '')) last--;
    const columns = new Map<number, string[]>();
    for (const c of cols)
      columns.set(
        c,
        body.slice(0, last).map((r) => cellText(r[c])),
      );
    return { header, columns };
  }

  async write(cells: readonly CellWrite[]): Promise<void> {
    this.pending.add(cells, (v) => capCell(v, this.maxCellChars));
  }

  async flush(): Promise<void> {
    if (this.pending.empty) return;
    const sheet = this.sheet();
    const { rows, cols } = this.pending.extent();
    ensureGrid(sheet, rows, cols);
    for (const packed of packSpans(this.pending))
      for (const s of packed.spans) {
        const values = Array.from({ length: s.height }, (_, i) => this.pending.line(s.row + i, s.col, s.width));
        const range = sheet.getRange(s.row + 1, s.col + 1, s.height, s.width);
        range.setNumberFormat('@');
        range.setValues(values);
      }
    this.pending = new PendingCells();
    SpreadsheetApp.flush();
  }

  async append(rows: readonly string[][]): Promise<void> {
    if (!rows.length) return;
    const sheet = this.sheet();
    writeTextRows(
      sheet,
      sheet.getLastRow() + 1,
      rows.map((r) => r.map((v) => capCell(v, this.maxCellChars))),
    );
  }

  /** Makes the sheet with its header when the spreadsheet has none of its name: true when made now. */
  async create(header: readonly string[]): Promise<boolean> {
    if (this.book.getSheetByName(this.title)) return false;
    const sheet = insertSheetOnce(this.book, this.title);
    if (!sheet) return false; // made meanwhile by another run
    if (header.length) writeTextRows(sheet, 1, [header]);
    return true;
  }

  /** The protections of this sheet as the core's checks read them (Google's ProtectedRange). */
  private protections(sheet: GoogleAppsScript.Sheet): ProtectedRange[] {
    const sheetId = sheet.getSheetId();
    const out: ProtectedRange[] = [];
    for (const p of sheet.getProtections(SpreadsheetApp.ProtectionType.SHEET))
      out.push({
        range: { sheetId },
        requestingUserCanEdit: p.canEdit(),
        warningOnly: p.isWarningOnly(),
        description: p.getDescription() || null,
        unprotectedRanges: p.getUnprotectedRanges().map((r) => ({ sheetId, ...gridRange(r) })),
      });
    for (const p of sheet.getProtections(SpreadsheetApp.ProtectionType.RANGE))
      out.push({
        range: { sheetId, ...gridRange(p.getRange()) },
        requestingUserCanEdit: p.canEdit(),
        warningOnly: p.isWarningOnly(),
        description: p.getDescription() || null,
      });
    return out;
  }

  /**
   * The checks before paying, as the Google table makes them: the sheet, the cell limit over every sheet's
   * grid, the protections as they stand for this user, and a write that changes nothing (a cell given the
   * text it holds) as the probe of write access, which Apps Script offers no call to ask about.
   */
  async checkWrites(plan: WritePlan, opts: { dryRun: boolean }): Promise<WriteCheck[]> {
    const sheet = this.sheet();
    const sheets = this.book.getSheets().map((s) => ({ title: s.getName(), rows: s.getMaxRows(), cols: s.getMaxColumns() }));
    const sheetId = sheet.getSheetId();
    const ranges = this.protections(sheet);
    const grid = { rows: sheet.getMaxRows(), cols: sheet.getMaxColumns() };
    const lastRow = plan.rows.reduce((n, [, end]) => Math.max(n, end), 1);
    const checks: WriteCheck[] = [
      sheetFound(
        this.title,
        sheets.map((s) => s.title),
      ),
      cellLimitCheck(sheets, this.title, { rows: lastRow, cols: plan.width }),
      protectionCheck(plan, ranges, sheetId, new Map(), 'you', plan.width > grid.cols || lastRow > grid.rows),
    ];
    let cols = grid.cols;
    const free = (c: { col: number }) => c.col < cols && !cellProtected(0, c.col, ranges, sheetId);
    let cell = plan.probe.find(free);
    try {
      if (!cell && !opts.dryRun && checks.every((c) => c.ok) && plan.width > cols) {
        ensureGrid(sheet, grid.rows, plan.width);
        cols = plan.width;
        cell = plan.probe.find(free);
      }
      if (!cell) {
        checks.push(
          writeAccessUnchecked(
            opts.dryRun ? 'the cells this run writes are beyond the grid or protected' : 'the cells this run writes are protected',
          ),
        );
        return checks;
      }
      const range = sheet.getRange(1, cell.col + 1, 1, 1);
      range.setValues([[cell.value]]);
      checks.push(writeAccessOk('you'));
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      if (/permission|protected|view/i.test(message))
        checks.push({
          check: 'write access',
          ok: false,
          text: 'you can only view this spreadsheet: ask its owner to share it with you as an Editor, then run again',
        });
      else throw e;
    }
    return checks;
  }
}

/** The spreadsheet's sheet names, quoted, for messages. */
export function sheetList(book: GoogleAppsScript.Spreadsheet): string {
  return book
    .getSheets()
    .filter((s) => !s.isSheetHidden())
    .map((s) => `"${s.getName()}"`)
    .join(', ');
}
