import type { HeldLock, LockedTable, WriterLocks } from '../ports';
import { takeSheetLease, type SheetLeaseOptions } from './lease';

/**
 * Writer locks that also take the sheet's own lease (lease.ts) when the table keeps one (a Google sheet):
 * first the door's cheap lock (a file per machine, one n8n process, LockService), which settles
 * contenders on one machine without a request, then the lease in the spreadsheet, which settles every
 * door and machine. The lock handed back is lost when the lease is.
 */
export function withSheetLease(first: WriterLocks | undefined, opts: SheetLeaseOptions): WriterLocks {
  return {
    async acquire(table: LockedTable, alsoGuards?: readonly string[]): Promise<HeldLock> {
      const local = await first?.acquire(table, alsoGuards);
      if (!table.leaseTarget) return local ?? { release() {} };
      try {
        const target = await table.leaseTarget();
        const lease = await takeSheetLease(target.sheets, target.sheetTitle, table.label, opts);
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
