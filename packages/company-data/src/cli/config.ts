/**
 * Configuration shared by every CLI command: where the service is and which key to use, and the
 * Google credentials of the sheets commands. Flags win over environment variables.
 *
 *   --base-url URL          COMPANY_DATA_BASE_URL
 *   --api-key KEY           COMPANY_DATA_API_KEY
 *   --google-key-file PATH  COMPANY_DATA_GOOGLE_KEY_FILE, GOOGLE_APPLICATION_CREDENTIALS  (service-account JSON key)
 *   --google-token TOKEN    COMPANY_DATA_GOOGLE_TOKEN    (OAuth2 access token)
 *   --google-oauth-file PATH COMPANY_DATA_GOOGLE_OAUTH_FILE (authorized-user JSON: client_id, client_secret, refresh_token)
 *   --google-account                                      (the account signed in with `company-data auth login`, kept in the state folder)
 *   --sheets-root-url URL   COMPANY_DATA_SHEETS_ROOT_URL (another Sheets API root, e.g. a local stand-in)
 *
 * With neither a base URL nor a key, commands run against the in-process sandbox (synthetic data).
 */
import { existsSync, readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { Option, type Command } from 'commander';
import { CompanyDataClient } from '../index';
import type { GoogleCredentials } from '../sheets/google-auth';
import { accountCredentials } from '../sheets/google-account';
import { CsvTable, csvFormulaModes, type CsvFormulas } from '../sheets/csv-table';
import type { Table } from '../sheets/table';
import type { Lang } from '@company-data/core/schemas/common';
import { spreadsheetIdOf } from '../sheets/spreadsheet-address';

export interface ApiFlags {
  baseUrl?: string;
  apiKey?: string;
}

export interface GoogleFlags {
  googleKeyFile?: string;
  googleToken?: string;
  googleOauthFile?: string;
  googleAccount?: boolean;
  /** The state folder, where --google-account's sign-in is kept. */
  stateDir?: string;
  sheetsRootUrl?: string;
}

export function addApiOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--base-url <url>', 'service address').env('COMPANY_DATA_BASE_URL'))
    .addOption(
      new Option('--api-key <key>', 'API key (prefer the environment variable: flags show in process lists)').env('COMPANY_DATA_API_KEY'),
    );
}

export function addGoogleOptions(cmd: Command): Command {
  return cmd
    .addOption(
      new Option('--google-key-file <path>', 'Google service-account key (JSON); share the spreadsheet with its client_email').env(
        'COMPANY_DATA_GOOGLE_KEY_FILE',
      ),
    )
    .addOption(new Option('--google-token <token>', 'Google OAuth2 access token').env('COMPANY_DATA_GOOGLE_TOKEN'))
    .addOption(
      new Option('--google-oauth-file <path>', 'Google OAuth2 authorized-user JSON (client_id, client_secret, refresh_token)').env(
        'COMPANY_DATA_GOOGLE_OAUTH_FILE',
      ),
    )
    .option('--google-account', 'use the Google account signed in with `company-data auth login` (kept in the state folder)')
    .addOption(
      new Option('--sheets-root-url <url>', 'Google Sheets API root (default https://sheets.googleapis.com/)')
        .env('COMPANY_DATA_SHEETS_ROOT_URL')
        .hideHelp(),
    );
}

export interface OpenedClient {
  client: CompanyDataClient;
  /** True when running against the in-process sandbox. */
  offline: boolean;
  close(): Promise<void>;
}

/** Starts the offline sandbox in this process; kept apart so the import happens only when needed. */
export type OfflineStarter = () => Promise<{ url: string; apiKey: string; close(): Promise<void> }>;

let offlineStarter: OfflineStarter | undefined;
/** The CLI entry registers how to start the sandbox (src/sandbox), so this module does not import it. */
export function setOfflineStarter(start: OfflineStarter): void {
  offlineStarter = start;
}

