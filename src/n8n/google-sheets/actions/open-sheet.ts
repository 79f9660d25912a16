import type { IExecuteFunctions } from 'n8n-workflow';
import { SheetsRestTable, type SheetsClock } from '@company-data/core/sheets';
import type { SheetsRest } from '@company-data/core/sheets/google/sheets-rest';
import { n8nClock } from '../../transport/clock';
import { googleSheetsAccess } from '../transport/google';
import { sheetTitle, spreadsheetRest } from '../transport/sheets-api';
import type { SheetParams } from './sheet-params';

/**
 * The sheet an operation works on, opened over n8n's helpers and credentials. Everything in it is tied to
 * the execution's cancel signal: Stop ends Google's quota waits and retries at once.
 */
export interface OpenSheet {
  spreadsheetId: string;
  /** The tab's title now (a tab picked from the list is found by its id). */
  title: string;
  table: SheetsRestTable;
  clock: SheetsClock;
  signal?: AbortSignal;
  /** The spreadsheet itself (its tabs), through the same access, clock and signal. */
  rest: SheetsRest;
  /** Another tab of the same spreadsheet (the events sheet), reached the same way. */
  tableOf(title: string): SheetsRestTable;
}

/** The one way every operation of the node opens its sheet. */
export async function openSheet(ctx: IExecuteFunctions, p: SheetParams): Promise<OpenSheet> {
  const signal = ctx.getExecutionCancelSignal();
  const clock = n8nClock(signal);
  const access = await googleSheetsAccess(ctx, p.authentication);
  const rest = spreadsheetRest(access, p.root, p.spreadsheetId, clock, signal);
  const title = await sheetTitle(rest, p.sheet);
  const tableOf = (sheet: string) =>
    new SheetsRestTable({
      spreadsheetId: p.spreadsheetId,
      sheet,
      transport: access.transport,
      ...(access.tokens ? { tokens: access.tokens } : {}),
      clock,
      rootUrl: `${p.root}/`,
      ...(signal ? { signal } : {}),
    });
  return { spreadsheetId: p.spreadsheetId, title, table: tableOf(title), clock, ...(signal ? { signal } : {}), rest, tableOf };
}
