/**
 * Google sign-in over real HTTP against the stand-in's token endpoint and consent page: service-account
 * keys by the JWT bearer grant (and every way an assertion is refused), tokens that expire mid-run, a bare
 * access token that cannot be renewed, and the browser sign-in (`company-data auth login/status/logout`)
 * followed by plain HTTP. No key, token or secret may appear in any output or error.
 */
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { authCommand } from '../../../packages/company-data/src/cli/commands/auth';
import { enrichCommand } from '../../../packages/company-data/src/cli/commands/enrich';
import { googleAuthClient } from '../../../packages/company-data/src/sheets/google-auth';
import { signIn, type DesktopClient } from '../../../packages/company-data/src/sheets/google-signin';
import { GoogleSheetTable } from '../../../packages/company-data/src/sheets/google-table';
import { runCommand } from '../../support/run-command';
import { startSheetsStandin, type SheetsStandin } from '../../support/sheets-standin';
import { tempDirs } from '../../support/temp-dirs';
import { startLookupServer, type LookupServer } from './support/lookup-server';

let standin: SheetsStandin;
let api: LookupServer;
const tmp = tempDirs();
/** Everything the tool printed or threw in this file, scanned for secrets at the end. */
const seen: string[] = [];

beforeAll(async () => {
  standin = await startSheetsStandin();
  api = await startLookupServer();
});
afterEach(() => {
  standin.auth.onAuthenticated = undefined;
});
afterAll(async () => {
  await standin.close();
  await api.close();
});

/** Runs a command in-process; its exit code is returned and taken back off the test process. */
async function run(cmd: Parameters<typeof runCommand>[0], args: string[], opts?: Parameters<typeof runCommand>[2]) {
  const before = process.exitCode;
  try {
    const r = await runCommand(cmd, args, opts);
    seen.push(r.out, r.err);
    return { ...r, exitCode: process.exitCode };
  } catch (e) {
    seen.push(String((e as Error).message), String((e as Error).stack));
    throw e;
  } finally {
    process.exitCode = before;
  }
}

async function refusal(p: Promise<unknown>): Promise<string> {
  const e = (await p.then(
    () => undefined,
    (err: unknown) => err,
  )) as Error | undefined;
  expect(e, 'expected a refusal').toBeInstanceOf(Error);
  seen.push(e!.message, String(e!.stack));
  return e!.message;
}

const apiArgs = () => ['--base-url', api.url, '--api-key', api.apiKey, '--sheets-root-url', standin.url];

function leads(id: string, editors?: string[]): void {
  standin.create(id, [{ title: 'Leads', rows: [['company'], ['10000001'], ['10000018']] }]);
  if (editors) standin.share(id, editors);
}

/** Expires every token once, right after the first Sheets request it let through: a token that runs out mid-run. */
function expireAfterFirstCall(): void {
  let n = 0;
  standin.auth.onAuthenticated = () => {
    if (++n === 1) setImmediate(() => standin.auth.expireAccessTokens());
  };
}

