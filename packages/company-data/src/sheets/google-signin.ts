/**
 * Signing in with a Google account, for people who cannot create a service account: OAuth 2.0 for
 * installed apps (RFC 8252) as command-line tools do it. The user's own "Desktop app" OAuth client;
 * the authorization code flow with PKCE (S256) and a `state` checked on return; the browser comes back
 * to a one-time server on 127.0.0.1 at a port the system picks. Renewal and revocation use the client
 * file's token_uri (and the revoke address beside it), so a stand-in works as Google does.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CodeChallengeMethod, OAuth2Client } from 'google-auth-library';
import { GOOGLE_TOKEN_URI, oauthErrorText, SHEETS_SCOPE } from './google-auth';
import type { StoredAccount } from './google-account';

/** What a "Desktop app" client JSON from the Cloud console holds (the `installed` object). */
export interface DesktopClient {
  clientId: string;
  clientSecret: string;
  authUri: string;
  tokenUri: string;
  revokeUri: string;
}

/** The Sheets scope, plus the account's email (openid email) so `auth status` can say who is signed in. */
export const SIGN_IN_SCOPES = ['openid', 'email', SHEETS_SCOPE];

/** Google's revoke endpoint sits beside its token endpoint (oauth2.googleapis.com/token → /revoke); so does the stand-in's. */
export function revokeUriFor(tokenUri: string): string {
  return new URL('revoke', tokenUri).toString();
}

export function readClientFile(path: string): DesktopClient {
  let json: { installed?: Record<string, unknown>; web?: unknown; type?: unknown };
  try {
    json = JSON.parse(readFileSync(path, 'utf8')) as typeof json;
  } catch (err) {
    throw new Error(`client-file: cannot read ${path} as JSON (${(err as NodeJS.ErrnoException).code ?? 'invalid JSON'})`);
  }
  const c = json?.installed;
  if (!c) {
    const what = json?.web
      ? 'a "Web application" client'
      : json?.type === 'service_account'
        ? 'a service-account key (use it with --google-key-file instead)'
        : 'not an OAuth client file';
    throw new Error(
      `client-file: ${path} is ${what}; create an OAuth client of type "Desktop app" (Cloud console → APIs & Services → Credentials) and download its JSON`,
    );
  }
  const str = (k: string) => (typeof c[k] === 'string' && c[k] ? (c[k] as string) : undefined);
  const clientId = str('client_id');
  const clientSecret = str('client_secret');
  if (!clientId || !clientSecret) throw new Error(`client-file: ${path} lacks client_id or client_secret; download the client JSON again`);
  const tokenUri = str('token_uri') ?? GOOGLE_TOKEN_URI;
  return {
    clientId,
    clientSecret,
    authUri: str('auth_uri') ?? 'https://accounts.google.com/o/oauth2/auth',
    tokenUri,
    revokeUri: str('revoke_uri') ?? revokeUriFor(tokenUri),
  };
}

