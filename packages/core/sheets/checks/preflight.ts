/**
 * Checks made before the first billed lookup, so a run that could not save pays for nothing: the
 * sheet exists, the cells the run adds fit under Google's 10,000,000-cell limit, no protected range the
 * account cannot edit covers a cell the run writes, and the account may write at all. The table adapter
 * gathers the facts (GoogleSheetTable.checkWrites); the rules and the texts are here.
 */
import { columnLetters } from '../a1';

/** What a run will write. Rows and columns are zero-based grid positions; row 0 is the header. */
export interface WritePlan {
  /** The header row as read (for naming columns in messages). */
  header: readonly string[];
  /** Header cells the run creates, with their text. */
  newHeaders: readonly { col: number; value: string }[];
  /** Output columns (also the created ones). */
  columns: readonly number[];
  /** Data rows the run may write, as [start, end) runs. */
  rows: readonly (readonly [number, number])[];
  /** Columns the sheet needs once the run has written them. */
  width: number;
  /**
   * Cells a write-access probe may write without changing anything: each with the text it holds now
   * (a created header cell is empty now), the run's own header cells first.
   */
  probe: readonly { col: number; value: string }[];
}

export type CheckName = 'sheet' | 'cell limit' | 'protected ranges' | 'write access';

/** One check's outcome: ok, failed (with what to do), or not checked (why). */
export interface WriteCheck {
  check: CheckName;
  ok: boolean | undefined;
  text: string;
}

/** A run refused before anything was sent: every failed check says what to do. */
export class PreflightError extends Error {
  constructor(readonly checks: readonly WriteCheck[]) {
    super(
      checks
        .filter((c) => c.ok === false)
        .map((c) => `${c.check}: ${c.text}`)
        .join('\n') + '\nNothing was sent and nothing was billed.',
    );
    this.name = 'PreflightError';
  }
}

/** Zero-based, end exclusive, a missing bound unbounded (Google's GridRange). */
export interface GridRange {
  sheetId?: number | null;
  startRowIndex?: number | null;
  endRowIndex?: number | null;
  startColumnIndex?: number | null;
  endColumnIndex?: number | null;
}

/** The fields of Google's ProtectedRange the checks read. */
export interface ProtectedRange {
  protectedRangeId?: number | null;
  range?: GridRange | null;
  namedRangeId?: string | null;
  description?: string | null;
  warningOnly?: boolean | null;
  requestingUserCanEdit?: boolean | null;
  unprotectedRanges?: GridRange[] | null;
}

export const GOOGLE_CELL_LIMIT = 10_000_000;

const fmt = (n: number) => n.toLocaleString('en-US');
const a1 = (row: number, col: number) => `${columnLetters(col)}${row + 1}`;

/** Who the account is, for messages: the service account's client_email, else the signed-in Google account. */
export function accountName(account: string | undefined): string {
  return account ?? 'the Google account these credentials belong to';
}

export function sheetFound(title: string, titles: readonly string[]): WriteCheck {
  return {
    check: 'sheet',
    ok: true,
    text: `"${title}" found (the spreadsheet has ${titles.length} sheet${titles.length === 1 ? '' : 's'})`,
  };
}

/**
 * Google's limit counts the grids of ALL sheets (empty cells too). The run adds columns (and, if its
 * rows do not fit, rows) to its own sheet only.
 */
