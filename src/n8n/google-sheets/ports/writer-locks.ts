import type { HeldLock, LockedTable, WriterLocks } from '@company-data/core/sheets/ports';

/** Tables being written by an execution of this n8n process, by table id. */
const held = new Map<string, string>();

/**
 * One writer per sheet within this n8n process: a second execution that would write the same sheet
 * at the same time (a schedule firing while a manual run goes) is refused, naming the sheet. n8n keeps
 * nothing shared between the workers of queue mode that a node could lock with while running, so there
 * it holds per worker only (docs/decisions/sheets-engine.md, "The spreadsheet holds the writer's lease, as a hidden sheet").
 */
export const inProcessWriterLocks: WriterLocks = {
  acquire(table: LockedTable, alsoGuards: readonly string[] = []): HeldLock {
    const keys = [table.id, ...alsoGuards];
    const busy = keys.find((k) => held.has(k));
    if (busy !== undefined)
      throw new Error(
        `lock: ${table.label} is being written by another execution of this workflow or another workflow in this n8n; wait for it to finish, or stop it`,
      );
    for (const k of keys) held.set(k, table.label);
    let released = false;
    return {
      release() {
        if (released) return;
        released = true;
        for (const k of keys) held.delete(k);
      },
    };
  },
};
