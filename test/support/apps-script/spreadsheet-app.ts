/** SpreadsheetApp, Spreadsheet, Sheet, Range, Protection, User: Google's reference, over the world's one spreadsheet. */
import { parseA1, splitSheetName, toA1, type Rect } from './a1';
import { MESSAGES, ScriptException } from './errors';
import { SCOPES, type Exec } from './execution-context';
import { Facade } from './facade';
import { cellAt, lastColumn, lastRow, MAX_CELLS, type ProtectionData, type SheetData } from './spreadsheet-model';
import { DEFAULT_FORMAT, displayValue, type CellValue } from './typed-values';
import { UiFacade } from './ui';

const SHEET_SCOPES = [SCOPES.currentOnly, SCOPES.spreadsheets];
const signature = (service: string, method: string, args: unknown[]) =>
  new ScriptException(MESSAGES.signature(`SpreadsheetApp.${service}`, method, args));
const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

export class UserFacade extends Facade {
  readonly _type = 'User';
  constructor(private email: string) {
    super();
  }
  getEmail(): string {
    return this.email;
  }
  toString(): string {
    return this.email;
  }
}

export class SpreadsheetAppService extends Facade {
  readonly _type = 'SpreadsheetApp';
  constructor(private x: Exec) {
    super();
  }
  override _props() {
    return { ProtectionType: { RANGE: 'RANGE', SHEET: 'SHEET' } };
  }
  getActiveSpreadsheet(): SpreadsheetFacade {
    this.x.require('SpreadsheetApp.getActiveSpreadsheet', SHEET_SCOPES);
    return new SpreadsheetFacade(this.x);
  }
  getActive(): SpreadsheetFacade {
    return this.getActiveSpreadsheet();
  }
  getActiveSheet(): SheetFacade {
    return this.getActiveSpreadsheet().getActiveSheet();
  }
  getUi(): UiFacade {
    if (this.x.trigger) throw new ScriptException(MESSAGES.uiContext);
    return new UiFacade(this.x);
  }
  flush(): void {}
  openById(id: string): SpreadsheetFacade {
    if (!this.x.world.scopes || this.x.world.scopes.includes(SCOPES.spreadsheets)) {
      if (id === this.x.world.spreadsheet.id) return new SpreadsheetFacade(this.x);
      throw new ScriptException(`Unexpected error while getting the method or property openById on object SpreadsheetApp.`);
    }
    throw new ScriptException(MESSAGES.notPermittedCall('SpreadsheetApp.openById', SCOPES.spreadsheets));
  }
}

