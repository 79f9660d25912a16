import type { QueryReading } from '../../lookup';
import type { SheetsClock } from '../ports';
import type { CellWrite, TableSnapshot } from '../table/table';
import type { Layout } from './layout';
import { newStopper } from '../../web-free';
import type { RowEdits } from './row-edits';
import type { EnrichRun } from './run-state';
import { FollowedSheet, type SheetView } from './followed-sheet';

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
  const { run } = s;
  const table = run.opts.table;
  const follow = table.readColumns?.bind(table);
  const pace = new SavePace(s, !!follow);
  // A sheet others edit is worked from what each save reads again: the whole-sheet read of pass 1 is let go.
  const rows: SaveRows = follow ? new FollowedRows(s, new FollowedSheet(s.L, follow, s.read)) : new SnapshotRows(s, s.snapshot?.rows ?? []);
  if (follow) s.snapshot = undefined;
  for (let repair = false; ; ) {
    // Wait for news, then for the save gap; or for the end.
    if (!repair) await pace.untilDue();
    run.check();
    const final = run.allOver;
    pace.noteNews();
    const round = await rows.workOut(final);
    const wrote = round.writes.length > 0 || round.intended.size > 0;
    if (wrote) await pace.save(round.writes);
    repair = await rows.afterSave(wrote, round.intended, final);
    if (repair) continue;
    if (final && !round.still.length) {
      run.report.keptCells = rows.kept;
      run.report.leftAlone = round.leftAlone;
      return;
    }
  }
}

/** When saves are made: once news came and the save gap has passed since the last one; and at the end. */
class SavePace {
  private readonly every: number;
  private lastSave: number;
  private lastCost = 0;
  private seen = -1;

  constructor(
    private readonly s: SaveScope,
    private readonly followed: boolean,
  ) {
    const table = s.run.opts.table;
    this.every = s.run.opts.flushEveryMs ?? table.saveEveryMs ?? 1_000;
    this.lastSave = s.clock.now();
  }

  // A save that blocks the event loop (an XLSX file written) holds up the limiter's timers with it; spacing saves by
  // 50x the time they block keeps that under 2%. Only the blocked time counts: a Google sheet's save mostly waits on
  // the network, and spacing by its round trip would let a refused save go unnoticed (and paid for) far longer.
  // On a sheet others edit, a refused save must be seen soon (each answer after it is paid for in vain): there the
  // stretch is capped at 2 s, whatever the save cost (a stand-in in the same process makes its work look like ours).
  private gap(): number {
    return Math.max(this.every, this.followed ? Math.min(50 * this.lastCost, 2_000) : 50 * this.lastCost);
  }

  untilDue(): Promise<void> {
    return untilSaveDue(this.s, () => (this.s.run.outcomes.size !== this.seen ? this.lastSave + this.gap() : Infinity));
  }

  /** The answers this save takes in: the next waits for more. */
  noteNews(): void {
    this.seen = this.s.run.outcomes.size;
  }

  async save(writes: CellWrite[]): Promise<void> {
    const { clock } = this.s;
    const table = this.s.run.opts.table;
    await table.write(writes);
    const busy = clock.busy?.();
    await table.flush();
    this.lastCost = busy?.() ?? 0;
    this.lastSave = clock.now();
  }
}

/** One save's work: the cells to write, and what the rows it went over came to. */
interface SaveRound {
  writes: CellWrite[];
  /** Rows written → the key each held when its cells were worked out (a sheet others edit; checked after the write). */
  intended: Map<number, string>;
  /** Rows still waiting for their answers. */
  still: number[];
  leftAlone: number;
  kept: number;
}

/** Where a save's rows come from: the table as pass 1 read it, or a sheet others edit read again. */
interface SaveRows {
  /** Cells of a person kept, as the report counts them. */
  readonly kept: number;
  workOut(final: boolean): Promise<SaveRound>;
  /** After a save: whether rows moved under it, to be saved again at once. */
  afterSave(wrote: boolean, intended: ReadonlyMap<number, string>, final: boolean): Promise<boolean>;
}

