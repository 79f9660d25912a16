/**
 * `watch` appends changes to a sheet of the watched spreadsheet ("Company changes"), made when missing:
 * GoogleSheetTable opens sheets that exist, so the sheet is added here first (the core's addSheetIfMissing, one
 * request once per start). Sent through the core's SheetsRest, so it keeps Google's quota and retries as the table does.
 */
import { addSheetIfMissing } from '@company-data/core/sheets/google/add-sheet';
import { SheetsRest } from '@company-data/core/sheets/google/sheets-rest';
import { googleAuthClient, type GoogleCredentials } from './google-auth';
import { googleTokenSource } from './google-table';
import { systemClock } from '../transport/clock';
import { UndiciTransport } from '../transport/undici';

export interface AddSheetOptions {
  spreadsheetId: string;
  title: string;
  auth: GoogleCredentials;
  rootUrl?: string;
}

/** Adds the sheet when the spreadsheet has none of that title; true when it was added. */
export async function ensureGoogleSheet(opts: AddSheetOptions): Promise<boolean> {
  const transport = new UndiciTransport({ deadlineMs: 120_000 });
  const rest = new SheetsRest({
    spreadsheetId: opts.spreadsheetId,
    transport,
    tokens: googleTokenSource(googleAuthClient(opts.auth)),
    clock: systemClock,
    ...(opts.rootUrl ? { rootUrl: opts.rootUrl } : {}),
  });
  try {
    return await addSheetIfMissing(rest, opts.title);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new Error(`events-sheet: could not add the sheet "${opts.title}" to spreadsheet ${opts.spreadsheetId}: ${message}`);
  } finally {
    await transport.close();
  }
}