export class SpreadsheetFacade extends Facade {
  readonly _type = 'Spreadsheet';
  constructor(private x: Exec) {
    super();
  }
  private get ss() {
    return this.x.world.spreadsheet;
  }
  getId(): string {
    return this.ss.id;
  }
  getName(): string {
    return this.ss.name;
  }
  getUrl(): string {
    return `https://docs.google.com/spreadsheets/d/${this.ss.id}/edit`;
  }
  getSpreadsheetTimeZone(): string {
    return this.ss.timeZone;
  }
  getSpreadsheetLocale(): string {
    return 'en_US';
  }
  getSheets(): SheetFacade[] {
    return this.ss.sheets.map((s) => new SheetFacade(this.x, s));
  }
  getNumSheets(): number {
    return this.ss.sheets.length;
  }
  getSheetByName(name: string): SheetFacade | null {
    const s = this.ss.sheets.find((x) => x.name === name);
    return s ? new SheetFacade(this.x, s) : null;
  }
  getSheetById(id: number): SheetFacade | null {
    const s = this.ss.sheets.find((x) => x.id === id);
    return s ? new SheetFacade(this.x, s) : null;
  }
  /** Menu and sidebar runs: the sheet the user has open; inside a trigger, the first sheet. */
  getActiveSheet(): SheetFacade {
    const name = this.x.trigger ? undefined : this.x.activeSheet;
    const s = (name && this.ss.sheets.find((x) => x.name === name)) || this.ss.sheets[0];
    if (!s) throw new ScriptException('The spreadsheet has no sheet.');
    return new SheetFacade(this.x, s);
  }
  setActiveSheet(sheet: SheetFacade): SheetFacade {
    return sheet;
  }
  getRange(a1: string): RangeFacade {
    if (typeof a1 !== 'string') throw signature('Spreadsheet', 'getRange', [a1]);
    const { sheet, a1: cells } = splitSheetName(a1);
    const s = sheet === undefined ? this.getActiveSheet() : this.getSheetByName(sheet);
    if (!s) throw new ScriptException(MESSAGES.rangeNotFound);
    return s.getRange(cells);
  }
  insertSheet(...args: unknown[]): SheetFacade {
    const name = typeof args[0] === 'string' ? args[0] : undefined;
    const index = typeof args[0] === 'number' ? args[0] : typeof args[1] === 'number' ? args[1] : this.ss.sheets.length;
    this.checkStructure();
    if (this.ss.totalCells() + 1000 * 26 > MAX_CELLS) throw new ScriptException(MESSAGES.cellLimit);
    const sheet = this.ss.createSheet(name ?? this.freeName(), Math.min(index, this.ss.sheets.length));
    return new SheetFacade(this.x, sheet);
  }
  deleteSheet(sheet: SheetFacade): void {
    this.checkStructure();
    const data = sheet._data;
    if (!this.ss.sheets.some((s) => s !== data && !s.hidden)) throw new ScriptException(MESSAGES.lastVisibleSheet);
    this.ss.sheets = this.ss.sheets.filter((s) => s !== data);
    this.ss.protections = this.ss.protections.filter((p) => p.sheetId !== data.id);
  }
  getProtections(type: string): ProtectionFacade[] {
    return this.ss.protections.filter((p) => (type === 'SHEET') === !p.rect).map((p) => new ProtectionFacade(this.x, p));
  }
  getOwner(): UserFacade {
    return new UserFacade(this.ss.owner);
  }
  getEditors(): UserFacade[] {
    return this.ss.editors().map((e) => new UserFacade(e));
  }
  getViewers(): UserFacade[] {
    return [...this.ss.editors(), ...this.ss.viewers()].map((e) => new UserFacade(e));
  }
  toast(msg: unknown, title?: unknown): void {
    this.x.world.ui.toasts.push(title === undefined ? String(msg) : `${String(title)}: ${String(msg)}`);
  }
  private checkStructure(): void {
    if (this.ss.roleOf(this.x.user) === 'view') throw new ScriptException(MESSAGES.noPermission);
  }
  private freeName(): string {
    for (let i = this.ss.sheets.length + 1; ; i++) if (!this.ss.sheets.some((s) => s.name === `Sheet${i}`)) return `Sheet${i}`;
  }
}

