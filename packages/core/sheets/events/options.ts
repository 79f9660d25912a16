import type { SummaryLang } from '../../event-summary';
import type { Table } from '../table/table';
import type { EventLedgerStore, WriterLocks } from '../ports';
import type { SheetsField } from '../errors';

/** How the events writer (EventRowsWriter: events into rows, each exactly once) is built. */
export interface EventRowsWriterOptions {
  table: Table;
  /** Which events are in the sheet, durably (the CLI's ledger file). */
  ledger: EventLedgerStore;
  /** Taken on open, with the ledger (ledgerName) guarded too; none: nothing stops a second writer. */
  locks?: WriterLocks;
  /** What the lock calls the ledger (the CLI: its file path), so two writers sharing a ledger meet at one lock. */
  ledgerName?: string;
  /**
   * Make the sheet, with the events' header, when there is none of its title (a table that can: Google
   * Sheets). Made under the lock, so the writer knows it empty and need not read it.
   */
  createWhenMissing?: boolean;
  /** The setting that named the table, for errors (default eventsSheet; the CLI's events-to-sheet names it with its sheet). */
  tableField?: SheetsField;
  /** Language of the summary column (default en). */
  lang?: SummaryLang;
  /** Compact the ledger when it is larger than this (default 3 MiB), on open and while running. */
  compactAboveBytes?: number;
  /** Done ids a compacted ledger keeps (default 50,000); older ones are known from the sheet. */
  keepDone?: number;
  /**
   * Told of each event written other than as sent (cells cut, a stub row) or not written at all, with
   * what to do. `id` is the event's id, or what stood in its place (untrusted: quote it when logging).
   */
  onProblem?: (id: string, problem: string) => void;
}

/** refused: not written (no usable event id); every other event is in the sheet, if need be as a stub row. */
export type AcceptOutcome = 'appended' | 'duplicate' | 'ignored' | 'refused';

/** The events writer's surface, as the node and the CLI drive it. */
export interface EventRows {
  /** Takes the lock, reads the ledger, makes sure the header exists and settles what a crash left half done. */
  open(): Promise<void>;
  /** Stores one event (serialised with any other call), answering whether it was new. */
  accept(event: { id: string; type: string }): Promise<AcceptOutcome>;
  /**
   * Stores events in batches (one ledger write of intent, one Google append, one of completion per
   * batch), serialised with any other call; answers for each event, in order, whether it was new.
   */
  acceptMany(events: readonly { id: string; type: string }[]): Promise<AcceptOutcome[]>;
  close(): Promise<void>;
}
