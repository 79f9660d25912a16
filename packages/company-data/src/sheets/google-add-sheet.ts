/**
 * `watch` appends changes to a sheet of the watched spreadsheet ("Company changes"), made when missing:
 * GoogleSheetTable opens sheets that exist, so the sheet is added here first. One request, once per start:
 * the add itself, whose "already exists" answer means there is nothing to do (Google compares titles without
 * case, as this needs). Sent through the core's SheetsRest, so it keeps Google's quota and retries as the table does.
 */
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
    await rest.send({
      kind: 'write',
      method: 'POST',
      path: ':batchUpdate',
      body: JSON.stringify({ requests: [{ addSheet: { properties: { title: opts.title } } }] }),
      // Sent twice it would answer "already exists", which is taken as done below.
      idempotent: true,
    });
    return true;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    // It is there (made by an earlier run, a person, or another watch just now): what was wanted.
    if (/already exists/i.test(message)) return false;
    throw new Error(`events-sheet: could not add the sheet "${opts.title}" to spreadsheet ${opts.spreadsheetId}: ${message}`);
  } finally {
    await transport.close();
  }
}
