import type { HeldLock, LockedTable, SheetsClock, WriterLocks } from '@company-data/core/sheets/ports';

/** How long an execution waits for another one writing the same sheet, and how often it looks. */
export const LOCK_WAIT_MS = 10 * 60_000;
const LOOK_EVERY_MS = 200;

/**
 * Writer locks that wait their turn instead of refusing. The service delivers a morning's changes side by side,
 * so the Company Data Trigger starts many executions at once, each with one change for the same sheet: they take
 * the sheet one after another (each a few requests long) rather than all but one failing. Gives up after
 * `maxWaitMs` with the lock's own message, and at once when the execution is stopped.
 */
export function waitingLocks(locks: WriterLocks, clock: SheetsClock, opts: { signal?: AbortSignal; maxWaitMs?: number } = {}): WriterLocks {
  return {
    async acquire(table: LockedTable, alsoGuards?: readonly string[]): Promise<HeldLock> {
      const until = clock.now() + (opts.maxWaitMs ?? LOCK_WAIT_MS);
      for (;;) {
        try {
          return await locks.acquire(table, alsoGuards);
        } catch (error) {
          if (opts.signal?.aborted || clock.now() >= until) throw error;
        }
        await clock.sleep(LOOK_EVERY_MS, opts.signal);
      }
    },
  };
}
