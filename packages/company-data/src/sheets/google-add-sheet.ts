/**
 * `watch` appends changes to a sheet of the watched spreadsheet ("Company changes"), made when missing:
 * GoogleSheetTable opens sheets that exist, so the sheet is added here first. One request, once per start:
 * the add itself, whose "already exists" answer means there is nothing to do (Google compares titles without
 * case, as this needs). Loaded only with a Google sheet, as the table is.
 */
import { sheets_v4 } from 'googleapis/build/src/apis/sheets';
import { googleAuthClient, type GoogleCredentials } from './google-auth';

export interface AddSheetOptions {
  spreadsheetId: string;
  title: string;
  auth: GoogleCredentials;
  rootUrl?: string;
}

const googleMessage = (err: unknown): string => {
  const e = err as { response?: { data?: { error?: { message?: string } } }; message?: string };
  return e.response?.data?.error?.message ?? e.message ?? String(err);
};

/** Adds the sheet when the spreadsheet has none of that title; true when it was added. */
export async function ensureGoogleSheet(opts: AddSheetOptions): Promise<boolean> {
  const api = new sheets_v4.Sheets({ auth: googleAuthClient(opts.auth), ...(opts.rootUrl ? { rootUrl: opts.rootUrl } : {}) });
  try {
    await api.spreadsheets.batchUpdate({
      spreadsheetId: opts.spreadsheetId,
      requestBody: { requests: [{ addSheet: { properties: { title: opts.title } } }] },
    });
    return true;
  } catch (err) {
    // It is there (made by an earlier run, a person, or another watch just now): what was wanted.
    if (/already exists/i.test(googleMessage(err))) return false;
    throw new Error(`events-sheet: could not add the sheet "${opts.title}" to spreadsheet ${opts.spreadsheetId}: ${googleMessage(err)}`);
  }
}
