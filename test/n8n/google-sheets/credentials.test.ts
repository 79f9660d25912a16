import type { ICredentialsDecrypted, INodeCredentialTestResult, INodePropertyOptions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CompanyDataGoogleSheets } from '../../../nodes/CompanyDataGoogleSheets/CompanyDataGoogleSheets.node';
import { SheetsStandin } from '../../support/sheets-standin';
import { credentialTestContext, googleLoadOptionsContext } from '../../support/n8n-google-context';

/**
 * The Google credentials of Company Data: Google Sheets: the service account's Test (the node's
 * credentialTest, a token exchange at the key's token_uri) and the editor's lists (tabs, header), all
 * over real HTTP to the Sheets stand-in, which checks every request against Google's discovery document.
 */
const node = new CompanyDataGoogleSheets();
let g: SheetsStandin;

beforeAll(async () => {
  g = await new SheetsStandin().listen();
  g.create('sheet-credentials-000001', [
    {
      title: 'Leads',
      rows: [
        ['Company', 'Registry code', '', 'Owner'],
        ['Nortal', '10391131'],
      ],
    },
    { title: "Q3 'hot'", rows: [['Name']] },
    // A run's lease, left while another door enriches Leads: not a sheet to pick.
    { title: 'company_data_lease Leads', rows: [['{}']], hidden: true },
  ]);
});
afterAll(async () => {
  await g?.close();
});

async function testKey(serviceAccountKey: string): Promise<INodeCredentialTestResult> {
  const { ctx } = credentialTestContext();
  const test = node.methods!.credentialTest!.companyDataGoogleServiceAccountTest!;
  const credential: ICredentialsDecrypted = {
    id: 'c1',
    name: 'Google',
    type: 'companyDataGoogleServiceAccountApi',
    data: { serviceAccountKey },
  };
  return await test.call(ctx, credential);
}

describe('service-account credential test', () => {
  test('the node names its test function as the credential testedBy', () => {
    const cred = node.description.credentials!.find((c) => c.name === 'companyDataGoogleServiceAccountApi')!;
    expect(cred.testedBy).toBe('companyDataGoogleServiceAccountTest');
    expect(typeof node.methods!.credentialTest![cred.testedBy as string]).toBe('function');
  });

  test('a good key: Google issues a token for it at its token_uri', async () => {
    const key = g.serviceAccountKey('good@standin.iam.gserviceaccount.com');
    const before = g.auth.issuedCount();
    const res = await testKey(JSON.stringify(key, null, 2));
    expect(res).toEqual({ status: 'OK', message: expect.stringContaining('good@standin.iam.gserviceaccount.com') });
    expect(g.auth.issuedCount()).toBe(before + 1);
    // Signed with the key's own id, for the key's token_uri, with the spreadsheets scope only.
    const sent = g.auth.tokenRequests.at(-1)!.jwt!;
    expect(sent.header).toMatchObject({ alg: 'RS256', kid: key.private_key_id });
    expect(sent.claims).toMatchObject({ iss: key.client_email, aud: key.token_uri, scope: 'https://www.googleapis.com/auth/spreadsheets' });
  });

  test('a key pasted with its newlines as "\\n" text still works', async () => {
    const key = g.serviceAccountKey();
    const res = await testKey(JSON.stringify(key).replace(/\\n/g, '\\\\n'));
    expect(res.status).toBe('OK');
  });

  test.each([
    ['not JSON', () => 'this is not json', /not JSON/],
    [
      'a signed-in person’s file',
      () => JSON.stringify({ type: 'authorized_user', client_id: 'x', refresh_token: 'y' }),
      /authorized_user.*OAuth2/,
    ],
    ['no private_key', () => JSON.stringify({ type: 'service_account', client_email: 'x@y' }), /client_email or private_key is missing/],
    [
      'a private_key that is no RSA key',
      () => JSON.stringify({ ...g.serviceAccountKey(), private_key: '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n' }),
      /not a valid RSA key/,
    ],
  ])('a bad key (%s) is refused with a clear message, and no token is asked for', async (_, key, message) => {
    const before = g.auth.tokenRequests.length;
    const res = await testKey(key());
    expect(res.status).toBe('Error');
    expect(res.message).toMatch(message);
    expect(g.auth.tokenRequests.length).toBe(before);
  });

  test('a key Google does not know (deleted or replaced) is refused in Google’s words, with what to do', async () => {
    const key = g.serviceAccountKey();
    // Another key's private half under this key's id: Google cannot verify the signature.
    const other = g.serviceAccountKey();
    const res = await testKey(JSON.stringify({ ...key, private_key: other.private_key }));
    expect(res.status).toBe('Error');
    expect(res.message).toContain('invalid_grant: Invalid JWT Signature.');
    expect(res.message).toMatch(/Create a new JSON key/);
    // The key is never quoted.
    for (const line of other.private_key.split('\n').filter((l) => l.length > 40)) expect(res.message).not.toContain(line);
  });

  test('a token endpoint that does not answer is reported as such', async () => {
    const key = { ...g.serviceAccountKey(), token_uri: 'http://127.0.0.1:9/token' };
    const res = await testKey(JSON.stringify(key));
    expect(res.status).toBe('Error');
    expect(res.message).toMatch(/could not be reached|did not answer/);
  });
});