/** Both or neither of base URL and key; throws naming the missing one. Undefined means: the offline sandbox. */
export function apiTarget(flags: ApiFlags): { baseUrl: string; apiKey: string } | undefined {
  const baseUrl = flags.baseUrl?.trim();
  const apiKey = flags.apiKey?.trim();
  if (!baseUrl && !apiKey) return undefined;
  if (!apiKey) throw new Error('api-key: is required with --base-url; set --api-key or COMPANY_DATA_API_KEY');
  if (!baseUrl) throw new Error('base-url: is required with --api-key; set --base-url or COMPANY_DATA_BASE_URL');
  if (!/^https?:\/\//i.test(baseUrl)) throw new Error('base-url: must be an http:// or https:// address');
  return { baseUrl, apiKey };
}

/** `lang`: the client's default language for operations that take one (a call's own lang wins). */
export async function openClient(flags: ApiFlags, say: (line: string) => void, opts: { lang?: Lang } = {}): Promise<OpenedClient> {
  const target = apiTarget(flags);
  if (!target) {
    if (!offlineStarter) throw new Error('base-url: set --base-url and --api-key (or COMPANY_DATA_BASE_URL and COMPANY_DATA_API_KEY)');
    const sb = await offlineStarter();
    say('No --base-url or --api-key: using the offline sandbox. All data is synthetic, not real companies.');
    const client = new CompanyDataClient({ baseUrl: sb.url, apiKey: sb.apiKey, ...opts });
    return {
      client,
      offline: true,
      close: async () => {
        await client.close();
        await sb.close();
      },
    };
  }
  const client = new CompanyDataClient({ ...target, ...opts });
  return { client, offline: false, close: () => client.close() };
}

export function googleCredentials(flags: GoogleFlags): GoogleCredentials {
  // The one option without an environment variable: given, it was meant, whatever the environment holds.
  if (flags.googleAccount) return accountCredentials(flags.stateDir);
  if (flags.googleToken) return { accessToken: flags.googleToken };
  if (flags.googleOauthFile) {
    let j: { client_id?: string; client_secret?: string; refresh_token?: string; token_uri?: string };
    try {
      j = JSON.parse(readFileSync(flags.googleOauthFile, 'utf8')) as typeof j;
    } catch {
      throw new Error(`google-oauth-file: cannot read ${flags.googleOauthFile} as JSON`);
    }
    if (!j.client_id || !j.client_secret || !j.refresh_token)
      throw new Error('google-oauth-file: must hold client_id, client_secret and refresh_token');
    return {
      oauth: {
        clientId: j.client_id,
        clientSecret: j.client_secret,
        refreshToken: j.refresh_token,
        ...(j.token_uri ? { tokenUrl: j.token_uri } : {}),
        source: `google-oauth-file ${flags.googleOauthFile}`,
      },
    };
  }
  const keyFile = flags.googleKeyFile ?? process.env.GOOGLE_APPLICATION_CREDENTIALS;
  if (keyFile) return { serviceAccountKeyFile: keyFile };
  throw new Error(
    'google credentials: set --google-key-file (a service account), or sign in with `company-data auth login` and add --google-account (or give --google-token or --google-oauth-file)',
  );
}

export interface TableTarget {
  file?: string;
  spreadsheet?: string;
  sheet?: string;
  out?: string;
  /** The file is read, not only appended to: a missing one is an error, not an empty table. */
  mustExist?: boolean;
  /** CSV only: make written values that would run as formulas inert (default) or keep them. */
  csvFormulas?: CsvFormulas;
}

/** --csv-formulas, for the commands that write service data into a sheet. */
export function csvFormulasOption(): Option {
  return new Option(
    '--csv-formulas <mode>',
    'CSV only: escape (default) puts an apostrophe before written values starting with = + - @, so Excel and LibreOffice show them as text; keep writes them as they are',
  )
    .choices([...csvFormulaModes])
    .default('escape');
}

/**
 * A CSV or XLSX file by extension, or a Google sheet with --spreadsheet. The Google and XLSX adapters
 * are loaded only when used: the Google client alone adds tens of MB to every run that loads it.
 */
export async function openTable(target: TableTarget, google: GoogleFlags): Promise<Table> {
  if (target.spreadsheet) {
    if (target.file) throw new Error('spreadsheet: give either a file or --spreadsheet, not both');
    if (target.out) throw new Error('out: applies to files only; a spreadsheet is updated in place');
    const { GoogleSheetTable } = await import('../sheets/google-table');
    return new GoogleSheetTable({
      spreadsheetId: spreadsheetIdOf(target.spreadsheet),
      ...(target.sheet ? { sheet: target.sheet } : {}),
      auth: googleCredentials(google),
      ...(google.sheetsRootUrl ? { rootUrl: google.sheetsRootUrl } : {}),
    });
  }
  if (!target.file) throw new Error('file: give a .csv or .xlsx file, or --spreadsheet ID');
  const ext = extname(target.file).toLowerCase();
  if (target.mustExist && (ext === '.csv' || ext === '.txt' || ext === '.xlsx') && !existsSync(target.file))
    throw new Error(`file: ${target.file} does not exist`);
  if (ext === '.csv' || ext === '.txt')
    return new CsvTable(target.file, {
      ...(target.out ? { out: target.out } : {}),
      ...(target.csvFormulas ? { formulas: target.csvFormulas } : {}),
    });
  if (ext === '.xlsx')
    return new (await import('../sheets/xlsx-table')).XlsxTable(target.file, {
      ...(target.sheet ? { sheet: target.sheet } : {}),
      ...(target.out ? { out: target.out } : {}),
    });
  throw new Error(`file: ${target.file} must end in .csv or .xlsx`);
}
