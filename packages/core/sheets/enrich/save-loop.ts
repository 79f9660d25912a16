import type { QueryReading } from '../../lookup';
import { sameQuery } from '../../lookup';
import type { SheetsClock } from '../ports';
import type { CellWrite, ColumnsView, Table, TableSnapshot } from '../table/table';
import { placeColumnsFor, type Layout } from './layout';
import { newStopper } from '../../web-free';
import type { RowEdits } from './row-edits';
import type { EnrichRun } from './run-state';
import { SheetsError } from '../errors';

/** Saves in a row that found rows moved under them (a colleague sorting while we write) before the run waits a whole save gap again. */
const MAX_REPAIRS = 3;

/** What the save loop works with. */
export interface SaveScope {
  run: EnrichRun;
  L: Layout;
  edits: RowEdits;
  clock: SheetsClock;
  /** The table as pass 1 read it (a table only this run writes is worked from it). */
  snapshot: TableSnapshot | undefined;
  read: (q: string) => QueryReading;
}

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

/**
 * A whole table (XLSX, Google Sheets, memory) is saved every saveEveryMs while answers arrive, and
 * once at the end. Each save works out every row's cells from the row as it is at that moment: a
 * table others edit (Google Sheets: readColumns) is read again first (header, key column, our
 * columns; one request), so cells go to the row that holds the key now and to our columns wherever
 * they are, and read again after the write, to catch rows that moved between the two (Google has no
 * conditional write): those are saved again at once. A table only this run writes is worked from
 * what was read, each row once.
 */
export async function saveWholeTable(s: SaveScope): Promise<void> {
  const { run, L: Lay, edits, clock } = s;
  const table = run.opts.table;
  const { readView, movedSince, cellsByKey } = followers(s);
  const follow = table.readColumns?.bind(table);
  const every = run.opts.flushEveryMs ?? table.saveEveryMs ?? 1_000;
  let lastSave = clock.now();
  let lastCost = 0;
  // A save that blocks the event loop (an XLSX file written) holds up the limiter's timers with it; spacing saves by
  // 50x the time they block keeps that under 2%. Only the blocked time counts: a Google sheet's save mostly waits on
  // the network, and spacing by its round trip would let a refused save go unnoticed (and paid for) far longer.
  // On a sheet others edit, a refused save must be seen soon (each answer after it is paid for in vain): there the
  // stretch is capped at 2 s, whatever the save cost (a stand-in in the same process makes its work look like ours).
  const gap = () => Math.max(every, follow ? Math.min(50 * lastCost, 2_000) : 50 * lastCost);
  // A sheet others edit is worked from what each save reads again: the whole-sheet read of pass 1 is let go.
  const local = follow ? [] : (s.snapshot?.rows ?? []);
  if (follow) s.snapshot = undefined;
  let pending = local.map((_, i) => i);
  let headerDone = false;
  let seen = -1;
  let next: SheetView | undefined;
  /** The view read before the last write, kept as where its columns were and its cells by key (not its rows). */
  let before: SheetView | undefined;
  let beforeCells: ((key: string) => string[] | undefined) | undefined;
  const keep = (v: SheetView) => {
    beforeCells = cellsByKey(v);
    before = { ...v, rows: [] };
  };
  let repairs = 0;
  let finalRounds = 0;
  let kept = 0;
  for (;;) {
    if (!next) {
      // Wait for news, then for the save gap; or for the end.
      await untilSaveDue(s, () => (run.outcomes.size !== seen ? lastSave + gap() : Infinity));
    }
    run.check();
    const final = run.allOver;
    seen = run.outcomes.size;
    let view = follow ? (next ?? (await readView(follow, before))) : undefined;
    next = undefined;
    if (view) edits.knownCells = beforeCells ?? cellsByKey(view);
    let rows = view ? view.rows : local;
    const at = view ? view.at : (col: number) => col;
    let writes: CellWrite[] = [];
    const intended = new Map<number, string>();
    let waiting = false;
    let leftAlone = 0;
    let roundKept = 0;
    const still: number[] = [];
    const indices = view ? rows.keys() : pending;
    for (const i of indices) {
      const row = rows[i]!;
      const r = edits.editsFor(row, final);
      if (r.waiting) {
        waiting = true;
        still.push(i);
        continue;
      }
      roundKept += r.kept;
      if (r.leftAlone) leftAlone++;
      if (!r.edits?.length) continue;
      for (const [col, value] of r.edits) if (at(col) >= 0) writes.push({ row: i + 1, col: at(col), value });
      if (view) intended.set(i, row[Lay.keyCol] ?? '');
      if (writes.length >= 50_000) {
        await table.write(writes);
        writes = [];
      }
    }
    pending = still;
    if (view) writes.push(...view.headerWrites);
    else if (!headerDone) {
      headerDone = true;
      for (const [col, value] of Lay.headerWrites) writes.push({ row: 0, col, value });
    }
    if (view) kept = roundKept;
    else kept += roundKept;
    const wrote = writes.length > 0 || intended.size > 0;
    if (wrote) {
      await table.write(writes);
      const busy = clock.busy?.();
      await table.flush();
      lastCost = busy?.() ?? 0;
      lastSave = clock.now();
    }
    if (view && wrote) {
      // What this view held is kept by key; its rows go before the sheet is read again (two at once would double the memory).
      keep(view);
      view = undefined;
      rows = [];
      // The check after the write reads the header and the key column only; the rows are read whole again
      // only when some moved, for the round that puts them right.
      const moved = await movedSince(follow!, before!, intended);
      if (moved && (repairs < MAX_REPAIRS || (final && ++finalRounds <= MAX_REPAIRS + 2))) {
        repairs++;
        next = await readView(follow!, before);
        continue;
      }
      if (!moved) repairs = 0;
    } else if (view) keep(view);
    if (final && !waiting) {
      run.report.keptCells = kept;
      run.report.leftAlone = leftAlone;
      return;
    }
  }
}