describe('service account: JWT bearer grant at the key file token_uri', () => {
  it('fetches a token with kid, iss, aud, scope, iat/exp, reuses it, and reads the sheet', async () => {
    const dir = tmp('sa-');
    const key = standin.serviceAccountKey('reader@proj.iam.gserviceaccount.com');
    const file = join(dir, 'key.json');
    writeFileSync(file, JSON.stringify(key));
    standin.create('sa-ok', [{ title: 'S', rows: [['h'], ['1']] }]);
    standin.share('sa-ok', ['reader@proj.iam.gserviceaccount.com']);
    const before = standin.auth.tokenRequests.length;
    const t = new GoogleSheetTable({ spreadsheetId: 'sa-ok', sheet: 'S', auth: { serviceAccountKeyFile: file }, rootUrl: standin.url });
    expect((await t.read()).rows).toEqual([['1']]);
    expect((await t.read()).rows).toEqual([['1']]);
    const reqs = standin.auth.tokenRequests.slice(before);
    expect(reqs).toHaveLength(1);
    const { header, claims } = reqs[0]!.jwt!;
    expect(header).toMatchObject({ alg: 'RS256', kid: key.private_key_id });
    expect(claims).toMatchObject({
      iss: key.client_email,
      aud: standin.auth.tokenUrl,
      scope: 'https://www.googleapis.com/auth/spreadsheets',
    });
    expect(Number(claims.exp) - Number(claims.iat)).toBe(3600);
    expect(Math.abs(Number(claims.iat) - Date.now() / 1000)).toBeLessThan(120);
  });

  it('refuses a forged signature, an unknown kid, a wrong aud and an expired assertion, naming the key file and never its contents', async () => {
    const dir = tmp('sa-bad-');
    standin.create('sa-bad', [{ title: 'S', rows: [['h'], ['1']] }]);
    const read = (auth: ConstructorParameters<typeof GoogleSheetTable>[0]['auth']) =>
      new GoogleSheetTable({ spreadsheetId: 'sa-bad', sheet: 'S', auth, rootUrl: standin.url }).read();
    const keyFile = (name: string, k: object) => {
      const f = join(dir, name);
      writeFileSync(f, JSON.stringify(k));
      return f;
    };
    const good = standin.serviceAccountKey('bot@proj.iam.gserviceaccount.com');
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;

    const forged = keyFile('forged.json', { ...good, private_key: other });
    const m1 = await refusal(read({ serviceAccountKeyFile: forged }));
    expect(m1).toContain(`google-key-file ${forged} (service account bot@proj.iam.gserviceaccount.com) was refused`);
    expect(m1).toContain('(invalid_grant: Invalid JWT Signature.)');
    expect(m1).toMatch(/create a new JSON key for the service account/);

    const wrongKid = keyFile('kid.json', { ...good, private_key_id: 'f'.repeat(40) });
    const m2 = await refusal(read({ serviceAccountKeyFile: wrongKid }));
    expect(m2).toContain(`google-key-file ${wrongKid}`);
    expect(m2).toContain('invalid_grant: Invalid JWT Signature.');

    // Same endpoint under another name: the assertion's aud is not the token URL the server knows itself by.
    const wrongAud = keyFile('aud.json', { ...good, token_uri: standin.auth.tokenUrl.replace('127.0.0.1', 'localhost') });
    const m3 = await refusal(read({ serviceAccountKeyFile: wrongAud }));
    expect(m3).toContain(`google-key-file ${wrongAud}`);
    expect(m3).toContain('invalid_grant: Invalid JWT: Failed audience check');

    // A computer whose clock is two hours behind signs an assertion that expired long ago.
    const fine = keyFile('fine.json', good);
    const slow = googleAuthClient({ serviceAccountKeyFile: fine }, { now: () => Date.now() - 2 * 3600_000 });
    const m4 = await refusal(read(slow));
    expect(m4).toContain(`google-key-file ${fine}`);
    expect(m4).toMatch(/Token must be a short-lived token .*: this computer's clock is off/);

    expect(standin.auth.tokenRequests.filter((r) => r.error === 'invalid_grant').length).toBeGreaterThanOrEqual(4);
    for (const m of [m1, m2, m3, m4]) {
      expect(m).not.toContain('PRIVATE KEY');
      expect(m).not.toContain(good.private_key_id);
      for (const s of standin.auth.secrets()) expect(m).not.toContain(s);
    }
    // The same key with a right clock still works: nothing above was the key's fault.
    expect((await read({ serviceAccountKeyFile: fine })).rows).toEqual([['1']]);
  });

  it('a token that expires mid-run of enrich is renewed with a new assertion and the run completes', async () => {
    const dir = tmp('sa-mid-');
    const key = standin.serviceAccountKey('runner@proj.iam.gserviceaccount.com');
    const file = join(dir, 'key.json');
    writeFileSync(file, JSON.stringify(key));
    leads('sa-mid', [key.client_email]);
    const before = standin.auth.issuedCount('urn:ietf:params:oauth:grant-type:jwt-bearer');
    const calls = standin.calls.length;
    // Mid-run: the token lapses once paying has begun (the read and the checks before paying used it), so the save meets the 401.
    let paid = -1;
    api.onLookup = () => {
      paid = standin.calls.length;
      standin.auth.expireAccessTokens();
    };
    try {
      const r = await run(enrichCommand(), [
        '--spreadsheet',
        'sa-mid',
        '--sheet',
        'Leads',
        '--google-key-file',
        file,
        '--state-dir',
        join(dir, 'state'),
        ...apiArgs(),
      ]);
      expect(r.out).toContain('Done. Key column: company. Rows enriched this run: 2');
    } finally {
      api.onLookup = undefined;
    }
    expect(paid).toBeGreaterThan(calls);
    expect(standin.auth.issuedCount('urn:ietf:params:oauth:grant-type:jwt-bearer') - before).toBe(2);
    expect(standin.calls.slice(calls, paid).filter((c) => c.status === 401)).toHaveLength(0);
    expect(standin.calls.slice(paid).filter((c) => c.status === 401)).toHaveLength(1);
    const values = standin.values('sa-mid', 'Leads');
    const status = values[0]!.indexOf('company_data_status');
    expect(values.map((row) => row[status])).toEqual(['company_data_status', 'matched', 'matched']);
  });

  it('tokens expire after their lifetime at the stand-in: an old one gets 401 UNAUTHENTICATED', async () => {
    standin.create('life', [{ title: 'S', rows: [['h']] }]);
    const token = standin.auth.issueAccessToken('oauth-user', 1);
    const t = () => new GoogleSheetTable({ spreadsheetId: 'life', sheet: 'S', auth: { accessToken: token }, rootUrl: standin.url });
    await t().read();
    await new Promise((r) => setTimeout(r, 1100));
    const m = await refusal(t().read());
    expect(m).toContain(
      'Google Sheets 401 UNAUTHENTICATED: Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
    );
  });
});

describe('a bare access token (--google-token)', () => {
  it('expiring mid-run: a clear 401 saying what to do; a rerun with a new token bills nothing again', async () => {
    const dir = tmp('bare-');
    leads('bare', ['oauth-user']);
    const state = join(dir, 'state');
    const args = ['--spreadsheet', 'bare', '--sheet', 'Leads', '--state-dir', state, ...apiArgs()];
    const billed = api.billed;
    // Mid-run: the token lapses once paying has begun (the checks before paying all passed with it).
    api.onLookup = () => standin.auth.expireAccessTokens();
    const m = await refusal(run(enrichCommand(), [...args, '--google-token', standin.auth.issueAccessToken('oauth-user')]));
    expect(m).toMatch(/^Google Sheets 401 UNAUTHENTICATED: Request had invalid authentication credentials\./);
    expect(m).toContain('an access token (--google-token) lasts about an hour and cannot be renewed here');
    expect(m).toContain('answers already paid for are kept');
    expect(m).toContain('`company-data auth login` with --google-account');
    expect(api.billed - billed).toBe(2);
    api.onLookup = undefined;
    const again = await run(enrichCommand(), [...args, '--google-token', standin.auth.issueAccessToken('oauth-user')]);
    expect(again.out).toContain('Done.');
    expect(again.out).toContain('billed queries: 0');
    expect(api.billed - billed).toBe(2);
  });
});

/** Follows the sign-in as a browser would, with plain HTTP: the consent page, Allow (or Cancel), the redirect to the loopback. */
async function consent(
  authorizeUrl: string,
  decision: 'allow' | 'deny' = 'allow',
  grantSheets = true,
): Promise<{ landing: string; location: URL }> {
  const pageRes = await fetch(authorizeUrl);
  expect(pageRes.status).toBe(200);
  const page = await pageRes.text();
  expect(page).toContain('id="allow"');
  const id = /name="consent" value="([^"]+)"/.exec(page)![1]!;
  const posted = await fetch(new URL('/o/oauth2/consent', authorizeUrl), {
    method: 'POST',
    body: new URLSearchParams({ consent: id, decision, ...(grantSheets ? { grant_sheets: 'on' } : {}) }),
    redirect: 'manual',
  });
  expect(posted.status).toBe(302);
  const location = new URL(posted.headers.get('location')!);
  expect(location.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  return { landing: await (await fetch(location)).text(), location };
}