/** Each row's cells from the row as it is now, `at` placing our columns in the sheet. */
async function workOutRows(
  s: SaveScope,
  rows: string[][],
  indices: Iterable<number>,
  at: (col: number) => number,
  { final, followed }: { final: boolean; followed: boolean },
): Promise<SaveRound> {
  const round: SaveRound = { writes: [], intended: new Map(), still: [], leftAlone: 0, kept: 0 };
  for (const i of indices) {
    const row = rows[i]!;
    const r = s.edits.editsFor(row, final);
    if (r.waiting) {
      round.still.push(i);
      continue;
    }
    round.kept += r.kept;
    if (r.leftAlone) round.leftAlone++;
    if (!r.edits?.length) continue;
    for (const [col, value] of r.edits) if (at(col) >= 0) round.writes.push({ row: i + 1, col: at(col), value });
    if (followed) round.intended.set(i, row[s.L.keyCol] ?? '');
    if (round.writes.length >= 50_000) {
      await s.run.opts.table.write(round.writes);
      round.writes = [];
    }
  }
  return round;
}

/** A table only this run writes: worked from what pass 1 read, each row once it has its answer. */
class SnapshotRows implements SaveRows {
  kept = 0;
  private pending: number[];
  private headerDone = false;

  constructor(
    private readonly s: SaveScope,
    private readonly rows: string[][],
  ) {
    this.pending = rows.map((_, i) => i);
  }

  async workOut(final: boolean): Promise<SaveRound> {
    const round = await workOutRows(this.s, this.rows, this.pending, (col) => col, { final, followed: false });
    this.pending = round.still;
    if (!this.headerDone) {
      this.headerDone = true;
      for (const [col, value] of this.s.L.headerWrites) round.writes.push({ row: 0, col, value });
    }
    this.kept += round.kept;
    return round;
  }

  /** Nobody else moves this table's rows. */
  async afterSave(): Promise<boolean> {
    return false;
  }
}

/** A sheet others edit: each save worked from the sheet read again, and checked after its write. */
class FollowedRows implements SaveRows {
  kept = 0;
  /** The view this save is worked from, until its write is made. */
  private view: SheetView | undefined;
  /** The view read for a save that puts moved rows right, made at once. */
  private next: SheetView | undefined;
  /** The view read before the last write, kept as where its columns were and its cells by key (not its rows). */
  private before: SheetView | undefined;
  private beforeCells: ((key: string) => string[] | undefined) | undefined;
  private repairs = 0;
  private finalRounds = 0;

  constructor(
    private readonly s: SaveScope,
    private readonly sheet: FollowedSheet,
  ) {}

  async workOut(final: boolean): Promise<SaveRound> {
    const view = (this.view = this.next ?? (await this.sheet.readView(this.before)));
    this.next = undefined;
    this.s.edits.knownCells = this.beforeCells ?? this.sheet.cellsByKey(view);
    const round = await workOutRows(this.s, view.rows, view.rows.keys(), view.at, { final, followed: true });
    round.writes.push(...view.headerWrites);
    this.kept = round.kept;
    return round;
  }

  async afterSave(wrote: boolean, intended: ReadonlyMap<number, string>, final: boolean): Promise<boolean> {
    // What this view held is kept by key; its rows go before the sheet is read again (two at once would double the memory).
    this.beforeCells = this.sheet.cellsByKey(this.view!);
    this.before = { ...this.view!, rows: [] };
    this.view = undefined;
    if (!wrote) return false;
    // The check after the write reads the header and the key column only; the rows are read whole again
    // only when some moved, for the round that puts them right.
    const moved = await this.sheet.movedSince(this.before, intended);
    if (moved && (this.repairs < MAX_REPAIRS || (final && ++this.finalRounds <= MAX_REPAIRS + 2))) {
      this.repairs++;
      this.next = await this.sheet.readView(this.before);
      return true;
    }
    if (!moved) this.repairs = 0;
    return false;
  }
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