export class SheetFacade extends Facade {
  readonly _type = 'Sheet';
  constructor(
    private x: Exec,
    readonly _data: SheetData,
  ) {
    super();
  }
  private get ss() {
    return this.x.world.spreadsheet;
  }
  getName(): string {
    return this._data.name;
  }
  setName(name: string): SheetFacade {
    this.edit();
    if (this.ss.sheets.some((s) => s !== this._data && s.name.toLowerCase() === String(name).toLowerCase()))
      throw new ScriptException(MESSAGES.sheetExists(name));
    this._data.name = String(name);
    return this;
  }
  getSheetId(): number {
    return this._data.id;
  }
  getIndex(): number {
    return this.ss.sheets.indexOf(this._data) + 1;
  }
  getParent(): SpreadsheetFacade {
    return new SpreadsheetFacade(this.x);
  }
  getMaxRows(): number {
    return this._data.maxRows;
  }
  getMaxColumns(): number {
    return this._data.maxColumns;
  }
  getLastRow(): number {
    return lastRow(this._data);
  }
  getLastColumn(): number {
    return lastColumn(this._data);
  }
  getFrozenRows(): number {
    return this._data.frozenRows;
  }
  setFrozenRows(rows: number): void {
    this.edit();
    this._data.frozenRows = rows;
  }
  isSheetHidden(): boolean {
    return this._data.hidden;
  }
  hideSheet(): SheetFacade {
    this.edit();
    if (!this.ss.sheets.some((s) => s !== this._data && !s.hidden)) throw new ScriptException(MESSAGES.lastVisibleSheet);
    this._data.hidden = true;
    return this;
  }
  showSheet(): SheetFacade {
    this.edit();
    this._data.hidden = false;
    return this;
  }
  activate(): SheetFacade {
    return this;
  }
  /** getRange(a1) | getRange(row, column) | getRange(row, column, numRows) | getRange(row, column, numRows, numColumns) */
  getRange(...args: unknown[]): RangeFacade {
    const s = this._data;
    if (args.length === 1 && typeof args[0] === 'string') {
      const rect = parseA1(args[0], s.maxRows, s.maxColumns);
      if (!rect) throw new ScriptException(MESSAGES.rangeNotFound);
      return this.rangeAt(rect);
    }
    if (args.length < 2 || args.length > 4 || !args.every(isInt)) throw signature('Sheet', 'getRange', args);
    const [row, col, rows = 1, cols = 1] = args as number[];
    return this.rangeAt({ row: row as number, col: col as number, rows, cols });
  }
  getDataRange(): RangeFacade {
    return this.rangeAt({ row: 1, col: 1, rows: Math.max(1, lastRow(this._data)), cols: Math.max(1, lastColumn(this._data)) });
  }
  getSheetValues(row: number, col: number, rows: number, cols: number): CellValue[][] {
    return this.getRange(
      row,
      col,
      rows === -1 ? lastRow(this._data) - row + 1 : rows,
      cols === -1 ? lastColumn(this._data) - col + 1 : cols,
    ).getValues();
  }
  /** Checked as Google checks a range: starts at 1, at least one row and column, inside the grid. */
  _rect(rect: Rect): Rect {
    if (rect.row < 1) throw new ScriptException(MESSAGES.startRowTooSmall);
    if (rect.col < 1) throw new ScriptException(MESSAGES.startColumnTooSmall);
    if (rect.rows < 1) throw new ScriptException(MESSAGES.rowsAtLeastOne);
    if (rect.cols < 1) throw new ScriptException(MESSAGES.columnsAtLeastOne);
    if (rect.row + rect.rows - 1 > this._data.maxRows || rect.col + rect.cols - 1 > this._data.maxColumns)
      throw new ScriptException(MESSAGES.outsideSheet);
    return rect;
  }
  private rangeAt(rect: Rect): RangeFacade {
    return new RangeFacade(this.x, this, this._rect(rect));
  }
  insertColumnsAfter(after: number, howMany: number): SheetFacade {
    return this.insertColumnsAt(after, howMany, 'insertColumnsAfter');
  }
  insertColumnsBefore(before: number, howMany: number): SheetFacade {
    return this.insertColumnsAt(before - 1, howMany, 'insertColumnsBefore');
  }
  insertColumns(before: number, howMany = 1): void {
    this.insertColumnsAt(before - 1, howMany, 'insertColumns');
  }
  insertRowsAfter(after: number, howMany: number): SheetFacade {
    return this.insertRowsAt(after, howMany, 'insertRowsAfter');
  }
  insertRowsBefore(before: number, howMany: number): SheetFacade {
    return this.insertRowsAt(before - 1, howMany, 'insertRowsBefore');
  }
  insertRows(before: number, howMany = 1): void {
    this.insertRowsAt(before - 1, howMany, 'insertRows');
  }
  private insertColumnsAt(at0: number, n: number, method: string): SheetFacade {
    if (!isInt(at0) || !isInt(n)) throw signature('Sheet', method, [at0, n]);
    if (at0 < 0 || at0 > this._data.maxColumns) throw new ScriptException(MESSAGES.outsideSheet);
    this.edit();
    this.cellLimit(this._data.maxRows * n);
    this.ss.insertBlankColumns(this._data, at0, n);
    return this;
  }
  private insertRowsAt(at0: number, n: number, method: string): SheetFacade {
    if (!isInt(at0) || !isInt(n)) throw signature('Sheet', method, [at0, n]);
    if (at0 < 0 || at0 > this._data.maxRows) throw new ScriptException(MESSAGES.outsideSheet);
    this.edit();
    this.cellLimit(this._data.maxColumns * n);
    this.ss.insertBlankRows(this._data, at0, n);
    return this;
  }
  deleteRows(position: number, howMany: number): void {
    this.edit({ row: position, col: 1, rows: howMany, cols: this._data.maxColumns });
    this._rect({ row: position, col: 1, rows: howMany, cols: 1 });
    this.ss.deleteRows(this._data.name, position, howMany);
  }
  deleteRow(position: number): SheetFacade {
    this.deleteRows(position, 1);
    return this;
  }
  appendRow(rowContents: unknown[]): SheetFacade {
    if (!Array.isArray(rowContents)) throw signature('Sheet', 'appendRow', [rowContents]);
    const row = lastRow(this._data) + 1;
    const cols = Math.max(1, rowContents.length);
    this.edit({ row, col: 1, rows: 1, cols });
    if (row > this._data.maxRows) this.ss.insertBlankRows(this._data, this._data.maxRows, 1);
    if (cols > this._data.maxColumns) this.ss.insertBlankColumns(this._data, this._data.maxColumns, cols - this._data.maxColumns);
    this.ss.write(this._data, { row, col: 1, rows: 1, cols }, [rowContents]);
    return this;
  }
  clear(): SheetFacade {
    this.clearContents();
    this._data.formats = [];
    return this;
  }
  clearContents(): SheetFacade {
    this.edit({ row: 1, col: 1, rows: this._data.maxRows, cols: this._data.maxColumns });
    this._data.cells = [];
    this._data.formulas = [];
    return this;
  }
  protect(): ProtectionFacade {
    return protect(this.x, this._data);
  }
  getProtections(type: string): ProtectionFacade[] {
    return this.ss.protections
      .filter((p) => p.sheetId === this._data.id && (type === 'SHEET') === !p.rect)
      .map((p) => new ProtectionFacade(this.x, p));
  }
  /** Refuses the edit as Google does (a viewer: anything; an editor: a protected cell). */
  edit(rect?: Rect): void {
    this.ss.checkEdit(this.x.user, this._data, rect);
  }
  private cellLimit(more: number): void {
    if (this.ss.totalCells() + more > MAX_CELLS) throw new ScriptException(MESSAGES.cellLimit);
  }
}