/** Reading a sheet others edit again: where our columns and rows are now, and whether they moved under a write. */
function followers(s: SaveScope) {
  const Lay = s.L;
  const ourCols = Lay.ourCols;
  const readMemo = s.read;

  /**
   * Whether, since the view the last write was worked from, a written row holds another key now or a column
   * of ours or the key's is elsewhere (a colleague's sort, insert or delete in the write window).
   */
  async function movedSince(read: NonNullable<Table['readColumns']>, last: SheetView, intended: ReadonlyMap<number, string>) {
    const keyAt = last.at(Lay.keyCol);
    const got = await read([keyAt]);
    // Columns found where the last view put them, by the same rule readView places them.
    const cols = [Lay.keyCol, ...ourCols].filter((c) => last.at(c) >= 0);
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
  async function readView(read: NonNullable<Table['readColumns']>, last: SheetView | undefined): Promise<SheetView> {
    const wanted = [Lay.keyCol, ...ourCols, ...(Lay.legacy ? Lay.legacy.cols : [])];
    let place: ReadonlyMap<number, number> = last?.place ?? new Map(wanted.map((c) => [c, c < Lay.width ? c : -1]));
    for (let attempt = 0; ; attempt++) {
      const asked = [...new Set([...place.values()].filter((c) => c >= 0))];
      const got = await read(asked);
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
      return sheetView(got, found, wanted);
    }
  }

  /** The view of one read, in Lay's column numbers; our columns missing from the sheet get places after its last column. */
  function sheetView(got: ColumnsView, place: ReadonlyMap<number, number>, wanted: number[]): SheetView {
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
    for (const c of ourCols)
      if (place.get(c)! < 0) {
        target.set(c, end);
        headerWrites.push({ row: 0, col: end++, value: Lay.header[c]! });
      }
    return { rows, place: target, headerWrites, at: (c) => target.get(c) ?? -1 };
  }

  /** Our columns' cells by key, from rows whose cells are their own key's (query = key, a final answer). */
  function cellsByKey(view: SheetView | undefined): ((key: string) => string[] | undefined) | undefined {
    if (!view) return undefined;
    // Built at once, so the view's rows can go: one entry per distinct key, not per row.
    const index = new Map<string, string[]>();
    for (const row of view.rows) {
      const q = row[Lay.queryCol] ?? '';
      const k = row[Lay.keyCol] ?? '';
      const r = readMemo(k);
      if (q === '' || r.status !== 'send' || !sameQuery(q, k) || (row[Lay.atCol] ?? '') === '') continue;
      if (!index.has(r.key))
        index.set(
          r.key,
          ourCols.map((c) => row[c] ?? ''),
        );
    }
    return (key) => index.get(key);
  }
  return { readView, movedSince, cellsByKey };
}

/** Waits until the next save is due (`due()`, a time on the clock; Infinity: when news comes), or the run is over. */
async function untilSaveDue({ run, clock }: SaveScope, due: () => number): Promise<void> {
  while (!run.allOver) {
    run.check();
    const wait = due() - clock.now();
    if (wait <= 0) return;
    // News cuts the wait short: the sleep is called off, not left to run out.
    const woke = newStopper();
    const news = run.changed.wait().then(() => woke.abort());
    await (Number.isFinite(wait) ? clock.sleep(wait, woke.signal) : news);
    woke.abort();
  }
}
