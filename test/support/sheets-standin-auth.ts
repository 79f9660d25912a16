/**
 * Google's sign-in for the Sheets stand-in: the OAuth 2.0 token endpoint (JWT bearer grant for service
 * accounts, authorization code with PKCE and refresh token for people), the consent page a browser is
 * sent to, token revocation, and the access tokens the Sheets API accepts. Answers are Google-shaped
 * ({"error":"invalid_grant","error_description":"Invalid JWT Signature."}); where the stand-in is stricter
 * or simpler than Google, docs/decisions/sheets-engine.md, "The Google Sheets stand-in", says so.
 */
import { createHash, generateKeyPairSync, randomBytes, sign, verify, type KeyObject } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBody } from './http-server';

export const SPREADSHEETS_SCOPE = 'https://www.googleapis.com/auth/spreadsheets';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** Google's words when a token is not (or no longer) good for the Sheets API. */
export const UNAUTHENTICATED_MESSAGE =
  'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.';

export interface StandinAuthOptions {
  /** Life of the access tokens issued, in seconds (Google: 3600). */
  tokenLifetimeSeconds?: number;
  /** The Google account that signs in on the consent page. */
  account?: string;
}

/** One request to the token endpoint, for tests to count and inspect (never the assertion or secrets). */
export interface TokenRequest {
  grant: string;
  status: number;
  error?: string;
  /** For the JWT bearer grant: the assertion's header and claims as received. */
  jwt?: { header: Record<string, unknown>; claims: Record<string, unknown> };
}

interface Issued {
  who: string;
  expiresAt: number;
  /** The refresh token it came from, so revoking the grant revokes its access tokens too. */
  grant?: string;
}

interface DesktopClient {
  secret: string;
}

interface PendingConsent {
  clientId: string;
  redirectUri: string;
  state?: string;
  challenge: string;
  scope: string;
}

class OAuthError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly description: string,
  ) {
    super(`${error}: ${description}`);
  }
}

