/**
 * A colleague editing the stand-in's sheet while a run is writing it, as people do in a shared Google
 * sheet: insert a row, delete a row, sort the rows by a column, type into a cell. Each act can be timed
 * to land just before the nth request of a kind (say between the run's re-read and its write), through
 * the stand-in's beforeRequest hook; what Google would do to the grid is done to the stand-in's cells.
 */
import type { Cell, Sheet, SheetsStandin } from './sheets-standin';

export type RequestName =
  | 'spreadsheets.get'
  | 'spreadsheets.batchUpdate'
  | 'values.get'
  | 'values.batchGet'
  | 'values.batchUpdate'
  | 'values.append'
  | 'values.update';

/** The API method of a stand-in request, from its HTTP method and path. */
export function requestName(httpMethod: string, path: string): RequestName {
  if (path.endsWith('/values:batchUpdate')) return 'values.batchUpdate';
  if (path.endsWith('/values:batchGet')) return 'values.batchGet';
  if (path.endsWith(':batchUpdate')) return 'spreadsheets.batchUpdate';
  if (path.includes('/values/')) return path.endsWith(':append') ? 'values.append' : httpMethod === 'GET' ? 'values.get' : 'values.update';
  return 'spreadsheets.get';
}

const text = (c: Cell | undefined) => (c === undefined ? '' : String(c.v));

export class Colleague {
  /** What the colleague did, in order: so a test can check the act really happened. */
  readonly done: string[] = [];

  constructor(
    private readonly standin: SheetsStandin,
    readonly spreadsheetId: string,
    readonly title: string,
  ) {}

  private get sheet(): Sheet {
    const s = this.standin.spreadsheets.get(this.spreadsheetId)?.sheets.find((x) => x.title === this.title);
    if (!s) throw new Error(`colleague: no sheet "${this.title}" in ${this.spreadsheetId}`);
    return s;
  }

  /** Inserts a row at sheet row `row` (1-based: 2 is the first under the header); the rows below move down. */
  insertRow(row: number, values: string[]): void {
    const s = this.sheet;
    s.cells.splice(
      row - 1,
      0,
      values.map((v) => (v === '' ? undefined : { v })),
    );
    s.rowCount++;
    this.done.push(`insert row ${row}`);
  }

  /** Deletes sheet row `row`; the rows below move up. */
  deleteRow(row: number): void {
    const s = this.sheet;
    s.cells.splice(row - 1, 1);
    s.rowCount--;
    this.done.push(`delete row ${row}`);
  }

  /** Sorts the rows under the header by a column's text (Data → Sort range): stable, empty cells last. */
  sortBy(col: number, direction: 'asc' | 'desc' = 'asc'): void {
    const s = this.sheet;
    const rows = s.cells.slice(1);
    const sign = direction === 'asc' ? 1 : -1;
    rows.sort((a, b) => {
      const x = text(a?.[col]);
      const y = text(b?.[col]);
      if (x === '' || y === '') return (x === '' ? 1 : 0) - (y === '' ? 1 : 0);
      return sign * x.localeCompare(y, 'en', { numeric: true });
    });
    s.cells.splice(1, rows.length, ...rows);
    this.done.push(`sort by column ${col + 1} ${direction}`);
  }

  /** Types a value into a cell (A1 notation); '' empties it. */
  edit(a1: string, value: string): void {
    const m = /^([A-Z]+)(\d+)$/.exec(a1);
    if (!m) throw new Error(`colleague: "${a1}" is not a cell`);
    const col = [...m[1]!].reduce((n, ch) => n * 26 + ch.charCodeAt(0) - 64, 0) - 1;
    const row = (this.sheet.cells[Number(m[2]) - 1] ??= []);
    row[col] = value === '' ? undefined : { v: value };
    this.done.push(`edit ${a1}`);
  }

  /** Does `act` once, just before the nth request named `name` to this spreadsheet is served. */
  before(name: RequestName, act: (c: this) => void, nth = 1): void {
    let seen = 0;
    const hook = (req: { httpMethod: string; path: string; spreadsheetId: string }) => {
      if (req.spreadsheetId !== this.spreadsheetId || requestName(req.httpMethod, req.path) !== name || ++seen !== nth) return;
      this.standin.beforeRequest.splice(this.standin.beforeRequest.indexOf(hook), 1);
      act(this);
    };
    this.standin.beforeRequest.push(hook);
  }
}
