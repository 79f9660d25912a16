import type { HeldLock, LockedTable, WriterLocks } from '../ports';
import { LeaseBusyError, takeSheetLease, type SheetLease, type SheetLeaseOptions } from './lease';
import type { LeaseSheets } from './port';
import { takeWhenFree, type LeaseWait, type LookPace } from '../take-when-free';

export type { LeaseWait } from '../take-when-free';

/** Waiting for a lease another run holds looks again after 1 s, then 2, 4, … up to 10 s. */
const LEASE_PACE: LookPace = { firstMs: 1000, longestMs: 10_000 };

/**
 * Writer locks that also take the sheet's own lease (lease.ts) when the table keeps one (a Google sheet):
 * first the door's cheap lock (a file per machine, one n8n process, LockService), which settles
 * contenders on one machine without a request, then the lease in the spreadsheet, which settles every
 * door and machine. The lock handed back is lost when the lease is.
 */
export function withSheetLease(first: WriterLocks | undefined, opts: SheetLeaseOptions, wait?: LeaseWait): WriterLocks {
  return {
    async acquire(table: LockedTable, alsoGuards?: readonly string[]): Promise<HeldLock> {
      const local = await first?.acquire(table, alsoGuards);
      if (!table.leaseTarget) return local ?? { release() {} };
      try {
        const target = await table.leaseTarget();
        const lease = await takeWaiting(target.sheets, target.sheetTitle, table.label, opts, wait);
        return {
          async release() {
            try {
              await lease.release();
            } finally {
              await local?.release();
            }
          },
          lost: () => lease.lost(),
          check: () => lease.check(),
        };
      } catch (e) {
        await local?.release();
        // eslint-disable-next-line @n8n/community-nodes/require-node-api-error -- shared with the CLI; the node converts errors at its entry points
        throw e;
      }
    },
  };
}

/**
 * Takes the lease; while another run holds it and `wait` allows, looks again with growing pauses (each look is
 * one of Google's writes and one read, so not every 200 ms). Any other refusal, a Stop, or the end of the wait
 * gives the refusal as it is.
 */
function takeWaiting(
  sheets: LeaseSheets,
  sheetTitle: string,
  label: string,
  opts: SheetLeaseOptions,
  wait: LeaseWait | undefined,
): Promise<SheetLease> {
  return takeWhenFree(() => takeSheetLease(sheets, sheetTitle, label, opts), {
    busy: (error) => error instanceof LeaseBusyError,
    clock: opts.clock,
    wait,
    pace: LEASE_PACE,
  });
}
