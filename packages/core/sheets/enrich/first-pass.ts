import type { SendQuery } from '../../bulk-lookup';
import { addRow } from '../checks/preflight';
import { isStreamed, type Table, type TableSnapshot } from '../table/table';
import { layOut, legacyState, type Layout } from './layout';
import type { Lookups } from './lookups';
import { planRow } from './row-plan';
import type { EnrichRun } from './run-state';
import type { QueryReading } from '../../lookup';
import { defaultFields } from './options';

/** New distinct queries sent together while the table is still being read: the first chunk, doubling after (the answer cache is indexed once per chunk). */
const FIRST_CHUNK = 1000;

/** What pass 1 found: where everything is, and which rows need what. Nothing but the keys is kept. */
export interface FirstPass {
  L: Layout;
  /** The widest row (a CSV is written again this wide). */
  width: number;
  /** The table read whole (not a streamed one). */
  snapshot: TableSnapshot | undefined;
  /** Data rows the run writes, as runs (kept only for the checks before paying). */
  rowsToWrite: [number, number][];
  /** Whether one of those rows holds the old version's state, which its save empties. */
  clearsLegacy: boolean;
  /** Rows per distinct query to send. */
  sendRows: Map<string, number>;
  /** Per key, old-version rows that could move to the company_data_ columns for free. */
  legacyRows: Map<string, { send: string; rows: number }>;
  /** New queries not sent yet (streaming). */
  fresh: SendQuery[];
}

/** The rows of the first pass, header first: a CSV streamed from the file, any other table read whole once. */
function rowsOf(table: Table, keep: (snap: TableSnapshot) => void): AsyncIterable<string[]> {
  if (isStreamed(table)) return table.rows();
  return (async function* () {
    const snap = await table.read();
    keep(snap);
    yield snap.header;
    yield* snap.rows;
  })();
}

/**
 * Pass 1: which rows need a lookup, and the distinct queries among them. With `stream`, new queries go
 * out in chunks while the table is still read.
 */
export async function firstPass(
  run: EnrichRun,
  lookups: Lookups,
  read: (q: string) => QueryReading,
  at: { maxAgeMs: number | undefined; nowMs: number; stream: boolean; onLayout: (L: Layout) => void },
): Promise<FirstPass> {
  const { opts, report } = run;
  const { table } = opts;
  const fields = opts.fields ?? defaultFields;
  const sections = opts.sections ?? [];
  const mode = opts.mode ?? 'missing';
  const dedupe = lookups.dedupe;
  const out: Omit<FirstPass, 'L'> & { L?: Layout } = {
    width: 0,
    snapshot: undefined,
    rowsToWrite: [],
    clearsLegacy: false,
    sendRows: new Map(),
    legacyRows: new Map(),
    fresh: [],
  };
  let header: string[] | undefined;
  let index = 0;
  let layoutError: unknown;
  let chunk = FIRST_CHUNK;
  for await (const row of rowsOf(table, (s) => (out.snapshot = s))) {
    if (index++ === 0) {
      header = [...row];
      // Trailing empty header cells are not columns (spreadsheet exports often carry them).
      while (header.length && header[header.length - 1]!.trim() === '') header.pop();
      try {
        at.onLayout((out.L = layOut(header, opts.column, fields, sections)));
      } catch (e) {
        // Read on: a file that is not valid CSV further down says so first, as when it was read whole.
        layoutError = e;
      }
      continue;
    }
    const L = out.L;
    if (!L) continue;
    out.width = Math.max(out.width, row.length);
    if (row.some((v) => v !== '')) report.rows = index - 1;
    const before = dedupe.unique.size;
    const p = planRow(row, L, mode, at.maxAgeMs, at.nowMs, (q) => dedupe.read(q, read(q)), read);
    if (table.checkWrites && p.kind !== 'none' && p.kind !== 'keep') {
      addRow(out.rowsToWrite, index - 1);
      if (p.kind !== 'clear' && L.legacy && !out.clearsLegacy) out.clearsLegacy = legacyState(L.legacy).some((c) => (row[c] ?? '') !== '');
    }
    if (p.kind === 'migrate') {
      const m = out.legacyRows.get(p.key);
      if (m) m.rows++;
      else out.legacyRows.set(p.key, { send: p.send, rows: 1 });
    } else if (p.kind === 'free') {
      report.rowsInScope++;
      report[p.status]++;
    } else if (p.kind === 'send') {
      report.rowsInScope++;
      out.sendRows.set(p.key, (out.sendRows.get(p.key) ?? 0) + 1);
      if (at.stream && dedupe.unique.size > before) {
        out.fresh.push({ key: p.key, send: dedupe.unique.get(p.key)! });
        if (out.fresh.length >= chunk) {
          lookups.send(out.fresh);
          out.fresh = [];
          chunk *= 2;
        }
      }
    }
  }
  if (layoutError) throw layoutError;
  if (!header || !out.L) at.onLayout((out.L = layOut([], opts.column, fields, sections)));
  out.width = Math.max(out.width, out.L.header.length);
  return out as FirstPass;
}
