/**
 * `watch` appends changes to a sheet of the watched spreadsheet ("Company changes"), made when missing:
 * GoogleSheetTable opens sheets that exist, so the sheet is added here first (one read; one write when it
 * is missing). Loaded only with a Google sheet, as the table is.
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

/** Adds the sheet when the spreadsheet has none of that title (Google compares titles without case); true when it was added. */
export async function ensureGoogleSheet(opts: AddSheetOptions): Promise<boolean> {
  const api = new sheets_v4.Sheets({ auth: googleAuthClient(opts.auth), ...(opts.rootUrl ? { rootUrl: opts.rootUrl } : {}) });
  const has = async () => {
    const res = await api.spreadsheets.get({ spreadsheetId: opts.spreadsheetId, fields: 'sheets(properties(title))' });
    return (res.data.sheets ?? []).some((s) => (s.properties?.title ?? '').toLowerCase() === opts.title.toLowerCase());
  };
  try {
    if (await has()) return false;
    await api.spreadsheets.batchUpdate({
      spreadsheetId: opts.spreadsheetId,
      requestBody: { requests: [{ addSheet: { properties: { title: opts.title } } }] },
    });
    return true;
  } catch (err) {
    // Someone (another watch) added it in between: it is there, which is what was wanted.
    if (/already exists/i.test(googleMessage(err))) return false;
    throw new Error(`events-sheet: could not add the sheet "${opts.title}" to spreadsheet ${opts.spreadsheetId}: ${googleMessage(err)}`);
  }
}
