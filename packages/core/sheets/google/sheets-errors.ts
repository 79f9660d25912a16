import { SheetsError } from '../errors';

/** What to do about a refusal, by Google's status. */
function advice(
  status: number | undefined,
  ctx: { spreadsheetId: string; account?: string; on401?: string; protectedCell?: boolean },
): string {
  switch (status) {
    case 401:
      return ctx.on401 ?? 'the credentials were refused or have expired';
    case 403:
      if (ctx.protectedCell)
        return `a protected range covers cells this run writes: ask the spreadsheet's owner to add ${ctx.account ?? 'this account'} to its editors (Data → Protect sheets and ranges), or enrich a copy of the sheet`;
      return ctx.account
        ? `share the spreadsheet with ${ctx.account} as an Editor (Share in Google Sheets), or check the Sheets API is enabled for its project`
        : 'the account has no edit access to this spreadsheet: share it with the account as an Editor, or check the Sheets API is enabled';
    case 404:
      return `no spreadsheet has the id ${ctx.spreadsheetId}: check the id (the part of the URL after /d/)`;
    case 429:
      return "Google's quota (60 reads and 60 writes a minute per user) is still exhausted after backing off: wait a minute and run again; finished work is kept";
    default:
      return status !== undefined && status >= 500 ? 'Google Sheets is failing on its side: run again later; finished work is kept' : '';
  }
}

/** Google's error body, {"error":{"code","message","status"}}, when the answer has one. */
export function googleErrorOf(body: string): { message?: string; status?: string } | undefined {
  try {
    const e = (JSON.parse(body) as { error?: unknown })?.error;
    if (e && typeof e === 'object') {
      const { message, status } = e as { message?: unknown; status?: unknown };
      return { ...(typeof message === 'string' ? { message } : {}), ...(typeof status === 'string' ? { status } : {}) };
    }
  } catch {
    /* not JSON: a proxy's page */
  }
  return undefined;
}

/**
 * A refusal by Google Sheets (or no answer from it) as a SheetsError: the message names Google's status,
 * reason and message and, in brackets, what to do; never the token. It reads the same in every door (it names
 * no setting), so it carries no field, and what to do is in its rule (no hint apart).
 */
export function sheetsError(
  status: number | undefined,
  google: { message?: string; status?: string } | undefined,
  fallback: string,
  ctx: { spreadsheetId: string; account?: string; on401?: string },
): SheetsError {
  const msg = (google?.message ?? fallback).replace(/Bearer\s+\S+/g, 'Bearer ***');
  const protectedCell = /protected cell/i.test(msg);
  const todo = advice(status, { ...ctx, protectedCell });
  return new SheetsError({
    code: status === undefined ? 'google_unreachable' : 'google_refused',
    rule: `Google Sheets${status ? ` ${status}` : ''}${google?.status ? ` ${google.status}` : ''}: ${msg}${todo ? ` (${todo})` : ''}`,
    ...(status !== undefined ? { status } : {}),
    ...(google?.status ? { reason: google.status } : {}),
    protectedCell,
  });
}
