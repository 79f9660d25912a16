import type { QueryReading } from '../../lookup';
import { sameQuery } from '../../lookup';
import type { CellWrite, ColumnsView, Table } from '../table/table';
import { placeColumnsFor, type Layout } from './layout';
import { SheetsError } from '../errors';

/** Rows as a save found them, in Lay's column numbers, and where each column is in the sheet now. */
export interface SheetView {
  rows: string[][];
  /** Lay column → the sheet's column once this view's header writes are made; -1 when the sheet has none of that name. */
  place: Map<number, number>;
  /** Headers of our columns the sheet lacks, placed after its last column. */
  headerWrites: CellWrite[];
  /** The sheet column a Lay column is written to. */
  at(col: number): number;
}

/** Reading a sheet others edit again: where our columns and rows are now, and whether they moved under a write. */
export class FollowedSheet {
  constructor(
    private readonly Lay: Layout,
    private readonly read: NonNullable<Table['readColumns']>,
    private readonly readMemo: (q: string) => QueryReading,
  ) {}

  /**
   * Whether, since the view the last write was worked from, a written row holds another key now or a column
   * of ours or the key's is elsewhere (a colleague's sort, insert or delete in the write window).
   */
  async movedSince(last: SheetView, intended: ReadonlyMap<number, string>): Promise<boolean> {
    const Lay = this.Lay;
    const keyAt = last.at(Lay.keyCol);
    const got = await this.read([keyAt]);
    // Columns found where the last view put them, by the same rule readView places them.
    const cols = [Lay.keyCol, ...Lay.ourCols].filter((c) => last.at(c) >= 0);
    const found = placeColumnsFor(Lay)(got.header, cols, last.place);
    if (cols.some((c) => found.get(c) !== last.at(c))) return true;
    const keys = got.columns.get(keyAt) ?? [];
    for (const [i, key] of intended) if ((keys[i] ?? '') !== key) return true;
    return false;
  }

  /**
   * Where the key column and our columns are now (by their headers: a colleague may have inserted a
   * column), and their values in every row: one readColumns request, a second when columns moved.
   */
  async readView(last: SheetView | undefined): Promise<SheetView> {
    const Lay = this.Lay;
    const wanted = [Lay.keyCol, ...Lay.ourCols, ...(Lay.legacy ? Lay.legacy.cols : [])];
    let place: ReadonlyMap<number, number> = last?.place ?? new Map(wanted.map((c) => [c, c < Lay.width ? c : -1]));
    for (let attempt = 0; ; attempt++) {
      const asked = [...new Set([...place.values()].filter((c) => c >= 0))];
      const got = await this.read(asked);
      const found = placeColumnsFor(Lay)(got.header, wanted, place);
      if (found.get(Lay.keyCol)! < 0)
        throw new SheetsError({
          code: 'key_column_gone',
          field: 'column',
          rule: `the key column "${Lay.header[Lay.keyCol]}" is no longer in the sheet (renamed or deleted while enrich ran); nothing more was written`,
          hint: 'The answers paid for are kept: run again, they are free then.',
        });
      const stale = wanted.some((c) => found.get(c)! >= 0 && found.get(c) !== place.get(c));
      if (stale && attempt < 2) {
        place = found;
        continue;
      }
      if (stale)
        throw new SheetsError({
          code: 'columns_moving',
          field: 'column',
          rule: 'the columns kept moving while enrich saved',
          hint: 'Run again when the sheet is left alone (answers paid for are free then).',
        });
      return this.sheetView(got, found, wanted);
    }
  }

  /** The view of one read, in Lay's column numbers; our columns missing from the sheet get places after its last column. */
  private sheetView(got: ColumnsView, place: ReadonlyMap<number, number>, wanted: number[]): SheetView {
    let n = 0;
    for (const c of wanted) n = Math.max(n, got.columns.get(place.get(c)!)?.length ?? 0);
    const rows: string[][] = Array.from({ length: n }, () => []);
    for (const c of wanted) {
      const values = got.columns.get(place.get(c)!);
      if (place.get(c)! < 0 || !values) continue;
      values.forEach((v, i) => (rows[i]![c] = v));
    }
    const headerWrites: CellWrite[] = [];
    const target = new Map(place);
    let end = got.header.length;
    for (const c of this.Lay.ourCols)
      if (place.get(c)! < 0) {
        target.set(c, end);
        headerWrites.push({ row: 0, col: end++, value: this.Lay.header[c]! });
      }
    return { rows, place: target, headerWrites, at: (c) => target.get(c) ?? -1 };
  }

  /** Our columns' cells by key, from rows whose cells are their own key's (query = key, a final answer). */
  cellsByKey(view: SheetView): (key: string) => string[] | undefined {
    const Lay = this.Lay;
    // Built at once, so the view's rows can go: one entry per distinct key, not per row.
    const index = new Map<string, string[]>();
    for (const row of view.rows) {
      const q = row[Lay.queryCol] ?? '';
      const k = row[Lay.keyCol] ?? '';
      const r = this.readMemo(k);
      if (q === '' || r.status !== 'send' || !sameQuery(q, k) || (row[Lay.atCol] ?? '') === '') continue;
      if (!index.has(r.key))
        index.set(
          r.key,
          Lay.ourCols.map((c) => row[c] ?? ''),
        );
    }
    return (key) => index.get(key);
  }
}
