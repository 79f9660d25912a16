/**
 * The one spreadsheet of an Apps Script world, kept in the test's thread: it persists across executions,
 * the facades of SpreadsheetApp read and write it, and the test edits it as a colleague would.
 */
import type { Rect } from './a1';
import { parseA1 } from './a1';
import { MESSAGES, ScriptException } from './errors';
import { CELL_CHAR_LIMIT, DEFAULT_FORMAT, displayValue, PLAIN_TEXT, typedValue, type CellValue } from './typed-values';

export const OWNER = 'owner@example.com';
/** A sheet insertSheet() makes: 1000 rows, 26 columns (A:Z). */
export const NEW_SHEET_ROWS = 1000;
export const NEW_SHEET_COLUMNS = 26;
/** Google's limit on all sheets' cells together. */
export const MAX_CELLS = 10_000_000;

export interface SheetData {
  id: number;
  name: string;
  maxRows: number;
  maxColumns: number;
  hidden: boolean;
  frozenRows: number;
  /** Rows of typed values; a missing cell is empty (''). */
  cells: CellValue[][];
  /** Number formats; a missing one is the default. */
  formats: (string | undefined)[][];
  formulas: (string | undefined)[][];
}

export interface ProtectionData {
  id: number;
  sheetId: number;
  /** undefined: the whole sheet. */
  rect?: Rect;
  editors: Set<string>;
  warningOnly: boolean;
  description: string;
}

export interface AddSheetOptions {
  hidden?: boolean;
  /** The grid; default: Google's new sheet (1000 × 26) or the data's size when larger. 'exact': the data's size (an imported CSV). */
  grid?: 'exact' | { rows: number; columns: number };
  /** Keep every value as text in plain-text ('@') cells instead of parsing it as typed. */
  asText?: boolean;
}

export interface SpreadsheetModel {
  addSheet(name: string, rows: unknown[][], opts?: AddSheetOptions): void;
  values(name: string): unknown[][];
  displayValues(name: string): string[][];
  numberFormats(name: string): string[][];
  sheetNames(): string[];
  insertRows(name: string, at: number, rows: unknown[][]): void;
  deleteRows(name: string, at: number, count: number): void;
  sortBy(name: string, column: number, ascending?: boolean, headerRows?: number): void;
  protectRange(name: string, a1: string, editors?: string[]): void;
  share(user: string, role: 'view' | 'edit'): void;
}

const widest = (rows: readonly unknown[][]) => rows.reduce((w, r) => Math.max(w, r.length), 0);

export class Spreadsheet implements SpreadsheetModel {
  readonly id = '1AppsScriptStandinSpreadsheet0000000000000000';
  name = 'Leads';
  readonly timeZone = 'Etc/UTC';
  readonly owner = OWNER;
  sheets: SheetData[] = [];
  protections: ProtectionData[] = [];
  private roles = new Map<string, 'view' | 'edit'>();
  private nextId = 1;

  // ---- the test's side (a colleague, the owner sharing the file) ----

  addSheet(name: string, rows: unknown[][], opts: AddSheetOptions = {}): void {
    const grid = opts.grid;
    const exactRows = Math.max(rows.length, 1);
    const exactCols = Math.max(widest(rows), 1);
    const sheet = this.createSheet(name, this.sheets.length);
    sheet.maxRows = grid === 'exact' ? exactRows : grid ? grid.rows : Math.max(NEW_SHEET_ROWS, exactRows);
    sheet.maxColumns = grid === 'exact' ? exactCols : grid ? grid.columns : Math.max(NEW_SHEET_COLUMNS, exactCols);
    sheet.hidden = !!opts.hidden;
    if (opts.asText) sheet.formats = rows.map((r) => Array.from({ length: sheet.maxColumns }, () => PLAIN_TEXT));
    this.write(sheet, { row: 1, col: 1, rows: rows.length, cols: exactCols }, rows);
  }

  /** As getDataRange().getValues() reads it: the last row and column with content, every cell filled in. */
  values(name: string): unknown[][] {
    return this.dataGrid(name, (v) => (v instanceof Date ? new Date(v.getTime()) : v));
  }

  displayValues(name: string): string[][] {
    return this.dataGrid(name, (v, f) => displayValue(v, f));
  }

