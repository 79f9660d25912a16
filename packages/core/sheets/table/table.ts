/**
 * One table interface over CSV, XLSX, Google Sheets and memory.
 * Row 0 is the header; every value is a string, read unformatted (numbers as plain digits,
 * formulas as their result) and written as text, so codes keep leading zeros.
 */
import type { WriteCheck, WritePlan } from '../checks/preflight';
import type { LockedTable } from '../ports';

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
  /**
   * Makes the sheet, with `header` as its first row, when its spreadsheet has none of its title (Google
   * Sheets: one request, so the sheet never exists without its header). True when made now: it holds the
   * header and nothing else. False when it was there. Files have none: a file is made by its first save.
   */
  create?(header: readonly string[]): Promise<boolean>;
  /** A sheet others share (Google Sheets): where its lease is kept (ports.ts LockedTable). Wrappers pass it on. */
  leaseTarget?: LockedTable['leaseTarget'];
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

export { columnIndex, columnLetters } from '../a1';

/** One row's edits, as [column, value] pairs. */
export type RowEditList = readonly (readonly [number, string])[];

/**
 * A table read and written row by row, never whole (CSV): enrich plans while it reads (rows) and
 * writes each row as its answer arrives, to a new file that replaces the old one (rewrite).
 */
export interface StreamedTable extends Table {
  /** The rows, header first, as they are read. */
  rows(): AsyncIterable<string[]>;
  /**
   * Writes the table again row by row (header first), each with its edits applied and padded to
   * `width`; an edit given as a promise holds the reading up until it is there.
   */
  rewrite(
    edits: (row: string[], index: number) => RowEditList | undefined | Promise<RowEditList | undefined>,
    width: number,
  ): Promise<void>;
}

export function isStreamed(table: Table): table is StreamedTable {
  const t = table as Partial<StreamedTable>;
  return typeof t.rows === 'function' && typeof t.rewrite === 'function';
}