describe('OAuth2 credential', () => {
  test('extends n8n’s oAuth2Api with Google’s addresses, the spreadsheets scope and offline access', async () => {
    const { CompanyDataGoogleSheetsOAuth2Api } = await import('../../../credentials/CompanyDataGoogleSheetsOAuth2Api.credentials');
    const c = new CompanyDataGoogleSheetsOAuth2Api();
    expect(c.extends).toEqual(['oAuth2Api']);
    const defaults = Object.fromEntries(c.properties.map((p) => [p.name, p.default]));
    expect(defaults).toMatchObject({
      grantType: 'authorizationCode',
      authUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
      accessTokenUrl: 'https://oauth2.googleapis.com/token',
      scope: 'https://www.googleapis.com/auth/spreadsheets',
      authQueryParameters: 'access_type=offline&prompt=consent',
    });
  });
});

describe('editor lists', () => {
  const params = (sheet: unknown, spreadsheet: unknown = { __rl: true, mode: 'id', value: 'sheet-credentials-000001' }) => ({
    authentication: 'serviceAccount',
    spreadsheet,
    sheet,
    options: { sheetsApiUrl: g.url },
  });
  const context = (p: Record<string, unknown>, key = g.serviceAccountKey()) =>
    googleLoadOptionsContext({ params: p, companyData: {}, serviceAccount: { serviceAccountKey: JSON.stringify(key) } }).ctx;

  test("Sheet: the tabs of the spreadsheet (not a run's lease sheet), by id, filtered by the search text; the address mode works too", async () => {
    const search = node.methods!.listSearch!.sheetSearch!;
    const all = await search.call(context(params(undefined)));
    expect(all.results.map((r) => [r.name, r.value])).toEqual([
      ['Leads', '0'],
      ["Q3 'hot'", '1001'],
    ]);
    const url = { __rl: true, mode: 'url', value: 'https://docs.google.com/spreadsheets/d/sheet-credentials-000001/edit#gid=0' };
    const filtered = await search.call(context(params(undefined, url)), 'q3');
    expect(filtered.results.map((r) => r.name)).toEqual(["Q3 'hot'"]);
  });

  test('Key Column: "Find Automatically", then the headers of row 1 (by tab id or by name)', async () => {
    const load = node.methods!.loadOptions!.keyColumns!;
    const names = (o: INodePropertyOptions[]) => o.map((x) => x.name);
    expect(names(await load.call(context(params({ __rl: true, mode: 'list', value: '0' }))))).toEqual([
      'Find Automatically',
      'Company',
      'Registry code',
      'Owner',
    ]);
    expect(names(await load.call(context(params({ __rl: true, mode: 'name', value: "Q3 'hot'" }))))).toEqual([
      'Find Automatically',
      'Name',
    ]);
  });

  test('a spreadsheet not shared with the service account: a NodeApiError saying whom to share it with', async () => {
    const key = g.serviceAccountKey('outsider@standin.iam.gserviceaccount.com');
    g.create('sheet-credentials-private', [{ title: 'Leads', rows: [['Name']] }]);
    g.share('sheet-credentials-private', ['someone-else@example.com']);
    const p = params(undefined, { __rl: true, mode: 'id', value: 'sheet-credentials-private' });
    const err = await node.methods!.listSearch!.sheetSearch!.call(context(p, key)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NodeApiError);
    expect((err as NodeApiError).httpCode).toBe('403');
    expect((err as NodeApiError).message).toContain('outsider@standin.iam.gserviceaccount.com');
  });

  test('a spreadsheet field that is no address: a NodeOperationError naming the field', async () => {
    const p = params(undefined, { __rl: true, mode: 'url', value: 'https://example.com/not-a-sheet' });
    const err = await node.methods!.listSearch!.sheetSearch!.call(context(p)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NodeOperationError);
    expect((err as Error).message).toMatch(/^Spreadsheet: /);
  });
});
