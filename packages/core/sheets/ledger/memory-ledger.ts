import type { EventLedgerStore, LedgerCompaction, LedgerRows } from '../ports';

/**
 * An events writer's ledger that lives as long as one run (the n8n node's: one per execution). Nothing of
 * it outlives the run, and nothing needs to: EventRowsWriter reads the sheet's event_id column when it opens,
 * and that column is what makes a redelivered event a duplicate. What it cannot do, a file ledger can: finish
 * the rows of an event a killed run had begun (here the event is simply new again on its redelivery).
 */
export class MemoryEventLedger implements EventLedgerStore {
  readonly done = new Set<string>();
  readonly pending = new Map<string, LedgerRows>();
  cursor: string | undefined;
  readonly compacted = false;
  readonly size = 0;

  load(): void {}

  begin(id: string, rows: LedgerRows): void {
    this.pending.set(id, rows);
  }

  finish(id: string): void {
    this.pending.delete(id);
    this.done.add(id);
  }

  finishMany(ids: readonly string[]): void {
    for (const id of ids) this.finish(id);
  }

  setCursor(after: string): void {
    this.cursor = after;
  }

  compact(): LedgerCompaction {
    return { bytesBefore: 0, bytesAfter: 0, dropped: 0 };
  }

  close(): void {}
}