  numberFormats(name: string): string[][] {
    return this.dataGrid(name, (_v, f) => f ?? DEFAULT_FORMAT);
  }

  private dataGrid<T>(name: string, cell: (v: CellValue, format: string | undefined) => T): T[][] {
    const s = this.sheetNamed(name);
    const width = lastColumn(s);
    return Array.from({ length: lastRow(s) }, (_, i) =>
      Array.from({ length: width }, (_, j) => cell(s.cells[i]?.[j] ?? '', s.formats[i]?.[j])),
    );
  }

  sheetNames(): string[] {
    return this.sheets.map((s) => s.name);
  }

  insertRows(name: string, at: number, rows: unknown[][]): void {
    const s = this.sheetNamed(name);
    this.insertBlankRows(s, at - 1, rows.length);
    this.write(s, { row: at, col: 1, rows: rows.length, cols: Math.max(widest(rows), 1) }, rows);
  }

  deleteRows(name: string, at: number, count: number): void {
    const s = this.sheetNamed(name);
    s.cells.splice(at - 1, count);
    s.formats.splice(at - 1, count);
    s.formulas.splice(at - 1, count);
    s.maxRows -= Math.min(count, Math.max(0, s.maxRows - at + 1));
  }

  sortBy(name: string, column: number, ascending = true, headerRows = 1): void {
    const s = this.sheetNamed(name);
    const keep = s.cells.length;
    const idx = Array.from({ length: Math.max(0, keep - headerRows) }, (_, i) => i + headerRows);
    const key = (i: number) => s.cells[i]?.[column - 1] ?? '';
    idx.sort((a, b) => {
      const x = key(a);
      const y = key(b);
      // Sheets sorts empty cells last whichever the direction; numbers before text.
      if (x === '' || y === '') return x === y ? 0 : x === '' ? 1 : -1;
      const c = typeof x === typeof y ? (x < y ? -1 : x > y ? 1 : 0) : typeof x === 'number' ? -1 : 1;
      return ascending ? c : -c;
    });
    const pick = <T>(arr: T[]) => [...arr.slice(0, headerRows), ...idx.map((i) => arr[i] as T)];
    s.cells = pick(s.cells);
    s.formats = pick(s.formats);
    s.formulas = pick(s.formulas);
  }

  protectRange(name: string, a1: string, editors: string[] = []): void {
    const s = this.sheetNamed(name);
    const rect = parseA1(a1, s.maxRows, s.maxColumns);
    if (!rect) throw new Error(`not A1 notation: ${a1}`);
    this.protections.push({
      id: this.nextId++,
      sheetId: s.id,
      rect,
      editors: new Set([OWNER, ...editors]),
      warningOnly: false,
      description: '',
    });
  }

  share(user: string, role: 'view' | 'edit'): void {
    this.roles.set(user, role);
  }

  // ---- what the facades use ----

  /** A user nobody shared the file with is taken as an editor (the file is shared with the domain). */
  roleOf(user: string): 'owner' | 'view' | 'edit' {
    return user === OWNER ? 'owner' : (this.roles.get(user) ?? 'edit');
  }

  editors(): string[] {
    return [OWNER, ...[...this.roles].filter(([, r]) => r === 'edit').map(([u]) => u)];
  }

  viewers(): string[] {
    return [...this.roles].filter(([, r]) => r === 'view').map(([u]) => u);
  }

  sheetNamed(name: string): SheetData {
    const s = this.sheets.find((x) => x.name === name);
    if (!s) throw new Error(`no sheet named ${name}`);
    return s;
  }

  createSheet(name: string, index: number): SheetData {
    if (this.sheets.some((s) => s.name.toLowerCase() === name.toLowerCase())) throw new ScriptException(MESSAGES.sheetExists(name));
    const sheet: SheetData = {
      id: this.sheets.length ? this.nextId++ * 1000 + 7 : 0,
      name,
      maxRows: NEW_SHEET_ROWS,
      maxColumns: NEW_SHEET_COLUMNS,
      hidden: false,
      frozenRows: 0,
      cells: [],
      formats: [],
      formulas: [],
    };
    this.sheets.splice(index, 0, sheet);
    return sheet;
  }

