/**
 * The writer lock in Apps Script: LockService's document lock, the first and cheap line between two runs
 * on one spreadsheet (two people, or a click during the scheduled run). The second waits up to WAIT_MS
 * for the first, then is told another run is busy; nothing is billed before the lock is held. Apps Script
 * releases the lock when the execution ends, also when it is killed at six minutes.
 */
import { withSheetLease } from '@company-data/core/sheets/lease/lease-locks';
import type { HeldLock, SheetsClock, WriterLocks } from '@company-data/core/sheets/ports';

/** How long a second run waits for the first (tryLock; Google's reference sets no maximum). */
export const WAIT_MS = 30_000;

export class BusyError extends Error {
  constructor() {
    super('Another Company Data run is working on this spreadsheet. Try again when it has finished (the sidebar shows its progress).');
    this.name = 'BusyError';
  }
}

export const documentLocks: WriterLocks = {
  acquire(): HeldLock {
    const lock = LockService.getDocumentLock();
    if (!lock) throw new Error('The add-on runs only from a spreadsheet (no document lock outside one).');
    if (!lock.tryLock(WAIT_MS)) throw new BusyError();
    return { release: () => lock.releaseLock() };
  },
};

/**
 * The add-on's writer locks: LockService first (cheap, this spreadsheet's executions), then the sheet's
 * lease in the spreadsheet (every door and machine). Apps Script has no timers: the lease renews when the
 * writer checks it, before each save (background: false).
 */
export function addonLocks(clock: SheetsClock): WriterLocks {
  return withSheetLease(documentLocks, { clock, who: 'the Google Sheets add-on', background: false });
}