/** Opens the address in the desktop's browser when there is one; false when no opener could be started. */
export function openInBrowser(url: string): Promise<boolean> {
  // rundll32 instead of `cmd /c start`: cmd would read the & between the parameters as a command separator.
  const [cmd, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['rundll32', ['url.dll,FileProtocolHandler', url]]
        : ['xdg-open', [url]];
  return new Promise((resolve) => {
    try {
      const child = spawn(cmd, args, { stdio: 'ignore', detached: true });
      child.once('error', () => resolve(false));
      child.once('spawn', () => {
        child.unref();
        resolve(true);
      });
    } catch {
      resolve(false);
    }
  });
}

export interface SignInOptions {
  client: DesktopClient;
  /** Called with the address to open; the caller prints it (and may open a browser). */
  onUrl: (url: string) => void | Promise<void>;
  timeoutMs: number;
  /** Ctrl-C: stops waiting, nothing is kept. */
  signal?: AbortSignal;
}

const page = (res: ServerResponse, status: number, title: string, text: string) =>
  res
    .writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
    .end(`<!doctype html><meta charset="utf-8"><title>${title}</title><h1>${title}</h1><p>${text}</p>`);

/** The account's email from an ID token received straight from the token endpoint (OpenID Connect: no signature check needed there). */
function emailOf(idToken: string | null | undefined): string | undefined {
  try {
    const claims = JSON.parse(Buffer.from(idToken?.split('.')[1] ?? '', 'base64url').toString()) as { email?: unknown };
    return typeof claims.email === 'string' ? claims.email : undefined;
  } catch {
    return undefined;
  }
}

/** One sign-in waiting for the browser's answer at the loopback server. */
interface Waiting {
  oauth: OAuth2Client;
  client: DesktopClient;
  state: string;
  codeVerifier: string;
  /** Known once the server listens; the code is exchanged with the same address. */
  redirectUri: string;
  /** An answer was taken: any later request is turned away. */
  settled: boolean;
  finish: { resolve: (a: StoredAccount) => void; reject: (e: Error) => void };
}

/** What the token endpoint granted for the code, checked. */
interface Granted {
  refreshToken: string;
  scope: string;
  account?: string;
}

/**
 * Runs the browser sign-in and returns what to keep. Rejects (with nothing kept) on a refusal in the
 * browser, a code the token endpoint refuses, a missing spreadsheets permission, the timeout or the signal.
 */
export async function signIn(o: SignInOptions): Promise<StoredAccount> {
  const oauth = oauthClientFor(o.client);
  const { codeVerifier, codeChallenge } = await oauth.generateCodeVerifierAsync();
  const state = randomBytes(24).toString('base64url');
  let finish!: Waiting['finish'];
  const done = new Promise<StoredAccount>((resolve, reject) => (finish = { resolve, reject }));
  const w: Waiting = { oauth, client: o.client, state, codeVerifier, redirectUri: '', settled: false, finish };

  const server = createServer((req, res) => void answer(w, req, res));
  w.redirectUri = await listenOnLoopback(server);
  const stopLimits = rejectOnTimeoutOrSignal(o, finish.reject);
  try {
    if (!o.signal?.aborted) await o.onUrl(consentUrl(w, codeChallenge));
    return await done;
  } finally {
    stopLimits();
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
}

function oauthClientFor(client: DesktopClient): OAuth2Client {
  return new OAuth2Client({
    clientId: client.clientId,
    clientSecret: client.clientSecret,
    endpoints: { oauth2AuthBaseUrl: client.authUri, oauth2TokenUrl: client.tokenUri, oauth2RevokeUrl: client.revokeUri },
  });
}

/** Listens on 127.0.0.1 at a port the system picks; returns the redirect address the browser comes back to. */
async function listenOnLoopback(server: Server): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

/** Ends the wait on the timeout or the signal (at once when it is already aborted); returns what undoes both. */
function rejectOnTimeoutOrSignal(o: SignInOptions, reject: (e: Error) => void): () => void {
  const timer = setTimeout(
    () => reject(new Error(`auth login: no sign-in within ${Math.round(o.timeoutMs / 1000)} s; run it again`)),
    o.timeoutMs,
  );
  const onAbort = () => reject(new Error('auth login: stopped; nothing was saved'));
  o.signal?.addEventListener('abort', onAbort, { once: true });
  if (o.signal?.aborted) onAbort();
  return () => {
    clearTimeout(timer);
    o.signal?.removeEventListener('abort', onAbort);
  };
}

/** The consent page's address: PKCE (S256), this sign-in's state, and the loopback redirect. */
function consentUrl(w: Waiting, codeChallenge: string | undefined): string {
  return w.oauth.generateAuthUrl({
    scope: SIGN_IN_SCOPES,
    redirect_uri: w.redirectUri,
    code_challenge: codeChallenge,
    code_challenge_method: CodeChallengeMethod.S256,
    state: w.state,
    // A refresh token on every sign-in, also when this client was allowed before.
    access_type: 'offline',
    prompt: 'consent',
  });
}

/** A request to the loopback server: the first answer carrying this sign-in's state settles it. */
async function answer(w: Waiting, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  if (url.pathname !== '/' || w.settled) return void page(res, 404, 'Not found', 'Nothing here.');
  const q = url.searchParams;
  // Anything but this sign-in's own answer (another page, an old link, a forged request) is turned away.
  if (q.get('state') !== w.state)
    return void page(res, 400, 'Wrong sign-in link', 'This answer is not for the sign-in now waiting; use the address it printed last.');
  w.settled = true;
  const error = q.get('error');
  if (error) {
    page(res, 200, 'Sign-in cancelled', 'Nothing was saved. You can close this tab.');
    return w.finish.reject(
      new Error(`auth login: Google answered ${error} (the sign-in was cancelled or refused); run it again and choose Allow`),
    );
  }
  try {
    const granted = await exchangeCode(w, q.get('code') ?? '');
    const { account } = granted;
    page(res, 200, 'Signed in', `${account ? `Signed in as ${account.replace(/[<>&"]/g, '')}. ` : ''}You can close this tab.`);
    w.finish.resolve(storedAccount(w.client, granted));
  } catch (err) {
    page(res, 400, 'Sign-in failed', 'Nothing was saved; see the terminal.');
    w.finish.reject(tokenEndpointError(err, w.client.tokenUri));
  }
}

/** Trades the code for tokens; refuses an answer without a refresh token or without the spreadsheets permission. */
async function exchangeCode(w: Waiting, code: string): Promise<Granted> {
  const { tokens } = await w.oauth.getToken({ code, codeVerifier: w.codeVerifier, redirect_uri: w.redirectUri });
  if (!tokens.refresh_token)
    throw new Error(
      'auth login: Google gave no refresh token; remove the app under https://myaccount.google.com/permissions and sign in again',
    );
  if (!(tokens.scope ?? '').split(' ').includes(SHEETS_SCOPE)) {
    await revoke(w.client.revokeUri, tokens.refresh_token);
    throw new Error(
      'auth login: the permission to edit spreadsheets was not granted (a box on the consent page was left unticked); run it again and tick it',
    );
  }
  const account = emailOf(tokens.id_token);
  return { refreshToken: tokens.refresh_token, scope: tokens.scope ?? SHEETS_SCOPE, ...(account ? { account } : {}) };
}

function storedAccount(client: DesktopClient, granted: Granted): StoredAccount {
  return {
    type: 'authorized_user',
    client_id: client.clientId,
    client_secret: client.clientSecret,
    refresh_token: granted.refreshToken,
    token_uri: client.tokenUri,
    revoke_uri: client.revokeUri,
    ...(granted.account ? { account: granted.account } : {}),
    scope: granted.scope,
    signed_in_at: new Date().toISOString(),
  };
}

/** The error a failed code exchange ends the sign-in with. */
function tokenEndpointError(err: unknown, tokenUri: string): Error {
  const refusal = oauthErrorText(err);
  return refusal.code
    ? new Error(
        `auth login: the token endpoint refused the sign-in (${refusal.text}); ` +
          'check the client file is a current "Desktop app" client, then run it again',
      )
    : err instanceof Error && !('config' in err)
      ? err
      : // A request error's own text may quote the request: only the address is named.
        new Error(`auth login: no answer from the token endpoint ${tokenUri}; check the network and run it again`);
}

/** Revokes the sign-in at Google (the refresh token, and with it its access tokens). */
export function revokeAccount(stored: StoredAccount): Promise<{ revoked: true } | { revoked: false; why: string }> {
  return revoke(stored.revoke_uri || revokeUriFor(stored.token_uri), stored.refresh_token);
}

async function revoke(uri: string, token: string): Promise<{ revoked: true } | { revoked: false; why: string }> {
  try {
    const res = await fetch(uri, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      // In the body, not the URL: addresses end up in logs.
      body: new URLSearchParams({ token }),
      signal: AbortSignal.timeout(15_000),
    });
    if (res.ok) return { revoked: true };
    const data = (await res.json().catch(() => ({}))) as { error?: unknown };
    return { revoked: false, why: typeof data.error === 'string' ? data.error : `HTTP ${res.status}` };
  } catch (err) {
    return { revoked: false, why: `no answer (${(err as Error).name === 'TimeoutError' ? 'time-out' : 'network error'})` };
  }
}

/** Whether the stored sign-in still gets an access token (which is not kept). */
export async function checkAccount(stored: StoredAccount): Promise<{ ok: true } | { ok: false; why: string }> {
  const oauth = new OAuth2Client({
    clientId: stored.client_id,
    clientSecret: stored.client_secret,
    endpoints: { oauth2TokenUrl: stored.token_uri },
  });
  oauth.setCredentials({ refresh_token: stored.refresh_token });
  try {
    await oauth.getAccessToken();
    return { ok: true };
  } catch (err) {
    const data = (err as { response?: { data?: { error?: unknown; error_description?: unknown } } }).response?.data;
    if (data && typeof data.error === 'string')
      return { ok: false, why: `${data.error}${typeof data.error_description === 'string' ? `: ${data.error_description}` : ''}` };
    return { ok: false, why: 'no answer from the token endpoint (network error)' };
  }
}
