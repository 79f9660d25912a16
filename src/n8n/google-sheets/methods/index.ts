import type {
  ICredentialDataDecryptedObject,
  ICredentialsDecrypted,
  ICredentialTestFunctions,
  IDataObject,
  ILoadOptionsFunctions,
  INodeCredentialTestResult,
  INodeListSearchResult,
  INodePropertyOptions,
  INodeType,
} from 'n8n-workflow';
import { SERVICE_ACCOUNT_TEST, type GoogleAuthentication } from '../descriptions/common';
import { toSheetsNodeError } from '../errors';
import { googleSheetsAccess } from '../transport/google';
import { n8nClock } from '../../transport/clock';
import { isLeaseSheet } from '@company-data/core/sheets/lease/port';
import { listSheets } from '@company-data/core/sheets/google/sheet-list';
import { headerRow, sheetsApiRoot, sheetTitle, spreadsheetIdOf, spreadsheetRest } from '../transport/sheets-api';
import { parseServiceAccountKey, ServiceAccountError } from '@company-data/core/google/service-account';
import type { Transport } from '@company-data/core/transport';
import { N8N_KEY_WORDS, n8nServiceAccountTokens } from '../transport/service-account';

/** The spreadsheet the node points at, through the core's Sheets REST client, for the editor's lists. */
async function editorSpreadsheet(ctx: ILoadOptionsFunctions) {
  const authentication = ctx.getNodeParameter('authentication', 'serviceAccount') as GoogleAuthentication;
  const root = sheetsApiRoot(ctx.getNodeParameter('options', {}) as IDataObject);
  const spreadsheetId = spreadsheetIdOf(ctx.getNodeParameter('spreadsheet', undefined, { extractValue: true }));
  const access = await googleSheetsAccess(ctx, authentication);
  return { spreadsheetId, rest: spreadsheetRest(access, root, spreadsheetId, n8nClock(undefined)) };
}

/** The Sheet field's list: the spreadsheet's tabs, by id (so a renamed tab stays picked). */
async function sheetSearch(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
  try {
    const { rest, spreadsheetId } = await editorSpreadsheet(this);
    const wanted = filter?.trim().toLowerCase();
    const results = (await listSheets(rest))
      // A run's hidden lease sheet is not a sheet to pick (lease/port.ts).
      .filter((s) => !isLeaseSheet(s.title) && (!wanted || s.title.toLowerCase().includes(wanted)))
      .map((s) => ({
        name: s.title,
        value: String(s.sheetId),
        url: `https://docs.google.com/spreadsheets/d/${spreadsheetId}/edit#gid=${s.sheetId}`,
      }));
    return { results };
  } catch (error) {
    throw toSheetsNodeError(this.getNode(), error);
  }
}

/** The Key Column field's list: "find it from the header" first, then the headers of row 1. */
async function keyColumns(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
  try {
    const { rest } = await editorSpreadsheet(this);
    const title = await sheetTitle(rest, this.getNodeParameter('sheet', undefined));
    const headers = [...new Set((await headerRow(rest, title)).map((h) => h.trim()).filter(Boolean))];
    return [
      { name: 'Find Automatically', value: '', description: 'The first header like Registry code, VAT number or Name' },
      ...headers.map((h) => ({ name: h, value: h })),
    ];
  } catch (error) {
    throw toSheetsNodeError(this.getNode(), error);
  }
}

/**
 * The service-account credential's Test: one token exchange at the key's token_uri. n8n gives a
 * credential test only its legacy request helper (ICredentialTestFunctions has no httpRequest).
 */
async function serviceAccountTest(this: ICredentialTestFunctions, credential: ICredentialsDecrypted): Promise<INodeCredentialTestResult> {
  const data: ICredentialDataDecryptedObject = credential.data ?? {};
  try {
    const key = parseServiceAccountKey(data.serviceAccountKey, N8N_KEY_WORDS);
    // n8n gives a credential test no httpRequest (ICredentialTestFunctions has only the request helper, which
    // its own lint and scanner call deprecated): the one token exchange goes through that helper.
    const { helpers } = this;
    const legacy: Transport = {
      request: async (req) => {
        const res = (await helpers.request({
          method: req.method,
          uri: req.url,
          body: req.body,
          headers: req.headers,
          json: false,
          simple: false,
          resolveWithFullResponse: true,
          timeout: req.timeoutMs,
        })) as { statusCode: number; body: unknown };
        return { status: res.statusCode, headers: {}, body: typeof res.body === 'string' ? res.body : JSON.stringify(res.body ?? '') };
      },
    };
    await n8nServiceAccountTokens(key, legacy).token();
    return { status: 'OK', message: `Connection successful: Google issued a token for ${key.client_email}` };
  } catch (error) {
    if (error instanceof ServiceAccountError) return { status: 'Error', message: `${error.message}. ${error.hint}` };
    return { status: 'Error', message: `The token endpoint could not be reached (${(error as Error).message ?? 'network error'})` };
  }
}

/** What the node file puts under `methods`. */
export const googleSheetsMethods: Required<Pick<NonNullable<INodeType['methods']>, 'listSearch' | 'loadOptions' | 'credentialTest'>> = {
  listSearch: { sheetSearch },
  loadOptions: { keyColumns },
  credentialTest: { [SERVICE_ACCOUNT_TEST]: serviceAccountTest },
};