function protect(x: Exec, sheet: SheetData, rect?: Rect): ProtectionFacade {
  const ss = x.world.spreadsheet;
  ss.checkEdit(x.user, sheet, rect);
  const p: ProtectionData = {
    id: ss.protections.length + 1000,
    sheetId: sheet.id,
    rect,
    editors: new Set([ss.owner, x.user]),
    warningOnly: false,
    description: '',
  };
  ss.protections.push(p);
  return new ProtectionFacade(x, p);
}

export class RangeFacade extends Facade {
  readonly _type = 'Range';
  constructor(
    private x: Exec,
    private sheet: SheetFacade,
    private rect: Rect,
  ) {
    super();
  }
  private get data() {
    return this.sheet._data;
  }
  private grid<T>(cell: (row: number, col: number) => T): T[][] {
    const { row, col, rows, cols } = this.rect;
    return Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => cell(row + i, col + j)));
  }
  getRow(): number {
    return this.rect.row;
  }
  getColumn(): number {
    return this.rect.col;
  }
  getNumRows(): number {
    return this.rect.rows;
  }
  getNumColumns(): number {
    return this.rect.cols;
  }
  getHeight(): number {
    return this.rect.rows;
  }
  getWidth(): number {
    return this.rect.cols;
  }
  getLastRow(): number {
    return this.rect.row + this.rect.rows - 1;
  }
  getLastColumn(): number {
    return this.rect.col + this.rect.cols - 1;
  }
  getA1Notation(): string {
    return toA1(this.rect);
  }
  getSheet(): SheetFacade {
    return this.sheet;
  }
  getCell(row: number, column: number): RangeFacade {
    if (row > this.rect.rows || column > this.rect.cols) throw new ScriptException(MESSAGES.outsideSheet);
    return new RangeFacade(
      this.x,
      this.sheet,
      this.sheet._rect({ row: this.rect.row + row - 1, col: this.rect.col + column - 1, rows: 1, cols: 1 }),
    );
  }
  offset(rowOffset: number, columnOffset: number, numRows?: number, numColumns?: number): RangeFacade {
    const r = this.rect;
    const rect = { row: r.row + rowOffset, col: r.col + columnOffset, rows: numRows ?? r.rows, cols: numColumns ?? r.cols };
    return new RangeFacade(this.x, this.sheet, this.sheet._rect(rect));
  }
  getValues(): CellValue[][] {
    return this.grid((r, c) => cellAt(this.data, r, c));
  }
  getValue(): CellValue {
    return cellAt(this.data, this.rect.row, this.rect.col);
  }
  getDisplayValues(): string[][] {
    return this.grid((r, c) => displayValue(cellAt(this.data, r, c), this.data.formats[r - 1]?.[c - 1]));
  }
  getDisplayValue(): string {
    return displayValue(this.getValue(), this.data.formats[this.rect.row - 1]?.[this.rect.col - 1]);
  }
  getFormulas(): string[][] {
    return this.grid((r, c) => this.data.formulas[r - 1]?.[c - 1] ?? '');
  }
  getFormula(): string {
    return this.data.formulas[this.rect.row - 1]?.[this.rect.col - 1] ?? '';
  }
  getNumberFormats(): string[][] {
    return this.grid((r, c) => this.data.formats[r - 1]?.[c - 1] ?? DEFAULT_FORMAT);
  }
  getNumberFormat(): string {
    return this.data.formats[this.rect.row - 1]?.[this.rect.col - 1] ?? DEFAULT_FORMAT;
  }
  setValues(values: unknown): RangeFacade {
    if (!Array.isArray(values) || !values.every(Array.isArray)) throw signature('Range', 'setValues', [values]);
    const rows = values as unknown[][];
    if (rows.length !== this.rect.rows) throw new ScriptException(MESSAGES.rowsMismatch(rows.length, this.rect.rows));
    const bad = rows.find((r) => r.length !== this.rect.cols);
    if (bad) throw new ScriptException(MESSAGES.columnsMismatch(bad.length, this.rect.cols));
    this.sheet.edit(this.rect);
    this.x.world.spreadsheet.write(this.data, this.rect, rows);
    return this;
  }
  setValue(value: unknown): RangeFacade {
    this.sheet.edit(this.rect);
    this.x.world.spreadsheet.write(
      this.data,
      this.rect,
      Array.from({ length: this.rect.rows }, () => Array(this.rect.cols).fill(value)),
    );
    return this;
  }
  setNumberFormat(format: string): RangeFacade {
    if (typeof format !== 'string') throw signature('Range', 'setNumberFormat', [format]);
    return this.setNumberFormats(Array.from({ length: this.rect.rows }, () => Array(this.rect.cols).fill(format)));
  }
  setNumberFormats(formats: unknown): RangeFacade {
    if (!Array.isArray(formats) || !formats.every(Array.isArray)) throw signature('Range', 'setNumberFormats', [formats]);
    const rows = formats as unknown[][];
    if (rows.length !== this.rect.rows) throw new ScriptException(MESSAGES.rowsMismatch(rows.length, this.rect.rows));
    const bad = rows.find((r) => r.length !== this.rect.cols);
    if (bad) throw new ScriptException(MESSAGES.columnsMismatch(bad.length, this.rect.cols));
    this.sheet.edit(this.rect);
    rows.forEach((r, i) =>
      r.forEach((f, j) => {
        (this.data.formats[this.rect.row - 1 + i] ??= [])[this.rect.col - 1 + j] = String(f);
      }),
    );
    return this;
  }
  clearContent(): RangeFacade {
    this.sheet.edit(this.rect);
    this.x.world.spreadsheet.write(this.data, this.rect, []);
    return this;
  }
  clear(): RangeFacade {
    this.clearContent();
    for (let i = 0; i < this.rect.rows; i++) {
      const f = this.data.formats[this.rect.row - 1 + i];
      if (f) for (let j = 0; j < this.rect.cols; j++) f[this.rect.col - 1 + j] = undefined;
    }
    return this;
  }
  protect(): ProtectionFacade {
    return protect(this.x, this.data, this.rect);
  }
}

