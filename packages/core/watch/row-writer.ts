/**
 * The row half of watching a sheet (`company-data watch`, the n8n operation Write Events to Rows): each monitoring
 * change written into its company's row(s) of the watched sheet (rowChange: the sentence, the time, the event id
 * and the enriched fields it makes stale). Rows are found by registry code when writing: a Google sheet's code
 * column is re-read just before each write and checked just after it, as enrich follows rows, so a colleague's
 * sort, insert or delete cannot send a change to the wrong company. Exactly once: a row already holding this
 * change (or a newer one) is not written again, so a change applied twice (redelivery, a restart, a kill between
 * the write and its record) leaves the row as once. Pure: the table is its only port; the caller keeps the changes
 * read but not yet applied (the CLI in its state folder). Decisions in docs/decisions/watch.md, "Changes into their rows".
 */
import { matchColumn, readQuery } from '../lookup';
import { findKeyColumn, headerName } from '../sheets/enrich/layout';
import type { CellWrite, Table } from '../sheets/table/table';
import type { SummaryLang } from '../vocabulary';
import { isNewer, mergeChanges, rowChange, rowChangeColumns, type RowChange } from './row-change';

export interface RowWriteReport {
  /** Changes applied (newest per company), rows written, changes whose company has no row, rows put right after a move. */
  changes: number;
  rows: number;
  notInSheet: number;
  restored: number;
}

const OWN = [rowChangeColumns.lastChange, rowChangeColumns.changedAt, rowChangeColumns.lastEventId] as const;
const CODE = matchColumn('registry_code');
/** Rounds of write-then-check before the rest is left to the next pass. */
const MAX_ROUNDS = 4;

interface View {
  header: string[];
  /** Columns in use: the header's, and for a file any row's (a column of values without a header is a person's too). */
  width: number;
  /** 0-based data row → registry code ('' when none). */
  codes: string[];
  /** Column index → data rows' values. */
  values: Map<number, string[]>;
}

export class RowChangeWriter {
  /** The registry codes of the last apply's changes whose company has no row in the sheet (events sheet only). */
  notInSheetCodes: readonly string[] = [];

  constructor(
    private readonly table: Table,
    private readonly opts: { lang: SummaryLang; column?: string },
  ) {}

  /** Column indices by header name (first match), without the key column. */
  private columnsOf(header: readonly string[], keyCol: number): Map<string, number> {
    const out = new Map<string, number>();
    header.forEach((h, i) => {
      const n = headerName(h);
      if (i !== keyCol && n && !out.has(n)) out.set(n, i);
    });
    return out;
  }

  private async view(header?: string[]): Promise<View> {
    const table = this.table;
    if (!table.readColumns || !header) {
      const snap = await table.read();
      const keyCol = findKeyColumn(snap.header, this.opts.column);
      const cols = this.columnsOf(snap.header, keyCol);
      const values = new Map<number, string[]>();
      for (const i of cols.values())
        values.set(
          i,
          snap.rows.map((r) => r[i] ?? ''),
        );
      values.set(
        keyCol,
        snap.rows.map((r) => r[keyCol] ?? ''),
      );
      let width = snap.header.length;
      for (const r of snap.rows) if (r.length > width) width = r.length;
      return { header: snap.header, width, codes: codesOf(snap.header, keyCol, values), values };
    }
    // A Google sheet: the header and the columns that matter, read in one request now.
    let known: string[] = header;
    const wantedOf = (h: readonly string[]) => {
      const keyCol = findKeyColumn(h, this.opts.column);
      const cols = this.columnsOf(h, keyCol);
      const wanted = [keyCol, ...[CODE, ...OWN, ...changeFields].map((n) => cols.get(n)).filter((i): i is number => i !== undefined)];
      return { keyCol, wanted: [...new Set(wanted)] };
    };
    for (let attempt = 0; ; attempt++) {
      const { keyCol, wanted } = wantedOf(known);
      const v = await table.readColumns(wanted);
      // Columns moved, or added, since the header was known: ask again by the header as it is now.
      const now = wantedOf(v.header);
      if (attempt < 2 && (now.keyCol !== keyCol || now.wanted.join() !== wanted.join())) {
        known = v.header;
        continue;
      }
      return { header: v.header, width: v.header.length, codes: codesOf(v.header, keyCol, v.columns), values: v.columns };
    }
  }

  /** Writes the changes into their companies' rows. `header`: the sheet's header as last read (saves a request). */
  async apply(events: readonly unknown[], header?: string[]): Promise<RowWriteReport> {
    const changes = changesByCode(events, this.opts.lang);
    const report: RowWriteReport = { changes: changes.size, rows: 0, notInSheet: 0, restored: 0 };
    this.notInSheetCodes = [];
    if (changes.size === 0) return report;
    const run: ApplyRun = {
      changes,
      ours: new Map([...changes.values()].map((c) => [c.id, c.registryCode])),
      before: new Map(),
      written: new Set(),
      report,
    };
    let v = await this.view(header);
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const { headerCells, cells, seen } = this.roundCells(v, round, run);
      if (round === 0) {
        this.notInSheetCodes = [...changes.keys()].filter((c) => !seen.has(c));
        report.notInSheet = this.notInSheetCodes.length;
      }
      if (cells.length === 0) break;
      await this.table.write([...headerCells, ...cells]);
      await this.table.flush();
      // A file is not edited by others while it is written (a change on disk is refused); a Google sheet is checked.
      if (!this.table.readColumns) break;
      v = await this.view(v.header);
    }
    report.rows = run.written.size;
    return report;
  }

  /** One round's writes into the view: the change columns it lacks, each company's change, the rows put back after a move. */
  private roundCells(v: View, round: number, run: ApplyRun): { headerCells: CellWrite[]; cells: CellWrite[]; seen: Set<string> } {
    const keyCol = findKeyColumn(v.header, this.opts.column);
    const cols = this.columnsOf(v.header, keyCol);
    const headerCells = addOwnColumns(v, cols);
    const cells: CellWrite[] = [];
    const seen = new Set<string>();
    for (let r = 0; r < v.codes.length; r++) {
      const code = v.codes[r]!;
      if (round === 0 && code && !run.before.has(code)) run.before.set(code, cellsBefore(v, cols, r));
      const change = run.changes.get(code);
      if (!change) {
        const back = restoreCells(v, cols, r, run);
        if (back) {
          cells.push(...back);
          run.report.restored++;
        }
        continue;
      }
      seen.add(code);
      const write = changeCells(v, cols, r, change, run);
      if (!write) continue;
      cells.push(...write);
      run.written.add(r);
    }
    return { headerCells, cells, seen };
  }
}

