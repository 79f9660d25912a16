import type { HeldLock, LockedTable, SheetsClock, WriterLocks } from '@company-data/core/sheets/ports';
import { takeWhenFree, type LookPace } from '@company-data/core/sheets/take-when-free';

/** How long an execution waits for another one writing the same sheet, and how often it looks. */
export const LOCK_WAIT_MS = 10 * 60_000;
/** A look at this process's own locks costs no request, so it comes at an even, short pace. */
const LOOK_EVERY: LookPace = { firstMs: 200, longestMs: 200 };

/**
 * Writer locks that wait their turn instead of refusing. The service delivers a morning's changes side by side,
 * so the Company Data Trigger starts many executions at once, each with one change for the same sheet: they take
 * the sheet one after another (each a few requests long) rather than all but one failing. Gives up after
 * `maxWaitMs` with the lock's own message, and at once when the execution is stopped.
 */
export function waitingLocks(locks: WriterLocks, clock: SheetsClock, opts: { signal?: AbortSignal; maxWaitMs?: number } = {}): WriterLocks {
  return {
    acquire(table: LockedTable, alsoGuards?: readonly string[]): Promise<HeldLock> {
      const wait = { maxMs: opts.maxWaitMs ?? LOCK_WAIT_MS, ...(opts.signal ? { signal: opts.signal } : {}) };
      // Any refusal is "held by another execution": this process's locks refuse for nothing else.
      return takeWhenFree(async () => await locks.acquire(table, alsoGuards), { busy: () => true, clock, wait, pace: LOOK_EVERY });
    },
  };
}
