import { sameQuery } from '../../lookup';
import { legacyState, ownsOutput, type Layout } from './layout';
import type { EnrichMode } from './options';
import { planRow, type RowPlan } from './row-plan';
import type { EnrichRun, Outcome, RowResult } from './run-state';
import type { QueryReading } from '../../lookup';

/**
 * Pass 2's rule: each row's cells from its query's outcome, worked out from the row as it is when it is
 * written (the table may have been edited since pass 1): only the tool's own columns, a person's cells
 * kept unless force, cells of another key never left standing.
 */
export class RowEdits {
  /** Rows of the old version whose answers are free: moved to the company_data_ columns. */
  readonly migrating = new Set<string>();
  /** Rows per distinct query sent (the report counts rows), and of the old version's rows that move. */
  readonly sendRows = new Map<string, number>();
  /** Our columns of rows whose key this run does not know, as some row holding that key had them: see stray. */
  knownCells: ((key: string) => string[] | undefined) | undefined;

  constructor(
    private readonly run: EnrichRun,
    private readonly L: Layout,
    private readonly mode: EnrichMode,
    private readonly maxAgeMs: number | undefined,
    private readonly nowMs: number,
    private readonly read: (q: string) => QueryReading,
    private readonly enrichedAt: string,
  ) {}

  /** The row's edits now; `final`: the run is over, so a row still without an answer stays as it is. */
  editsFor(row: readonly string[], final: boolean): RowResult {
    const p = planRow(row, this.L, this.mode, this.maxAgeMs, this.nowMs, this.read, this.read);
    if (p.kind !== 'send' && p.kind !== 'migrate') return this.rowEdits(row, p, undefined);
    if (p.kind === 'migrate' && !this.migrating.has(p.key)) return { kept: 0 };
    this.run.check();
    const o = this.run.outcomes.get(p.key);
    if (o) return this.rowEdits(row, p, o);
    if (!this.sendRows.has(p.key)) return this.stray(row, p.key);
    // Not answered yet; or never, the run having stopped: the row stays as it is, for the next run.
    return final ? { kept: 0 } : { kept: 0, waiting: p.key };
  }

  private rowEdits(row: readonly string[], p: RowPlan, o: Outcome | undefined): RowResult {
    const L = this.L;
    const res: RowResult = { kept: 0 };
    if (p.kind === 'none' || p.kind === 'keep') return res;
    const edits: [number, string][] = [];
    const ours = ownsOutput(row, L);
    const force = !!this.run.opts.force;
    const put = (col: number, value: string, mine: boolean) => {
      const current = row[col] ?? '';
      if (current === value) return;
      if (current !== '' && !mine && !force) return void res.kept++;
      edits.push([col, value]);
    };
    // Cells of another key (edited or emptied) are never left standing: cleared, or replaced below.
    const clearOutput = () => {
      for (const { col } of L.fieldCols) put(col, '', ours);
      for (const { col } of L.sectionCols) put(col, '', ours);
      put(L.atCol, '', true);
    };
    // A row moved to the company_data_ columns loses the old version's state, so one state stands.
    const clearLegacy = () => {
      if (L.legacy) for (const col of legacyState(L.legacy)) put(col, '', true);
    };
    const state = (status: string, reason: string) => {
      put(L.statusCol, status, true);
      put(L.reasonCol, reason, true);
      put(L.queryCol, key, true);
    };
    const key = row[L.keyCol] ?? '';
    res.edits = edits;
    if (p.kind === 'clear') {
      clearOutput();
      for (const col of [L.statusCol, L.reasonCol, L.queryCol]) put(col, '', true);
      return res;
    }
    if (p.kind === 'free') {
      if (ours) clearOutput();
      state(p.status, p.reason);
      clearLegacy();
      return res;
    }
    if (!o) return res;
    const recorded = row[L.queryCol] ?? '';
    if (o.error) {
      if (ours && recorded !== '' && !sameQuery(recorded, key)) clearOutput();
      state('error', o.reason);
      return res;
    }
    L.fieldCols.forEach(({ col }, j) => put(col, o.fields![j]!, ours));
    let status: string = o.status;
    let reason = o.reason;
    const sec = o.code !== undefined ? this.run.sectionCells.get(o.code) : undefined;
    if (sec && 'error' in sec) {
      status = 'error';
      reason = `profile sections: ${sec.error.message}`;
    } else if (sec) L.sectionCols.forEach(({ col }, j) => put(col, sec[j]!, ours));
    state(status, reason);
    put(L.atCol, this.enrichedAt, true);
    clearLegacy();
    return res;
  }

  /**
   * A row holding a key this run never looked up (a colleague inserted it, or edited its key, while the
   * run went) is left alone for the next run; only when its cells are another key's (our save landed
   * on it as rows moved) are they put back as a row with its key had them, or else emptied.
   */
  private stray(row: readonly string[], key: string): RowResult {
    const recorded = row[this.L.queryCol] ?? '';
    if (recorded === '' || sameQuery(recorded, key)) return { kept: 0, leftAlone: true };
    const known = this.knownCells?.(key);
    const edits: [number, string][] = [];
    this.L.ourCols.forEach((col, j) => {
      const value = known?.[j] ?? '';
      if ((row[col] ?? '') !== value) edits.push([col, value]);
    });
    return { edits, kept: 0, leftAlone: !known };
  }
}