function clientFile(dir: string): { path: string; client: ReturnType<SheetsStandin['auth']['desktopClient']> } {
  const client = standin.auth.desktopClient();
  const path = join(dir, 'client_secret_desktop.json');
  writeFileSync(path, JSON.stringify(client));
  return { path, client };
}

/** `auth login` in-process; resolves with its output once the browser part is done by `browse`. */
async function login(args: string[], browse: (url: string) => Promise<unknown>) {
  let started = false;
  let browsing: Promise<unknown> = Promise.resolve();
  const result = run(authCommand(), ['login', '--no-browser', ...args], {
    onErr: (soFar) => {
      const url = /^(http:\/\/\S+\/o\/oauth2\/auth\?\S+)$/m.exec(soFar)?.[1];
      if (url && !started) {
        started = true;
        browsing = browse(url);
      }
    },
  });
  const r = await result.finally(() => browsing);
  await browsing;
  return r;
}

describe('browser sign-in: company-data auth login, status, logout', () => {
  it('login (PKCE, state, loopback) → 0600 file → status → enrich --google-account (renewed mid-run) → logout revokes and deletes', async () => {
    const dir = tmp('login-');
    const state = join(dir, 'state');
    const { path: client, client: c } = clientFile(dir);
    let authorize: URL | undefined;
    const r = await login(['--client-file', client, '--state-dir', state], async (url) => {
      authorize = new URL(url);
      const stray = await fetch(`${new URL(authorize.searchParams.get('redirect_uri')!).origin}/?code=x&state=not-this-one`);
      expect(stray.status).toBe(400);
      const { landing } = await consent(url);
      expect(landing).toContain('Signed in as person@example.com');
    });
    const q = authorize!.searchParams;
    expect(q.get('code_challenge_method')).toBe('S256');
    expect(q.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(q.get('state')!.length).toBeGreaterThanOrEqual(32);
    expect(q.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(q.get('scope')!.split(' ')).toContain('https://www.googleapis.com/auth/spreadsheets');
    expect(q.get('client_id')).toBe(c.installed.client_id);
    expect(r.out).toContain('Signed in as person@example.com.');

    const file = join(state, 'google-account.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
    expect(stored).toMatchObject({ type: 'authorized_user', account: 'person@example.com', token_uri: standin.auth.tokenUrl });
    expect(stored.refresh_token).toMatch(/^1\/\/standin-/);

    const status = await run(authCommand(), ['status', '--state-dir', state]);
    expect(status.out).toContain('Signed in as person@example.com');
    expect(status.out).toContain('Check: the sign-in works');

    leads('mine', ['person@example.com']);
    const refreshes = standin.auth.issuedCount('refresh_token');
    expireAfterFirstCall();
    const e = await run(enrichCommand(), [
      '--spreadsheet',
      'mine',
      '--sheet',
      'Leads',
      '--google-account',
      '--state-dir',
      state,
      ...apiArgs(),
    ]);
    expect(e.out).toContain('Done. Key column: company. Rows enriched this run: 2');
    // One token for the run, one more after the mid-run expiry: both by the refresh token.
    expect(standin.auth.issuedCount('refresh_token') - refreshes).toBe(2);

    const out = await run(authCommand(), ['logout', '--state-dir', state]);
    expect(out.out).toContain('Signed out person@example.com: access revoked at Google');
    expect(existsSync(file)).toBe(false);
    expect(standin.auth.hasGrant()).toBe(false);
    expect(standin.auth.revocations.at(-1)).toEqual({ known: true });

    const after = await refusal(
      run(enrichCommand(), ['--spreadsheet', 'mine', '--sheet', 'Leads', '--google-account', '--state-dir', state, ...apiArgs()]),
    );
    expect(after).toContain('google-account: nobody is signed in');
    expect(after).toContain('company-data auth login --client-file');
    const st = await run(authCommand(), ['status', '--state-dir', state]);
    expect(st.out).toContain('Not signed in');
    expect(st.exitCode).toBe(1);
  });

  it('a sign-in revoked elsewhere: status says so, enrich says to sign in again', async () => {
    const dir = tmp('revoked-');
    const state = join(dir, 'state');
    await login(['--client-file', clientFile(dir).path, '--state-dir', state], (url) => consent(url));
    const stored = JSON.parse(readFileSync(join(state, 'google-account.json'), 'utf8')) as { refresh_token: string };
    await fetch(new URL('/revoke', standin.url), { method: 'POST', body: new URLSearchParams({ token: stored.refresh_token }) });
    const status = await run(authCommand(), ['status', '--state-dir', state]);
    expect(status.out).toContain('the sign-in no longer works (invalid_grant: Token has been expired or revoked.)');
    expect(status.exitCode).toBe(1);
    leads('revoked', ['person@example.com']);
    const m = await refusal(
      run(enrichCommand(), ['--spreadsheet', 'revoked', '--sheet', 'Leads', '--google-account', '--state-dir', state, ...apiArgs()]),
    );
    expect(m).toBe(
      "google-account: the sign-in of person@example.com was refused by Google's token endpoint (invalid_grant: Token has been expired or revoked.): sign in again with `company-data auth login`",
    );
  });

  it('Cancel on the consent page, a wrong client file, and no answer in time each end with nothing saved', async () => {
    const dir = tmp('cancel-');
    const state = join(dir, 'state');
    const client = clientFile(dir).path;
    const m = await refusal(login(['--client-file', client, '--state-dir', state], (url) => consent(url, 'deny')));
    expect(m).toContain('auth login: Google answered access_denied');
    expect(existsSync(join(state, 'google-account.json'))).toBe(false);

    // Google's granular consent: the spreadsheets box unticked gives a token without that scope, which is refused and revoked.
    const revoked = standin.auth.revocations.length;
    const unticked = await refusal(login(['--client-file', client, '--state-dir', state], (url) => consent(url, 'allow', false)));
    expect(unticked).toContain('auth login: the permission to edit spreadsheets was not granted');
    expect(standin.auth.revocations.slice(revoked)).toEqual([{ known: true }]);
    expect(existsSync(join(state, 'google-account.json'))).toBe(false);

    const web = join(dir, 'web.json');
    writeFileSync(web, JSON.stringify({ web: { client_id: 'x', client_secret: 'y' } }));
    expect(await refusal(run(authCommand(), ['login', '--no-browser', '--client-file', web]))).toContain(
      'is a "Web application" client; create an OAuth client of type "Desktop app"',
    );

    const late = await refusal(login(['--client-file', client, '--state-dir', state, '--timeout', '1'], async () => undefined));
    expect(late).toBe('auth login: no sign-in within 1 s; run it again');
    expect(existsSync(join(state, 'google-account.json'))).toBe(false);
  });

  it('Ctrl-C while waiting stops the sign-in and closes the loopback port', async () => {
    const { client } = clientFile(tmp('abort-'));
    const i = client.installed;
    const desktop: DesktopClient = {
      clientId: i.client_id,
      clientSecret: i.client_secret,
      authUri: i.auth_uri,
      tokenUri: i.token_uri,
      revokeUri: new URL('revoke', i.token_uri).toString(),
    };
    const stop = new AbortController();
    let redirect = '';
    const m = await refusal(
      signIn({
        client: desktop,
        timeoutMs: 60_000,
        signal: stop.signal,
        onUrl: (url) => {
          redirect = new URL(url).searchParams.get('redirect_uri')!;
          setTimeout(() => stop.abort(), 50);
        },
      }),
    );
    expect(m).toBe('auth login: stopped; nothing was saved');
    await expect(fetch(redirect)).rejects.toThrow();
  });

  it('the token endpoint checks PKCE, the client secret and the redirect_uri of the code', async () => {
    const { client } = clientFile(tmp('pkce-'));
    const i = client.installed;
    const verifier = 'v'.repeat(50);
    const challenge = (await import('node:crypto')).createHash('sha256').update(verifier).digest('base64url');
    const redirect = 'http://127.0.0.1:9/';
    const code = async () => {
      const url = new URL(i.auth_uri);
      url.search = new URLSearchParams({
        client_id: i.client_id,
        redirect_uri: redirect,
        response_type: 'code',
        scope: 'https://www.googleapis.com/auth/spreadsheets',
        code_challenge: challenge,
        code_challenge_method: 'S256',
        state: 's',
      }).toString();
      const page = await (await fetch(url)).text();
      const id = /name="consent" value="([^"]+)"/.exec(page)![1]!;
      const r = await fetch(new URL('/o/oauth2/consent', standin.url), {
        method: 'POST',
        body: new URLSearchParams({ consent: id, decision: 'allow', grant_sheets: 'on' }),
        redirect: 'manual',
      });
      return new URL(r.headers.get('location')!).searchParams.get('code')!;
    };
    const exchange = async (over: Record<string, string>) => {
      const body = {
        grant_type: 'authorization_code',
        code: await code(),
        client_id: i.client_id,
        client_secret: i.client_secret,
        redirect_uri: redirect,
        code_verifier: verifier,
        ...over,
      };
      const r = await fetch(i.token_uri, { method: 'POST', body: new URLSearchParams(body) });
      return { status: r.status, body: (await r.json()) as Record<string, string> };
    };
    expect(await exchange({ code_verifier: 'w'.repeat(50) })).toEqual({
      status: 400,
      body: { error: 'invalid_grant', error_description: 'Invalid code verifier.' },
    });
    expect((await exchange({ client_secret: 'wrong' })).body.error).toBe('invalid_client');
    expect((await exchange({ redirect_uri: 'http://127.0.0.1:10/' })).body.error).toBe('redirect_uri_mismatch');
    const ok = await exchange({});
    expect(ok.status).toBe(200);
    expect(ok.body.refresh_token).toBeTruthy();
  });
});

describe('secrets', () => {
  it('no key, client secret, code or token the stand-in handed out appears in any output or error of this file', () => {
    const text = seen.join('\n');
    expect(text.length).toBeGreaterThan(1000);
    const secrets = standin.auth.secrets();
    expect(secrets.length).toBeGreaterThan(10);
    for (const s of secrets) expect(text.includes(s), `a secret (${s.slice(0, 6)}…) was printed`).toBe(false);
    expect(text).not.toContain('PRIVATE KEY');
  });
});
