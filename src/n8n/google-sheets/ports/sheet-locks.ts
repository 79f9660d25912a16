import type { IExecuteFunctions } from 'n8n-workflow';
import { withSheetLease, type LeaseWait } from '@company-data/core/sheets/lease/lease-locks';
import type { SheetsClock, WriterLocks } from '@company-data/core/sheets/ports';
import { inProcessWriterLocks } from './writer-locks';

/**
 * The node's writer locks: one execution of this n8n process at a time first (no request), then the lease
 * the spreadsheet itself holds (core sheets/lease), which the CLI, the add-on and n8n's other workers (queue
 * mode) see too. A lease held elsewhere is refused at once, naming its holder, unless `wait` lets the execution
 * wait its turn (Write Events to Rows: the trigger starts one execution per delivery, side by side on workers).
 */
export function sheetWriterLocks(
  ctx: IExecuteFunctions,
  clock: SheetsClock,
  first: WriterLocks = inProcessWriterLocks,
  wait?: LeaseWait,
): WriterLocks {
  const workflow = ctx.getWorkflow?.();
  const execution = ctx.getExecutionId?.();
  const who = `n8n workflow "${workflow?.name ?? workflow?.id ?? 'unnamed'}"${execution ? ` (execution ${execution})` : ''}`;
  return withSheetLease(first, { clock, who }, wait);
}
