/**
 * The CLI's events writer: the core's EventRowsWriter (packages/core/sheets/events) with the ledger in a
 * JSON-lines file of the state folder and the writer lock in lock files.
 */
import { EventRowsWriter } from '@company-data/core/sheets/events/events-writer';
import type { EventRowsWriterOptions } from '@company-data/core/sheets/events/options';
import { defaultStateDir, tableStateFile } from './state-dir';
import { EventLedger } from './event-ledger';
import { sheetLocks } from './writer-lock';

export { EVENT_COLUMNS, eventRecords, readEvent, type EventRecord } from '@company-data/core/sheets/events/event-records';
export type { AcceptOutcome } from '@company-data/core/sheets/events/options';

export interface EventSheetOptions extends Omit<EventRowsWriterOptions, 'ledger' | 'locks' | 'ledgerName'> {
  /** Ledger file; default <state dir>/events-<table hash>.jsonl. */
  ledgerPath?: string;
  stateDir?: string;
}

/** Writes events to a sheet as rows, each exactly once (see EventRowsWriter), keeping its ledger in a file. */
export class EventSheetWriter extends EventRowsWriter {
  declare readonly ledger: EventLedger;

  constructor(options: EventSheetOptions) {
    const { ledgerPath, stateDir, ...rest } = options;
    const ledger = new EventLedger(ledgerPath ?? tableStateFile(stateDir ?? defaultStateDir(), 'events', options.table.id));
    // The sheet's lock, with the ledger's: a second writer with another state folder (or ledger) has its own
    // ledger, and both would append to one sheet, each saving over the other's rows.
    super({ ...rest, ledger, locks: sheetLocks, ledgerName: ledger.path });
  }
}