export class ProtectionFacade extends Facade {
  readonly _type = 'Protection';
  constructor(
    private x: Exec,
    private p: ProtectionData,
  ) {
    super();
  }
  private change(): void {
    if (!this.canEdit()) throw new ScriptException(MESSAGES.noPermission);
  }
  canEdit(): boolean {
    return this.x.user === this.x.world.spreadsheet.owner || this.p.editors.has(this.x.user);
  }
  getEditors(): UserFacade[] {
    return [...this.p.editors].map((e) => new UserFacade(e));
  }
  addEditor(user: unknown): ProtectionFacade {
    this.change();
    this.p.editors.add(user instanceof UserFacade ? user.getEmail() : String(user));
    return this;
  }
  addEditors(emails: string[]): ProtectionFacade {
    for (const e of emails) this.addEditor(e);
    return this;
  }
  removeEditor(user: unknown): ProtectionFacade {
    this.change();
    this.p.editors.delete(user instanceof UserFacade ? user.getEmail() : String(user));
    return this;
  }
  removeEditors(emails: string[]): ProtectionFacade {
    for (const e of emails) this.removeEditor(e);
    return this;
  }
  setDescription(d: string): ProtectionFacade {
    this.change();
    this.p.description = String(d);
    return this;
  }
  getDescription(): string {
    return this.p.description;
  }
  setWarningOnly(w: boolean): ProtectionFacade {
    this.change();
    this.p.warningOnly = !!w;
    return this;
  }
  isWarningOnly(): boolean {
    return this.p.warningOnly;
  }
  getProtectionType(): string {
    return this.p.rect ? 'RANGE' : 'SHEET';
  }
  getRange(): RangeFacade {
    const ss = this.x.world.spreadsheet;
    const data = ss.sheets.find((s) => s.id === this.p.sheetId);
    if (!data) throw new ScriptException(MESSAGES.rangeNotFound);
    const sheet = new SheetFacade(this.x, data);
    return this.p.rect ? sheet.getRange(this.p.rect.row, this.p.rect.col, this.p.rect.rows, this.p.rect.cols) : sheet.getDataRange();
  }
  remove(): void {
    this.change();
    const ss = this.x.world.spreadsheet;
    ss.protections = ss.protections.filter((q) => q !== this.p);
  }
}