  totalCells(): number {
    return this.sheets.reduce((n, s) => n + s.maxRows * s.maxColumns, 0);
  }

  /** Refuses a write the user may not make: a viewer anything, an editor a protected cell. */
  checkEdit(user: string, sheet: SheetData, rect?: Rect): void {
    const role = this.roleOf(user);
    if (role === 'view') throw new ScriptException(MESSAGES.noPermission);
    if (role === 'owner') return;
    for (const p of this.protections) {
      if (p.sheetId !== sheet.id || p.warningOnly || p.editors.has(user)) continue;
      if (!p.rect || !rect || overlaps(p.rect, rect)) throw new ScriptException(MESSAGES.protectedCell);
    }
  }

  /** Writes values as if typed (setValues); the caller has checked shape, bounds and rights. */
  write(sheet: SheetData, rect: Rect, rows: readonly unknown[][]): void {
    for (const r of rows)
      for (const v of r) if (typeof v === 'string' && v.length > CELL_CHAR_LIMIT) throw new ScriptException(MESSAGES.cellTooLong);
    for (let i = 0; i < rect.rows; i++) {
      const src = rows[i] ?? [];
      const y = rect.row - 1 + i;
      const cells = (sheet.cells[y] ??= []);
      while (cells.length < rect.col - 1) cells.push('');
      for (let j = 0; j < rect.cols; j++) {
        const x = rect.col - 1 + j;
        const format = sheet.formats[y]?.[x];
        const typed = typedValue(src[j], format);
        cells[x] = typed.value;
        setAt(sheet.formulas, y, x, typed.formula);
        if (typed.format && (format === undefined || format === DEFAULT_FORMAT)) setAt(sheet.formats, y, x, typed.format);
      }
    }
    trimRows(sheet);
  }

  insertBlankRows(sheet: SheetData, at0: number, n: number): void {
    for (const arr of [sheet.cells, sheet.formats, sheet.formulas] as unknown[][][]) {
      if (at0 < arr.length) arr.splice(at0, 0, ...Array.from({ length: n }, () => []));
    }
    sheet.maxRows += n;
    for (const p of this.protections)
      if (p.sheetId === sheet.id && p.rect && p.rect.row - 1 >= at0) p.rect = { ...p.rect, row: p.rect.row + n };
  }

  insertBlankColumns(sheet: SheetData, at0: number, n: number): void {
    for (const arr of [sheet.cells, sheet.formats, sheet.formulas] as unknown[][][]) {
      for (const r of arr) if (r && at0 < r.length) r.splice(at0, 0, ...Array.from({ length: n }, () => undefined));
    }
    for (const r of sheet.cells) if (r) for (let j = 0; j < r.length; j++) if (r[j] === undefined) r[j] = '';
    sheet.maxColumns += n;
    for (const p of this.protections)
      if (p.sheetId === sheet.id && p.rect && p.rect.col - 1 >= at0) p.rect = { ...p.rect, col: p.rect.col + n };
  }
}

const overlaps = (a: Rect, b: Rect) => a.row < b.row + b.rows && b.row < a.row + a.rows && a.col < b.col + b.cols && b.col < a.col + a.cols;

function setAt<T>(grid: (T | undefined)[][], y: number, x: number, v: T | undefined): void {
  if (v === undefined && grid[y]?.[x] === undefined) return;
  (grid[y] ??= [])[x] = v;
}

/** Drops trailing empty rows so that the last row with content is the last one held. */
function trimRows(sheet: SheetData): void {
  while (sheet.cells.length && (sheet.cells[sheet.cells.length - 1] ?? []).every((v) => v === '' || v === undefined)) sheet.cells.pop();
}

/** The last row (1-based) that holds a value; 0 when the sheet is empty. */
export function lastRow(sheet: SheetData): number {
  return sheet.cells.length;
}

export function lastColumn(sheet: SheetData): number {
  let w = 0;
  for (const r of sheet.cells) if (r) for (let j = r.length - 1; j >= w; j--) if (r[j] !== '' && r[j] !== undefined) w = j + 1;
  return w;
}

/** The typed value of a cell (1-based). */
export const cellAt = (sheet: SheetData, row: number, col: number): CellValue => sheet.cells[row - 1]?.[col - 1] ?? '';
