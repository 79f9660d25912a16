import type { INodeParameterResourceLocator } from 'n8n-workflow';
import { a1Sheet } from '@company-data/core/sheets';
import { SheetsRest } from '@company-data/core/sheets/google/sheets-rest';
import { listSheets } from '@company-data/core/sheets/google/sheet-list';
import type { SheetsClock } from '@company-data/core/sheets/ports';
import { spreadsheetIdOf as idOf } from '@company-data/core/sheets/google/spreadsheet-address';
import { DEFAULT_SHEETS_API_URL } from '../descriptions/common';
import type { GoogleSheetsAccess } from './google';

/** A field of the node set wrong (the spreadsheet, the sheet, the API address): named, with what to do. */
export class SheetsFieldError extends Error {
  override readonly name = 'SheetsFieldError';
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
  }
}

/**
 * The spreadsheet id of the Spreadsheet field, whichever mode (n8n extracts it; a value given otherwise is read
 * here too). A value that is none is the core's SheetsError, worded by the node's one mapping.
 */
export function spreadsheetIdOf(value: unknown): string {
  const raw =
    typeof value === 'object' && value !== null ? String((value as INodeParameterResourceLocator).value ?? '') : String(value ?? '');
  return idOf(raw);
}

/** The Sheets API root from the node's options, without a trailing slash. */
export function sheetsApiRoot(options: { sheetsApiUrl?: unknown }): string {
  const url =
    typeof options.sheetsApiUrl === 'string' && options.sheetsApiUrl.trim() ? options.sheetsApiUrl.trim() : DEFAULT_SHEETS_API_URL;
  if (!/^https?:\/\//.test(url))
    throw new SheetsFieldError(
      'Sheets API URL: must start with http:// or https://',
      `Leave the option out to use ${DEFAULT_SHEETS_API_URL}.`,
    );
  return url.replace(/\/+$/, '');
}

/**
 * One spreadsheet through the core's Sheets REST client: Google's quota, retries and errors as the engine has
 * them; the signal (the execution's cancel signal) ends its waits.
 */
export function spreadsheetRest(
  access: GoogleSheetsAccess,
  root: string,
  spreadsheetId: string,
  clock: SheetsClock,
  signal?: AbortSignal,
): SheetsRest {
  return new SheetsRest({
    spreadsheetId,
    transport: access.transport,
    ...(access.tokens ? { tokens: access.tokens } : {}),
    clock,
    rootUrl: `${root}/`,
    ...(signal ? { signal } : {}),
  });
}

/**
 * The title of the Sheet field's tab. Picked from the list, the field holds the tab's id (gid), which
 * survives a rename; typed by name, the title itself.
 */
export async function sheetTitle(rest: SheetsRest, sheet: unknown): Promise<string> {
  const rl = (typeof sheet === 'object' && sheet !== null ? sheet : { mode: 'name', value: sheet }) as INodeParameterResourceLocator;
  const value = String(rl.value ?? '').trim();
  if (!value) throw new SheetsFieldError('Sheet: empty', 'Pick the tab from the list, or type its name.');
  if (rl.mode !== 'list') return value;
  const found = (await listSheets(rest)).find((s) => String(s.sheetId) === value);
  if (!found) throw new SheetsFieldError('Sheet: the tab picked is no longer in the spreadsheet', 'Pick the tab from the list again.');
  return found.title;
}

/** The header row of a tab, as shown (trailing empty cells left out by Google). */
export async function headerRow(rest: SheetsRest, title: string): Promise<string[]> {
  const res = await rest.send<{ values?: unknown[][] }>({
    kind: 'read',
    method: 'GET',
    path: `/values/${encodeURIComponent(`${a1Sheet(title)}!1:1`)}`,
  });
  return (res.values?.[0] ?? []).map((v) => (v === null || v === undefined ? '' : String(v)));
}