const b64json = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
const html = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export class StandinAuth {
  /** The stand-in's root (http://127.0.0.1:port/); set when it listens. */
  baseUrl = '';
  readonly tokenRequests: TokenRequest[] = [];
  /** Revocation requests and whether each token was known. */
  readonly revocations: { known: boolean }[] = [];
  /** Called on every Sheets API request that a token let through: the place to expire tokens mid-run. */
  onAuthenticated?: (who: string) => void;
  /** Access tokens the Sheets API accepts forever (the stand-in's fixed test token). */
  readonly fixedTokens = new Map<string, string>();
  private readonly keys = new Map<string, { email: string; publicKey: KeyObject }>();
  private readonly clients = new Map<string, DesktopClient>();
  private readonly tokens = new Map<string, Issued>();
  private readonly refreshTokens = new Map<string, { who: string; clientId: string; scope: string }>();
  private readonly codes = new Map<string, PendingConsent & { expiresAt: number }>();
  private readonly consents = new Map<string, PendingConsent>();
  private readonly idKey = generateKeyPairSync('rsa', { modulusLength: 2048 });
  /** Key material and kids handed out, and every token ever issued (revoked ones leave the maps). */
  private readonly keyTexts: string[] = [];
  private readonly everIssued: string[] = [];

  constructor(private readonly options: StandinAuthOptions = {}) {}

  get tokenUrl(): string {
    return `${this.baseUrl}token`;
  }

  get account(): string {
    return this.options.account ?? 'person@example.com';
  }

  /** A new service-account key, as the Cloud console's JSON download; the token endpoint knows its public half by private_key_id. */
  serviceAccountKey(email = 'sync@standin.iam.gserviceaccount.com') {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const kid = randomBytes(20).toString('hex');
    this.keys.set(kid, { email, publicKey });
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    // The key's base64 lines: any one of them in an output would be a leak.
    this.keyTexts.push(kid, ...pem.split('\n').filter((l) => l.length > 40));
    return {
      type: 'service_account',
      project_id: 'standin',
      private_key_id: kid,
      private_key: pem,
      client_email: email,
      client_id: '100000000000000000001',
      auth_uri: `${this.baseUrl}o/oauth2/auth`,
      token_uri: this.tokenUrl,
    };
  }

  /** A "Desktop app" OAuth client, as the Cloud console's JSON download. */
  desktopClient(): {
    installed: { client_id: string; client_secret: string; auth_uri: string; token_uri: string; redirect_uris: string[] };
  } {
    const id = `${randomBytes(6).toString('hex')}.apps.googleusercontent.com`;
    const secret = `GOCSPX-${randomBytes(18).toString('base64url')}`;
    this.clients.set(id, { secret });
    return {
      installed: {
        client_id: id,
        client_secret: secret,
        auth_uri: `${this.baseUrl}o/oauth2/auth`,
        token_uri: this.tokenUrl,
        redirect_uris: ['http://localhost'],
      },
    };
  }

  /** An access token for `who`, as if fetched elsewhere (gcloud auth print-access-token): no way to renew it. */
  issueAccessToken(who: string, lifetimeSeconds?: number): string {
    return this.issue(who, lifetimeSeconds);
  }

  /** Makes every access token issued so far invalid, as when they expire or are revoked mid-run. */
  expireAccessTokens(): void {
    for (const t of this.tokens.values()) t.expiresAt = 0;
  }

  /** How many access tokens the token endpoint issued, by grant. */
  issuedCount(grant?: string): number {
    return this.tokenRequests.filter((r) => r.status === 200 && (!grant || r.grant === grant)).length;
  }

  /** Every secret it handed out (private keys, client secrets, access and refresh tokens), to scan output for. */
  secrets(): string[] {
    return [
      ...this.keyTexts,
      ...[...this.clients.values()].map((c) => c.secret),
      ...this.tokens.keys(),
      ...this.refreshTokens.keys(),
      ...this.everIssued,
    ];
  }

  /** Whether any refresh token for this account is still good (not revoked). */
  hasGrant(who = this.account): boolean {
    return [...this.refreshTokens.values()].some((r) => r.who === who);
  }

  /** Who an Authorization header belongs to, or undefined (→ 401 UNAUTHENTICATED). */
  user(authorization: string | undefined): string | undefined {
    const token = /^Bearer (.+)$/.exec(authorization ?? '')?.[1];
    if (!token) return undefined;
    const fixed = this.fixedTokens.get(token);
    const issued = this.tokens.get(token);
    const who = fixed ?? (issued && issued.expiresAt > Date.now() ? issued.who : undefined);
    if (who) this.onAuthenticated?.(who);
    return who;
  }

  /** Answers the sign-in paths; false for any other path (the Sheets API's). */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const url = new URL(req.url ?? '/', this.baseUrl || 'http://x');
    const path = url.pathname;
    if (path === '/token' && req.method === 'POST') {
      await this.token(await form(req), res);
      return true;
    }
    if ((path === '/o/oauth2/auth' || path === '/o/oauth2/v2/auth') && req.method === 'GET') {
      this.authorize(url.searchParams, res);
      return true;
    }
    if (path === '/o/oauth2/consent' && req.method === 'POST') {
      this.consent(await form(req), res);
      return true;
    }
    if (path === '/revoke' && req.method === 'POST') {
      const body = await form(req);
      const token = body.get('token') ?? url.searchParams.get('token') ?? '';
      const known = this.revoke(token);
      this.revocations.push({ known });
      if (known) res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      else oauthError(res, new OAuthError(400, 'invalid_token', 'Token expired or revoked'));
      return true;
    }
    return false;
  }

  private issue(who: string, lifetimeSeconds = this.options.tokenLifetimeSeconds ?? 3600, grant?: string): string {
    const token = `ya29.standin-${randomBytes(24).toString('base64url')}`;
    this.tokens.set(token, { who, expiresAt: Date.now() + lifetimeSeconds * 1000, ...(grant ? { grant } : {}) });
    this.everIssued.push(token);
    return token;
  }

  private revoke(token: string): boolean {
    if (this.refreshTokens.delete(token)) {
      for (const [t, i] of this.tokens) if (i.grant === token) this.tokens.delete(t);
      return true;
    }
    return this.tokens.delete(token);
  }

  private async token(body: URLSearchParams, res: ServerResponse): Promise<void> {
    const grant = body.get('grant_type') ?? '';
    const record: TokenRequest = { grant, status: 200 };
    this.tokenRequests.push(record);
    try {
      const out =
        grant === JWT_BEARER
          ? this.jwtBearer(body.get('assertion') ?? '', record)
          : grant === 'authorization_code'
            ? this.authorizationCode(body)
            : grant === 'refresh_token'
              ? this.refresh(body)
              : (() => {
                  throw new OAuthError(400, 'unsupported_grant_type', `Invalid grant_type: ${grant}`);
                })();
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' }).end(JSON.stringify(out));
    } catch (e) {
      const err = e instanceof OAuthError ? e : new OAuthError(400, 'invalid_request', (e as Error).message);
      record.status = err.status;
      record.error = err.error;
      oauthError(res, err);
    }
  }

  /** RFC 7523 as Google checks it: a known key by kid, its signature, iss, aud = this token URL, a short-lived iat/exp, a scope. */
  private jwtBearer(assertion: string, record: TokenRequest) {
    const parts = assertion.split('.');
    if (parts.length !== 3)
      throw new OAuthError(400, 'invalid_grant', 'Invalid JWT: Token must be a short-lived token and in a reasonable timeframe');
    const [h, c, s] = parts as [string, string, string];
    let header: Record<string, unknown>;
    let claims: Record<string, unknown>;
    try {
      header = JSON.parse(Buffer.from(h, 'base64url').toString()) as Record<string, unknown>;
      claims = JSON.parse(Buffer.from(c, 'base64url').toString()) as Record<string, unknown>;
    } catch {
      throw new OAuthError(400, 'invalid_grant', 'Invalid JWT Signature.');
    }
    record.jwt = { header, claims };
    const key = typeof header.kid === 'string' ? this.keys.get(header.kid) : undefined;
    if (header.alg !== 'RS256' || !key || !verify('RSA-SHA256', Buffer.from(`${h}.${c}`), key.publicKey, Buffer.from(s, 'base64url')))
      throw new OAuthError(400, 'invalid_grant', 'Invalid JWT Signature.');
    if (claims.iss !== key.email) throw new OAuthError(400, 'invalid_grant', 'Invalid email or User ID');
    if (claims.aud !== this.tokenUrl)
      throw new OAuthError(400, 'invalid_grant', `Invalid JWT: Failed audience check. The right audience is ${this.tokenUrl}`);
    const now = Date.now() / 1000;
    const iat = Number(claims.iat);
    const exp = Number(claims.exp);
    // Google allows a few minutes of clock difference and at most an hour between iat and exp.
    if (!(exp > now - 300 && iat < now + 300 && iat > now - 3600 - 300 && exp - iat <= 3600))
      throw new OAuthError(
        400,
        'invalid_grant',
        'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.',
      );
    const scopes = String(claims.scope ?? '').split(' ');
    if (!scopes.includes(SPREADSHEETS_SCOPE))
      throw new OAuthError(400, 'invalid_scope', 'Invalid OAuth scope or ID token audience provided.');
    const lifetime = this.options.tokenLifetimeSeconds ?? 3600;
    return { access_token: this.issue(key.email, lifetime), expires_in: lifetime, token_type: 'Bearer' };
  }

  private client(body: URLSearchParams): string {
    const id = body.get('client_id') ?? '';
    const c = this.clients.get(id);
    if (!c) throw new OAuthError(401, 'invalid_client', 'The OAuth client was not found.');
    if (body.get('client_secret') !== c.secret) throw new OAuthError(401, 'invalid_client', 'Unauthorized');
    return id;
  }

  private authorizationCode(body: URLSearchParams) {
    const clientId = this.client(body);
    const code = body.get('code') ?? '';
    const c = this.codes.get(code);
    // A code is good once: a second exchange (or a stolen copy) fails like Google's.
    this.codes.delete(code);
    if (!c || c.expiresAt < Date.now() || c.clientId !== clientId) throw new OAuthError(400, 'invalid_grant', 'Malformed auth code.');
    if (body.get('redirect_uri') !== c.redirectUri) throw new OAuthError(400, 'redirect_uri_mismatch', 'Bad Request');
    const verifier = body.get('code_verifier') ?? '';
    if (createHash('sha256').update(verifier).digest('base64url') !== c.challenge)
      throw new OAuthError(400, 'invalid_grant', 'Invalid code verifier.');
    const refresh = `1//standin-${randomBytes(32).toString('base64url')}`;
    this.everIssued.push(refresh);
    this.refreshTokens.set(refresh, { who: this.account, clientId, scope: c.scope });
    const lifetime = this.options.tokenLifetimeSeconds ?? 3600;
    return {
      access_token: this.issue(this.account, lifetime, refresh),
      expires_in: lifetime,
      refresh_token: refresh,
      scope: c.scope,
      token_type: 'Bearer',
      ...(c.scope.split(' ').includes('openid') ? { id_token: this.idToken(clientId) } : {}),
    };
  }

  private refresh(body: URLSearchParams) {
    const clientId = this.client(body);
    const token = body.get('refresh_token') ?? '';
    const r = this.refreshTokens.get(token);
    if (!r || r.clientId !== clientId) throw new OAuthError(400, 'invalid_grant', 'Token has been expired or revoked.');
    const lifetime = this.options.tokenLifetimeSeconds ?? 3600;
    return { access_token: this.issue(r.who, lifetime, token), expires_in: lifetime, scope: r.scope, token_type: 'Bearer' };
  }

  /** An OpenID Connect ID token naming the account, signed like Google's (RS256). */
  private idToken(clientId: string): string {
    const now = Math.floor(Date.now() / 1000);
    const head = b64json({ alg: 'RS256', kid: 'standin-id', typ: 'JWT' });
    const body = b64json({
      iss: 'https://accounts.google.com',
      aud: clientId,
      sub: '100000000000000000002',
      email: this.account,
      email_verified: true,
      iat: now,
      exp: now + 3600,
    });
    return `${head}.${body}.${sign('RSA-SHA256', Buffer.from(`${head}.${body}`), this.idKey.privateKey).toString('base64url')}`;
  }

  /** The consent page: who signs in, what the app asks for, Allow and Cancel. */
  private authorize(q: URLSearchParams, res: ServerResponse): void {
    const page = (status: number, body: string): void =>
      void res
        .writeHead(status, { 'content-type': 'text/html; charset=utf-8' })
        .end(`<!doctype html><meta charset="utf-8"><title>Sign in</title>${body}`);
    const clientId = q.get('client_id') ?? '';
    if (!this.clients.has(clientId)) return page(401, '<h1>Access blocked: Authorization Error</h1><p>Error 401: invalid_client</p>');
    const redirectUri = q.get('redirect_uri') ?? '';
    // Desktop clients may redirect to a loopback address on any port (RFC 8252 7.3), nowhere else.
    if (!/^http:\/\/(127\.0\.0\.1|localhost|\[::1\]):\d+(\/[^?#]*)?$/.test(redirectUri))
      return page(400, '<h1>Access blocked: This app’s request is invalid</h1><p>Error 400: redirect_uri_mismatch</p>');
    const scope = q.get('scope') ?? '';
    const challenge = q.get('code_challenge') ?? '';
    if (
      q.get('response_type') !== 'code' ||
      !scope.split(' ').includes(SPREADSHEETS_SCOPE) ||
      !challenge ||
      q.get('code_challenge_method') !== 'S256'
    )
      return page(400, '<h1>Access blocked: This app’s request is invalid</h1><p>Error 400: invalid_request</p>');
    const id = randomBytes(12).toString('hex');
    const state = q.get('state');
    this.consents.set(id, { clientId, redirectUri, challenge, scope, ...(state !== null ? { state } : {}) });
    page(
      200,
      `<h1>Sign in with Google</h1><p>Signed in as <b id="account">${html(this.account)}</b></p>` +
        `<form method="post" action="/o/oauth2/consent"><input type="hidden" name="consent" value="${id}">` +
        // Google's granular consent: each sensitive scope has its own box, which the person may untick.
        `<p><label><input type="checkbox" id="grant-sheets" name="grant_sheets" checked> See, edit, create and delete all your Google Sheets spreadsheets</label></p>` +
        `<button id="allow" name="decision" value="allow">Allow</button> <button id="cancel" name="decision" value="deny">Cancel</button></form>`,
    );
  }

  private consent(body: URLSearchParams, res: ServerResponse): void {
    const id = body.get('consent') ?? '';
    const c = this.consents.get(id);
    this.consents.delete(id);
    if (!c) {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('This consent page has expired; start the sign-in again.');
      return;
    }
    const to = new URL(c.redirectUri);
    if (body.get('decision') === 'allow') {
      const code = `4/standin-${randomBytes(24).toString('base64url')}`;
      this.everIssued.push(code);
      const scope = body.has('grant_sheets')
        ? c.scope
        : c.scope
            .split(' ')
            .filter((x) => x !== SPREADSHEETS_SCOPE)
            .join(' ');
      this.codes.set(code, { ...c, scope, expiresAt: Date.now() + 10 * 60_000 });
      to.searchParams.set('code', code);
      to.searchParams.set('scope', scope);
    } else to.searchParams.set('error', 'access_denied');
    if (c.state !== undefined) to.searchParams.set('state', c.state);
    res.writeHead(302, { location: to.toString() }).end();
  }
}

async function form(req: IncomingMessage): Promise<URLSearchParams> {
  return new URLSearchParams((await readBody(req)).toString());
}

function oauthError(res: ServerResponse, e: OAuthError): void {
  res
    .writeHead(e.status, { 'content-type': 'application/json; charset=utf-8' })
    .end(JSON.stringify({ error: e.error, error_description: e.description }));
}
