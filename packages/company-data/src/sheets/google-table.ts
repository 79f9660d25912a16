import type { GoogleTokenSource, SheetsClock, Transport } from '@company-data/core/sheets/ports';
import type { SheetsRestTableOptions } from '@company-data/core/sheets/google/options';
import { SheetsRestTable } from '@company-data/core/sheets/google/sheets-rest-table';
import { googleAuthClient, signedInAccount, unauthenticatedAdvice, type GoogleAuthClient, type GoogleCredentials } from './google-auth';
import { systemClock } from '../transport/clock';
import { UndiciTransport } from '../transport/undici';

export { a1Sheet } from '@company-data/core/sheets/google/a1';
export { MAX_REQUEST_BYTES } from '@company-data/core/sheets/google/sheets-rest-table';

/** The client's clock (packages/core/transport.ts), so one fake clock drives the client and the sheet in tests. */
export type { SheetsClock };

/** The library's and CLI's options: the core table's, with Google credentials (or a signed-in client) for the token. */
export interface GoogleSheetTableOptions extends Omit<SheetsRestTableOptions, 'transport' | 'tokens' | 'clock'> {
  auth: GoogleCredentials | GoogleAuthClient;
  /** Default: undici. */
  transport?: Transport;
  clock?: SheetsClock;
}

/**
 * google-auth-library as the engine's token source: the client's cached token (renewed 5 minutes before
 * it expires), dropped on a 401 so the next request gets a new one; a bare access token cannot be renewed.
 */
export function googleTokenSource(auth: GoogleAuthClient): GoogleTokenSource {
  const account = signedInAccount(auth);
  return {
    ...(account ? { account } : {}),
    on401: unauthenticatedAdvice(auth),
    async authorize() {
      const headers: Record<string, string> = {};
      (await auth.getRequestHeaders()).forEach((value, name) => (headers[name] = value));
      return headers;
    },
    async renew() {
      const refresh = auth.credentials.refresh_token;
      if (!refresh) return false;
      // Dropping the access token makes the next request fetch a new one (JWT: a new assertion; user: the refresh token).
      auth.credentials = { refresh_token: refresh };
      return true;
    },
  };
}

/**
 * One sheet of a Google spreadsheet as a table: the core's SheetsRestTable (Sheets REST v4 over the
 * core's Transport), sent with undici and signed with google-auth-library.
 */
export class GoogleSheetTable extends SheetsRestTable {
  constructor(options: GoogleSheetTableOptions) {
    const { auth, transport, clock, ...rest } = options;
    const client = 'request' in auth ? auth : googleAuthClient(auth);
    super({
      ...rest,
      transport: transport ?? new UndiciTransport({ deadlineMs: 120_000 }),
      tokens: googleTokenSource(client),
      clock: clock ?? systemClock,
    });
  }
}
