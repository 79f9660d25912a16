import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Durable record of which events are in the sheet. Append-only JSON lines, each fsync'd before the
 * step it guards goes on:
 *   {"t":"begin","id":…,"rows":[[…]]}  before the rows are appended (holds the rows to re-append)
 *   {"t":"done","id":…}                 after the sheet accepted them
 *   {"t":"cursor","after":…}            poll position (the last event stored)
 * A crash between begin and done leaves the event "pending": on start it is reconciled with the
 * event_id column of the sheet, appending only the rows that are missing. A torn last line is ignored.
 */
export class EventLedger {
  readonly done = new Set<string>();
  readonly pending = new Map<string, string[][]>();
  cursor: string | undefined;
  private fd: number | undefined;

  constructor(readonly path: string) {
    if (!existsSync(path)) return;
    for (const line of readFileSync(path, 'utf8').split('\n')) {
      let e: { t?: string; id?: string; rows?: string[][]; after?: string };
      try {
        e = line ? (JSON.parse(line) as typeof e) : {};
      } catch {
        continue; // the last line, torn by a crash mid-write: that event was not stored
      }
      if (e.t === 'begin' && e.id && !this.done.has(e.id)) this.pending.set(e.id, e.rows ?? []);
      else if (e.t === 'done' && e.id) {
        this.done.add(e.id);
        this.pending.delete(e.id);
      } else if (e.t === 'cursor' && e.after) this.cursor = e.after;
    }
  }

  private record(entry: Record<string, unknown>): void {
    if (this.fd === undefined) {
      mkdirSync(dirname(this.path), { recursive: true });
      this.fd = openSync(this.path, 'a', 0o600);
    }
    writeSync(this.fd, JSON.stringify(entry) + '\n');
    fsyncSync(this.fd);
  }

  begin(id: string, rows: string[][]): void {
    this.record({ t: 'begin', id, rows });
    this.pending.set(id, rows);
  }

  finish(id: string): void {
    this.record({ t: 'done', id });
    this.pending.delete(id);
    this.done.add(id);
  }

  setCursor(after: string): void {
    if (after === this.cursor) return;
    this.record({ t: 'cursor', after });
    this.cursor = after;
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
