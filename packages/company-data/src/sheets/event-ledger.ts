import { LineFile } from '../files/line-file';

import type { EventLedgerStore, LedgerCompaction, LedgerRows } from '@company-data/core/sheets/ports';
import { LEDGER_KEEP_DONE } from '@company-data/core/sheets/events/events-writer';

export { LEDGER_COMPACT_ABOVE_BYTES, LEDGER_KEEP_DONE } from '@company-data/core/sheets/events/events-writer';
export type { LedgerRows };
/** What a compaction did (the core's LedgerCompaction). */
export type CompactionResult = LedgerCompaction;

/**
 * Durable record of which events are in the sheet. Append-only JSON lines, each fsync'd before the
 * step it guards goes on:
 *   {"t":"begin","id":…,"records":[{…}]}  before the rows are appended (holds the rows to re-append;
 *                                          older ledgers: "rows":[[…]] in the sheet's column order)
 *   {"t":"done","id":…}                 after the sheet accepted them
 *   {"t":"cursor","after":…}            poll position (the last event stored)
 *   {"t":"compacted",…}                 first line of a compacted ledger: older done ids were dropped
 * A crash between begin and done leaves the event "pending": on start it is reconciled with the
 * event_id column of the sheet, appending only the rows that are missing. A torn last line is ignored.
 */
export class EventLedger implements EventLedgerStore {
  readonly done = new Set<string>();
  readonly pending = new Map<string, LedgerRows>();
  cursor: string | undefined;
  /** Older done ids were dropped by a compaction: ids in the sheet but not here are expected. */
  compacted = false;
  private readonly file: LineFile;

  constructor(readonly path: string) {
    this.file = new LineFile(path, { mode: 0o600 });
    this.load();
  }

  /** Bytes in the file, as read plus as appended. */
  get size(): number {
    return this.file.size;
  }

  /** Reads the file again, replacing what is held (the writer calls it once it holds the lock). */
  load(): void {
    this.close();
    this.done.clear();
    this.pending.clear();
    this.cursor = undefined;
    this.compacted = false;
    for (const e of this.file.read<{ t?: string; id?: string; records?: LedgerRows; rows?: LedgerRows; after?: string } | null>()) {
      if (!e || typeof e !== 'object') continue;
      if (e.t === 'begin' && e.id && !this.done.has(e.id)) this.pending.set(e.id, e.records ?? e.rows ?? []);
      else if (e.t === 'done' && e.id) {
        this.done.add(e.id);
        this.pending.delete(e.id);
      } else if (e.t === 'cursor' && e.after) this.cursor = e.after;
      else if (e.t === 'compacted') this.compacted = true;
    }
  }

  /** Appends the entries in one write and fsyncs them before the step they guard goes on. */
  private record(entries: readonly Record<string, unknown>[]): void {
    // As lines, not spread into append(...): a sheet of several hundred thousand events would overflow the stack.
    this.file.appendLines(entries.map((e) => JSON.stringify(e)));
  }

  begin(id: string, rows: LedgerRows): void {
    this.beginMany([{ id, rows }]);
  }

  /** Several begin entries with one fsync (a batch of events appended together). */
  beginMany(entries: readonly { id: string; rows: LedgerRows }[]): void {
    this.record(entries.map(({ id, rows }) => beginEntry(id, rows)));
    for (const { id, rows } of entries) this.pending.set(id, rows);
  }

  finish(id: string): void {
    this.finishMany([id]);
  }

  /** Several done entries with one fsync (a sheet full of rows the ledger lacks). */
  finishMany(ids: readonly string[]): void {
    this.record(ids.map((id) => ({ t: 'done', id })));
    for (const id of ids) {
      this.pending.delete(id);
      this.done.add(id);
    }
  }

  setCursor(after: string): void {
    if (after === this.cursor) return;
    this.record([{ t: 'cursor', after }]);
    this.cursor = after;
  }

  /**
   * Rewrites the file atomically (temp file, fsync, rename) to what is still needed: the newest
   * keepDone done ids, every begin without done (with its rows) and the cursor. Call with the lock held.
   */
  compact(keepDone = LEDGER_KEEP_DONE): CompactionResult {
    const bytesBefore = this.size;
    const ids = [...this.done];
    const dropped = Math.max(0, ids.length - keepDone);
    const kept = ids.slice(dropped);
    const marker = this.compacted || dropped > 0;
    const pending = this.pending;
    const cursor = this.cursor;
    const bytesAfter = this.file.rewrite(
      (function* () {
        if (marker) yield { t: 'compacted', at: new Date().toISOString(), dropped };
        // In order of completion, so the next compaction again drops the oldest.
        for (const id of kept) yield { t: 'done', id };
        for (const [id, rows] of pending) yield beginEntry(id, rows);
        if (cursor !== undefined) yield { t: 'cursor', after: cursor };
      })(),
    );
    for (const id of ids.slice(0, dropped)) this.done.delete(id);
    this.compacted = marker;
    return { bytesBefore, bytesAfter, dropped };
  }

  close(): void {
    this.file.close();
  }
}

function beginEntry(id: string, rows: LedgerRows): Record<string, unknown> {
  return rows.length && Array.isArray(rows[0]) ? { t: 'begin', id, rows } : { t: 'begin', id, records: rows };
}