export function cellLimitCheck(
  sheets: readonly { title: string; rows: number; cols: number }[],
  own: string,
  need: { rows: number; cols: number },
): WriteCheck {
  const s = sheets.find((x) => x.title === own)!;
  const total = sheets.reduce((n, x) => n + x.rows * x.cols, 0);
  const rows = Math.max(s.rows, need.rows);
  const cols = Math.max(s.cols, need.cols);
  const added = rows * cols - s.rows * s.cols;
  const what = [
    ...(cols > s.cols ? [`${cols - s.cols} column${cols - s.cols === 1 ? '' : 's'}`] : []),
    ...(rows > s.rows ? [`${rows - s.rows} row${rows - s.rows === 1 ? '' : 's'}`] : []),
  ].join(' and ');
  if (added <= 0)
    return { check: 'cell limit', ok: true, text: `no cells added (the spreadsheet holds ${fmt(total)} of ${fmt(GOOGLE_CELL_LIMIT)})` };
  if (total + added <= GOOGLE_CELL_LIMIT)
    return {
      check: 'cell limit',
      ok: true,
      text: `adding ${what} (${fmt(added)} cells) leaves the spreadsheet at ${fmt(total + added)} of Google's ${fmt(GOOGLE_CELL_LIMIT)}`,
    };
  return {
    check: 'cell limit',
    ok: false,
    text:
      `adding ${what} to sheet "${own}" needs ${fmt(added)} more cells, but the spreadsheet already holds ${fmt(total)} of ` +
      `Google's ${fmt(GOOGLE_CELL_LIMIT)} (every sheet's rows × columns count, empty ones too): delete empty rows or ` +
      `columns in any of its sheets, or copy this sheet into a new spreadsheet and enrich that`,
  };
}

/** Ranges that refuse this account: not warning-only, and Google says the requesting user cannot edit them. */
function blocking(ranges: readonly ProtectedRange[], sheetId: number, named: ReadonlyMap<string, GridRange>) {
  return ranges.flatMap((p) => {
    if (p.warningOnly || p.requestingUserCanEdit !== false) return [];
    const range = p.range ?? (p.namedRangeId ? named.get(p.namedRangeId) : undefined);
    if (!range || (range.sheetId ?? 0) !== sheetId) return [];
    return [{ p, range }];
  });
}

interface Rect {
  r0: number;
  r1: number;
  c0: number;
  c1: number;
}

const rectOf = (g: GridRange): Rect => ({
  r0: g.startRowIndex ?? 0,
  r1: g.endRowIndex ?? Infinity,
  c0: g.startColumnIndex ?? 0,
  c1: g.endColumnIndex ?? Infinity,
});

function meet(a: Rect, b: Rect): Rect | undefined {
  const r = { r0: Math.max(a.r0, b.r0), r1: Math.min(a.r1, b.r1), c0: Math.max(a.c0, b.c0), c1: Math.min(a.c1, b.c1) };
  return r.r0 < r.r1 && r.c0 < r.c1 ? r : undefined;
}

/** The top-left cell of `q` that no hole covers (cut along the holes' edges), if any. */
function uncovered(q: Rect, holes: readonly Rect[]): { row: number; col: number } | undefined {
  const inQ = holes.flatMap((h) => meet(q, h) ?? []);
  const rows = [...new Set([q.r0, ...inQ.flatMap((h) => [h.r0, h.r1])])].filter((v) => v < q.r1).sort((a, b) => a - b);
  const cols = [...new Set([q.c0, ...inQ.flatMap((h) => [h.c0, h.c1])])].filter((v) => v < q.c1).sort((a, b) => a - b);
  for (const row of rows)
    for (const col of cols) if (!inQ.some((h) => row >= h.r0 && row < h.r1 && col >= h.c0 && col < h.c1)) return { row, col };
  return undefined;
}

/** Runs of consecutive columns, so a plan is a few rectangles. */
function columnRuns(cols: readonly number[]): [number, number][] {
  const sorted = [...new Set(cols)].sort((a, b) => a - b);
  const runs: [number, number][] = [];
  for (const c of sorted) {
    const last = runs[runs.length - 1];
    if (last && last[1] === c) last[1] = c + 1;
    else runs.push([c, c + 1]);
  }
  return runs;
}

/** The first cell the run writes that a protected range refuses, with the range. */
export function firstProtectedCell(
  plan: WritePlan,
  ranges: readonly ProtectedRange[],
  sheetId: number,
  named: ReadonlyMap<string, GridRange> = new Map(),
): { row: number; col: number; range: ProtectedRange } | undefined {
  const writes: Rect[] = [
    ...columnRuns(plan.newHeaders.map((h) => h.col)).map(([c0, c1]) => ({ r0: 0, r1: 1, c0, c1 })),
    ...plan.rows.flatMap(([r0, r1]) => columnRuns(plan.columns).map(([c0, c1]) => ({ r0, r1, c0, c1 }))),
  ];
  let first: { row: number; col: number; range: ProtectedRange } | undefined;
  for (const { p, range } of blocking(ranges, sheetId, named)) {
    const holes = (p.unprotectedRanges ?? []).map(rectOf);
    for (const w of writes) {
      const q = meet(w, rectOf(range));
      const cell = q && uncovered(q, holes);
      if (cell && (!first || cell.row < first.row || (cell.row === first.row && cell.col < first.col))) first = { ...cell, range: p };
    }
  }
  return first;
}