/** What one apply keeps from round to round. */
interface ApplyRun {
  /** The newest change per company, by registry code. */
  changes: Map<string, RowChange>;
  /** Change id → the registry code of its company. */
  ours: Map<string, string>;
  /** Each company's cells as they were before this apply, to put back into a row a move gave another company's change. */
  before: Map<string, Map<number, string>>;
  /** Data rows written. */
  written: Set<number>;
  report: RowWriteReport;
}

/** The events' changes, merged into one per company (mergeChanges), by registry code. */
function changesByCode(events: readonly unknown[], lang: SummaryLang): Map<string, RowChange> {
  const byCode = new Map<string, RowChange[]>();
  for (const e of events) {
    const c = rowChange(e, lang);
    if (!c) continue;
    const list = byCode.get(c.registryCode);
    if (list) list.push(c);
    else byCode.set(c.registryCode, [c]);
  }
  return new Map([...byCode].map(([code, list]) => [code, mergeChanges(list)]));
}

/** Adds the change columns the header lacks to the view; the header cells that write them. */
function addOwnColumns(v: View, cols: Map<string, number>): CellWrite[] {
  const headerCells: CellWrite[] = [];
  // The change columns are added after the last one in use, never over a person's column, and only with a row
  // to write (a change of a company not in the sheet adds nothing).
  for (const name of OWN) {
    if (cols.has(name)) continue;
    const at = Math.max(v.header.length, v.width);
    v.header[at] = name;
    v.width = at + 1;
    cols.set(name, at);
    v.values.set(at, []);
    headerCells.push({ row: 0, col: at, value: name });
  }
  return headerCells;
}

const cellAt = (v: View, col: number, r: number) => v.values.get(col)?.[r] ?? '';

/** A row's change columns and the enriched fields a change makes stale, as they are: column index → value. */
function cellsBefore(v: View, cols: Map<string, number>, r: number): Map<number, string> {
  const b = new Map<number, string>();
  for (const name of [...OWN, ...changeFields]) {
    const c = cols.get(name);
    if (c !== undefined) b.set(c, cellAt(v, c, r));
  }
  return b;
}

/** The cells that put a row back, when it holds another company's change of this apply; else undefined. */
function restoreCells(v: View, cols: Map<string, number>, r: number, run: ApplyRun): CellWrite[] | undefined {
  const code = v.codes[r]!;
  // A row that got another company's change (it moved in between): put back what its own company had.
  const heldFor = run.ours.get(cellAt(v, cols.get(rowChangeColumns.lastEventId)!, r));
  if (heldFor === undefined || heldFor === code) return undefined;
  const cells: CellWrite[] = [];
  for (const [c, value] of run.before.get(code) ?? new Map(OWN.map((n) => [cols.get(n)!, '']))) cells.push({ row: r + 1, col: c, value });
  return cells;
}

/** The cells that write a change into its company's row; undefined when the row holds it already. */
function changeCells(v: View, cols: Map<string, number>, r: number, change: RowChange, run: ApplyRun): CellWrite[] | undefined {
  const code = v.codes[r]!;
  const heldId = cellAt(v, cols.get(rowChangeColumns.lastEventId)!, r);
  // Already holding this change or a newer one of its company: nothing to write (exactly once, in order). A
  // change of another company this apply wrote there (the row moved in between) does not count.
  const heldFor = run.ours.get(heldId);
  const own = heldFor === undefined || heldFor === code;
  const atCol = cols.get(rowChangeColumns.changedAt)!;
  if (heldId && own && (heldId === change.id || isNewer({ detectedAt: cellAt(v, atCol, r), id: heldId }, change))) return undefined;
  const cells: CellWrite[] = [];
  for (const [name, value] of Object.entries(change.cells)) {
    const c = cols.get(headerName(name));
    if (c !== undefined) cells.push({ row: r + 1, col: c, value });
  }
  return cells;
}

/** The enriched fields a change can make stale (staleFields), by column name. */
const changeFields = ['name', 'status', 'status_label', 'address', 'postal_code', 'vat_number'].map((f) => matchColumn(f));

/** Each data row's registry code: the enriched company's, else the key when it is a registry code. */
function codesOf(header: readonly string[], keyCol: number, values: Map<number, string[]>): string[] {
  const codeCol = header.findIndex((h, i) => i !== keyCol && headerName(h) === CODE);
  const keys = values.get(keyCol) ?? [];
  const codes = codeCol >= 0 ? (values.get(codeCol) ?? []) : [];
  const n = Math.max(keys.length, codes.length);
  const out: string[] = [];
  for (let r = 0; r < n; r++) {
    let code = (codes[r] ?? '').trim();
    if (code === '') {
      const k = readQuery(keys[r] ?? '');
      if (k.status === 'send' && k.type === 'registry_code') code = k.send;
    }
    out.push(code);
  }
  return out;
}
