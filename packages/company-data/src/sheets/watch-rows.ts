/**
 * `company-data watch`, the row half: the core's RowChangeWriter (packages/core/watch/row-writer.ts) writes each
 * change into its company's rows; the changes read but not yet applied wait here, in the state folder.
 */
import { LineFile } from '../files/line-file';
import { tableStateFile } from './state-dir';

export { RowChangeWriter, type RowWriteReport } from '@company-data/core/watch/row-writer';

/** The changes read but not yet in the rows: kept in the state folder until applied. */
export class PendingChanges {
  private readonly file: LineFile;

  constructor(stateDir: string, tableId: string) {
    this.file = new LineFile(tableStateFile(stateDir, 'watch', tableId).replace(/\.jsonl$/, '-rows.jsonl'));
  }

  add(events: readonly unknown[]): void {
    if (events.length) this.file.append(...events.map((event) => ({ event })));
  }

  /** The events waiting, oldest first (an event recorded twice comes once). */
  waiting(): unknown[] {
    const byId = new Map<string, unknown>();
    const done = new Set<string>();
    this.file.scan((line, _offset, complete) => {
      if (!complete) return;
      try {
        const r = JSON.parse(line) as { event?: { id?: unknown }; done?: unknown };
        if (r.event && typeof r.event.id === 'string') byId.set(r.event.id, r.event);
        if (Array.isArray(r.done)) for (const id of r.done) done.add(String(id));
      } catch {
        // A torn line: its event is read again by the next poll or was never acknowledged.
      }
    });
    return [...byId].filter(([id]) => !done.has(id)).map(([, e]) => e);
  }

  /** These changes are in their rows; once none waits, the file starts afresh. */
  settle(ids: readonly string[]): void {
    if (ids.length) this.file.append({ done: ids });
    // No await between the check and the rewrite: nothing can be added in between.
    if (this.waiting().length === 0) this.file.rewrite([]);
  }

  close(): void {
    this.file.close();
  }
}
