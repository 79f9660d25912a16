import type { INodeParameterResourceLocator } from 'n8n-workflow';
import { DEFAULT_SHEETS_API_URL, SPREADSHEET_ID_REGEX, SPREADSHEET_URL_REGEX } from '../descriptions/common';
import type { GoogleSheetsAccess } from './google';

/** A Sheets API refusal, with Google's status and words, and what to do. */
export class SheetsApiError extends Error {
  override readonly name = 'SheetsApiError';
  constructor(
    message: string,
    readonly status: number,
    readonly hint: string,
  ) {
    super(message);
  }
}

/** The spreadsheet id of the Spreadsheet field, whichever mode (n8n extracts it; a value given otherwise is read here too). */
export function spreadsheetIdOf(value: unknown): string {
  const raw =
    typeof value === 'object' && value !== null ? String((value as INodeParameterResourceLocator).value ?? '') : String(value ?? '');
  const text = raw.trim();
  const fromUrl = new RegExp(SPREADSHEET_URL_REGEX).exec(text)?.[1];
  if (fromUrl) return fromUrl;
  if (new RegExp(`^${SPREADSHEET_ID_REGEX}$`).test(text)) return text;
  throw new SheetsApiError(
    text ? 'Spreadsheet: not a Google Sheets address or ID' : 'Spreadsheet: empty',
    0,
    'Paste the address of the spreadsheet from the browser (https://docs.google.com/spreadsheets/d/…), or its ID.',
  );
}

/** The Sheets API root from the node's options, without a trailing slash. */
export function sheetsApiRoot(options: { sheetsApiUrl?: unknown }): string {
  const url =
    typeof options.sheetsApiUrl === 'string' && options.sheetsApiUrl.trim() ? options.sheetsApiUrl.trim() : DEFAULT_SHEETS_API_URL;
  if (!/^https?:\/\//.test(url))
    throw new SheetsApiError(
      'Sheets API URL: must start with http:// or https://',
      0,
      `Leave the option out to use ${DEFAULT_SHEETS_API_URL}.`,
    );
  return url.replace(/\/+$/, '');
}

/** What to do about a Sheets API status, for the user of the node. */
function adviceFor(status: number, account: string | undefined): string {
  if (status === 403)
    return account
      ? `Share the spreadsheet with ${account} (Share → add the address as an Editor).`
      : 'Open the spreadsheet with the Google account of the credential and check it may edit it.';
  if (status === 404) return 'Check the spreadsheet address or ID: Google knows no spreadsheet by it (or it was deleted).';
  if (status === 401) return 'Open the Google credential and connect it again.';
  if (status === 429) return 'Google’s per-minute quota is used up: wait a minute and run again.';
  return 'Run again later; if it keeps failing, check the Sheets API URL option.';
}

function googleMessage(body: string): string | undefined {
  try {
    const m = (JSON.parse(body) as { error?: { message?: unknown } }).error?.message;
    return typeof m === 'string' ? m : undefined;
  } catch {
    return undefined;
  }
}

/**
 * One GET of the Sheets API for the editor's lists (sheets of a spreadsheet, a header row): signed by
 * the token source when there is one, sent again once with a new token after a 401.
 */
export async function sheetsGet<T>(access: GoogleSheetsAccess, root: string, path: string): Promise<T> {
  const send = async () => {
    const headers = access.tokens ? await access.tokens.authorize() : {};
    return await access.transport.request({ method: 'GET', url: `${root}${path}`, headers: { accept: 'application/json', ...headers } });
  };
  let res = await send();
  if (res.status === 401 && access.tokens) {
    await access.tokens.renew();
    res = await send();
  }
  if (res.status >= 200 && res.status < 300) return JSON.parse(res.body) as T;
  const words = googleMessage(res.body) ?? `HTTP ${res.status}`;
  throw new SheetsApiError(
    `Google Sheets refused the request (${res.status}): ${words}`,
    res.status,
    adviceFor(res.status, access.account),
  );
}

interface SheetProperties {
  sheetId?: number;
  title?: string;
  hidden?: boolean;
}

/** The tabs of a spreadsheet (spreadsheets.get, properties only). */
export async function listSheets(
  access: GoogleSheetsAccess,
  root: string,
  spreadsheetId: string,
): Promise<Required<Omit<SheetProperties, 'hidden'>>[]> {
  const fields = encodeURIComponent('sheets.properties(sheetId,title)');
  const res = await sheetsGet<{ sheets?: { properties?: SheetProperties }[] }>(
    access,
    root,
    `/v4/spreadsheets/${encodeURIComponent(spreadsheetId)}?fields=${fields}`,
  );
  return (res.sheets ?? [])
    .map((s) => s.properties ?? {})
    .filter((p): p is Required<SheetProperties> => typeof p.sheetId === 'number' && typeof p.title === 'string')
    .map(({ sheetId, title }) => ({ sheetId, title }));
}

/**
 * The title of the Sheet field's tab. Picked from the list, the field holds the tab's id (gid), which
 * survives a rename; typed by name, the title itself.
 */
export async function sheetTitle(access: GoogleSheetsAccess, root: string, spreadsheetId: string, sheet: unknown): Promise<string> {
  const rl = (typeof sheet === 'object' && sheet !== null ? sheet : { mode: 'name', value: sheet }) as INodeParameterResourceLocator;
  const value = String(rl.value ?? '').trim();
  if (!value) throw new SheetsApiError('Sheet: empty', 0, 'Pick the tab from the list, or type its name.');
  if (rl.mode !== 'list') return value;
  const found = (await listSheets(access, root, spreadsheetId)).find((s) => String(s.sheetId) === value);
  if (!found) throw new SheetsApiError('Sheet: the tab picked is no longer in the spreadsheet', 404, 'Pick the tab from the list again.');
  return found.title;
}

/** Quotes a tab title for A1 notation, always: Google reads an unquoted Q1 as a cell. */
export const a1Sheet = (title: string): string => `'${title.replace(/'/g, "''")}'`;

/** The header row of a tab, as shown (trailing empty cells left out by Google). */
export async function headerRow(access: GoogleSheetsAccess, root: string, spreadsheetId: string, title: string): Promise<string[]> {
  const range = encodeURIComponent(`${a1Sheet(title)}!1:1`);
  const res = await sheetsGet<{ values?: unknown[][] }>(
    access,
    root,
    `/v4/spreadsheets/${encodeURIComponent(spreadsheetId)}/values/${range}`,
  );
  return (res.values?.[0] ?? []).map((v) => (v === null || v === undefined ? '' : String(v)));
}