/** Whether a single cell is refused by a protected range (used to pick a probe cell). */
export function cellProtected(
  row: number,
  col: number,
  ranges: readonly ProtectedRange[],
  sheetId: number,
  named: ReadonlyMap<string, GridRange> = new Map(),
): boolean {
  return blocking(ranges, sheetId, named).some(({ p, range }) => {
    const q = meet({ r0: row, r1: row + 1, c0: col, c1: col + 1 }, rectOf(range));
    return !!q && !!uncovered(q, (p.unprotectedRanges ?? []).map(rectOf));
  });
}

export function protectionCheck(
  plan: WritePlan,
  ranges: readonly ProtectedRange[],
  sheetId: number,
  named: ReadonlyMap<string, GridRange>,
  account: string | undefined,
  grows = false,
): WriteCheck {
  const hit = firstProtectedCell(plan, ranges, sheetId, named);
  // Adding columns or rows changes a protected sheet, whatever holes it leaves for values.
  const wholeSheet = grows
    ? blocking(ranges, sheetId, named).find(({ range }) =>
        [range.startRowIndex, range.endRowIndex, range.startColumnIndex, range.endColumnIndex].every((v) => v === undefined || v === null),
      )
    : undefined;
  if (!hit && wholeSheet) {
    const who = accountName(account);
    return {
      check: 'protected ranges',
      ok: false,
      text:
        `the sheet is protected${wholeSheet.p.description ? ` ("${wholeSheet.p.description}")` : ''} and the run must add columns to it, which ${who} may not: ` +
        `ask the spreadsheet's owner to add ${who} to the protection's editors or to widen the sheet to ${plan.width} columns, or enrich a copy of the sheet`,
    };
  }
  if (!hit) {
    const n = ranges.length;
    return {
      check: 'protected ranges',
      ok: true,
      text: n ? `${n} on the sheet, none refuses a cell this run writes` : 'none on the sheet',
    };
  }
  const who = accountName(account);
  const header = plan.header[hit.col]?.trim() || plan.newHeaders.find((h) => h.col === hit.col)?.value;
  const desc = hit.range.description ? ` ("${hit.range.description}")` : '';
  return {
    check: 'protected ranges',
    ok: false,
    text:
      `cell ${a1(hit.row, hit.col)}${header ? ` (column "${header}")` : ''} is in a protected range${desc} that ${who} cannot edit: ` +
      `ask the spreadsheet's owner to add ${who} to that range's editors (Data → Protect sheets and ranges), or enrich a copy of the sheet`,
  };
}

export function writeAccessOk(account: string | undefined): WriteCheck {
  return { check: 'write access', ok: true, text: `${accountName(account)} can edit the spreadsheet` };
}

export function writeAccessRefused(account: string | undefined): WriteCheck {
  const who = accountName(account);
  return {
    check: 'write access',
    ok: false,
    text: account
      ? `${who} can only view the spreadsheet: share it with ${who} as an Editor (Share in Google Sheets), then run again`
      : `${who} can only view the spreadsheet: ask its owner to share it with that account as an Editor, then run again`,
  };
}

export function writeAccessUnchecked(why: string): WriteCheck {
  return { check: 'write access', ok: undefined, text: `not checked: ${why}` };
}

/** One line per check, for the dry run's output. */
export function checkLine(c: WriteCheck): string {
  return `Check ${c.check}: ${c.ok === true ? 'ok' : c.ok === false ? 'FAILED' : 'not checked'}: ${c.text.replace(/^not checked: /, '')}`;
}

/** Adds [start, end) runs of rows one row at a time (rows come in order). */
export function addRow(runs: [number, number][], row: number): void {
  const last = runs[runs.length - 1];
  if (last && last[1] === row) last[1] = row + 1;
  else runs.push([row, row + 1]);
}
