import { createSign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { JWT, OAuth2Client, type Credentials, type gaxios } from 'google-auth-library';

type GaxiosError<T = unknown> = gaxios.GaxiosError<T>;
type GaxiosOptions = gaxios.GaxiosOptions;
type GaxiosResponse<T = unknown> = gaxios.GaxiosResponse<T>;

export const SHEETS_SCOPE = 'https://www.googleapis.com/auth/spreadsheets';
/** Where Google's own keys and clients exchange tokens; a key or client file may name another (a stand-in). */
export const GOOGLE_TOKEN_URI = 'https://oauth2.googleapis.com/token';

/** The fields of a service-account key file (JSON) that are used. */
export interface ServiceAccountKey {
  client_email: string;
  private_key: string;
  private_key_id?: string;
  token_uri?: string;
}

/**
 * Google credentials, one of:
 * - serviceAccountKeyFile: path to the JSON key of a service account (share the spreadsheet with its
 *   client_email). Access tokens come from the key's token_uri by the OAuth 2.0 JWT bearer grant and are
 *   renewed with a new assertion when they expire.
 * - accessToken: an OAuth2 access token (for example from `gcloud auth print-access-token`); it cannot be
 *   renewed, so a run longer than its life (about an hour) ends with a 401 that says so.
 * - oauth: an OAuth2 client id, secret and refresh token (an authorized-user file, or the account signed in
 *   with `company-data auth login`); access tokens are renewed with the refresh token.
 */
export type GoogleCredentials =
  | { serviceAccountKeyFile: string }
  | { serviceAccountKey: ServiceAccountKey }
  | { accessToken: string }
  | {
      oauth: {
        clientId: string;
        clientSecret: string;
        refreshToken: string;
        tokenUrl?: string;
        /** The account's email, for messages. */
        account?: string;
        /** Where the refresh token came from, for messages: 'google-account' or 'google-oauth-file <path>'. */
        source?: string;
      };
    };

export type GoogleAuthClient = OAuth2Client;

export interface GoogleAuthOptions {
  /** Milliseconds since 1970 for the assertion's iat and exp; a test moves it to play a computer with a wrong clock. */
  now?: () => number;
}

/** An error of the sign-in, worded for the user; `status` is left out so the Sheets table does not add its own advice. */
export class GoogleAuthError extends Error {
  override readonly name = 'GoogleAuthError';
}

function readKeyFile(path: string): ServiceAccountKey {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(`google-key-file: cannot read ${path} as JSON (${(err as NodeJS.ErrnoException).code ?? 'invalid JSON'})`);
  }
  const k = json as Partial<Record<keyof ServiceAccountKey | 'type', unknown>>;
  if (typeof k.client_email !== 'string' || typeof k.private_key !== 'string') {
    const hint =
      k.type === 'authorized_user'
        ? '; it is a signed-in user (authorized_user): pass it with --google-oauth-file'
        : ' (IAM → Service accounts → Keys → Add key → JSON in the Cloud console)';
    throw new Error(`google-key-file: ${path} must be a service-account key with client_email and private_key${hint}`);
  }
  return {
    client_email: k.client_email,
    private_key: k.private_key,
    ...(typeof k.private_key_id === 'string' ? { private_key_id: k.private_key_id } : {}),
    ...(typeof k.token_uri === 'string' ? { token_uri: k.token_uri } : {}),
  };
}

/** Google's OAuth error body ({"error":"invalid_grant","error_description":"..."}) as "invalid_grant: ...". */
export function oauthErrorText(err: unknown): { code?: string; text: string; status?: number } {
  const e = err as GaxiosError<{ error?: unknown; error_description?: unknown }>;
  const data = e?.response?.data;
  const status = e?.response?.status;
  if (data && typeof data === 'object' && typeof data.error === 'string') {
    const desc = typeof data.error_description === 'string' ? `: ${data.error_description}` : '';
    return { code: data.error, text: `${data.error}${desc}`, ...(status ? { status } : {}) };
  }
  const code = (e as { code?: unknown })?.code;
  // No answer at all (refused, DNS, time-out): the kind is enough; gaxios's message quotes the request.
  return { text: status ? `HTTP ${status}` : `no answer (${typeof code === 'string' ? code : 'network error'})` };
}

/** After a token exchange failed: which of the user's things to check, by Google's answer. */
function keyAdvice(code: string | undefined, text: string, path: string): string {
  if (/short-lived|reasonable timeframe|\biat\b|\bexp\b/i.test(text))
    return "this computer's clock is off by more than a few minutes: set it right (automatic time) and run again";
  if (code === 'invalid_grant' || code === 'invalid_client' || code === 'unauthorized_client')
    return `the key was deleted or replaced, or the file was edited: create a new JSON key for the service account (Cloud console → IAM → Service accounts → Keys) and pass it with --google-key-file instead of ${path}`;
  if (code === 'invalid_scope') return 'the token endpoint refused the Sheets scope: check the Sheets API is enabled for the key’s project';
  return 'check the network and the token_uri in the key file, then run again; nothing was written';
}

/**
 * Renews a refused access token once: a 401 means Google did not take the request, so sending it again
 * with a new token is safe. google-auth-library only does this when it has no expiry time for the token
 * (or with forceRefreshOnFailure, which also retries every 403 "not shared"); a token revoked or expired
 * early, or a clock that was wrong, is a 401 with an expiry time we believed.
 */
async function renewOn401<T>(
  client: OAuth2Client,
  send: (retried: boolean) => Promise<GaxiosResponse<T>>,
  reAuthRetried: boolean,
): Promise<GaxiosResponse<T>> {
  try {
    return await send(true);
  } catch (e) {
    if (reAuthRetried || (e as GaxiosError).response?.status !== 401 || !client.credentials.refresh_token) throw e;
    // Dropping the access token makes the next request fetch a new one (JWT: a new assertion; user: the refresh token).
    client.credentials = { refresh_token: client.credentials.refresh_token };
    return send(true);
  }
}

/**
 * A service account through the standard OAuth 2.0 JWT bearer grant (RFC 7523), as google-auth-library's
 * JWT client does it, except that the assertion is sent to the key's own token_uri with the key's id as
 * `kid`: the library's token fetcher (gtoken 8) always posts to oauth2.googleapis.com and names no key.
 * Caching, early renewal (5 minutes before expiry) and the request path stay the library's.
 */
class ServiceAccountClient extends JWT {
  private readonly tokenUri: string;

  constructor(
    private readonly sa: ServiceAccountKey,
    private readonly label: string,
    private readonly now: () => number,
  ) {
    super({
      email: sa.client_email,
      key: sa.private_key,
      ...(sa.private_key_id ? { keyId: sa.private_key_id } : {}),
      scopes: [SHEETS_SCOPE],
    });
    this.tokenUri = sa.token_uri ?? GOOGLE_TOKEN_URI;
  }

  private assertion(): string {
    const iat = Math.floor(this.now() / 1000);
    const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const header = b64({ alg: 'RS256', typ: 'JWT', ...(this.sa.private_key_id ? { kid: this.sa.private_key_id } : {}) });
    const claims = b64({ iss: this.sa.client_email, scope: SHEETS_SCOPE, aud: this.tokenUri, iat, exp: iat + 3600 });
    let signature: string;
    try {
      signature = createSign('RSA-SHA256').update(`${header}.${claims}`).sign(this.sa.private_key, 'base64url');
    } catch {
      // The key's text is never quoted: it is the secret.
      throw new GoogleAuthError(`${this.label}: its private_key is not a valid RSA key; download a new JSON key from the Cloud console`);
    }
    return `${header}.${claims}.${signature}`;
  }

  protected override async refreshTokenNoCache(): Promise<{ tokens: Credentials; res: GaxiosResponse | null }> {
    const sent = this.now();
    let res: GaxiosResponse<{ access_token?: string; expires_in?: number; token_type?: string }>;
    try {
      res = await this.transporter.request({
        ...OAuth2Client.RETRY_CONFIG,
        method: 'POST',
        url: this.tokenUri,
        data: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: this.assertion() }),
        responseType: 'json',
      });
    } catch (err) {
      if (err instanceof GoogleAuthError) throw err;
      const { code, text } = oauthErrorText(err);
      throw new GoogleAuthError(
        `${this.label} (service account ${this.sa.client_email}) was refused by the token endpoint ${this.tokenUri} (${text}): ${keyAdvice(code, text, this.label.replace(/^google-key-file /, ''))}`,
      );
    }
    if (!res.data?.access_token)
      throw new GoogleAuthError(`${this.label}: the token endpoint ${this.tokenUri} answered without an access token; run again later`);
    const tokens: Credentials = {
      access_token: res.data.access_token,
      token_type: 'Bearer',
      // Counted from when the request left, so a slow answer cannot make the token look younger than it is.
      expiry_date: sent + (res.data.expires_in ?? 3600) * 1000,
      refresh_token: 'jwt-placeholder',
    };
    this.emit('tokens', tokens);
    return { tokens, res };
  }

  protected override requestAsync<T>(opts: GaxiosOptions, reAuthRetried = false): Promise<GaxiosResponse<T>> {
    return renewOn401<T>(this, (r) => super.requestAsync<T>(opts, r), reAuthRetried);
  }
}

/** A person's Google account by its refresh token; errors of the renewal say how to sign in again. */
class UserClient extends OAuth2Client {
  constructor(private readonly o: Extract<GoogleCredentials, { oauth: unknown }>['oauth']) {
    super({ clientId: o.clientId, clientSecret: o.clientSecret, endpoints: { oauth2TokenUrl: o.tokenUrl ?? GOOGLE_TOKEN_URI } });
    this.setCredentials({ refresh_token: o.refreshToken });
  }

  protected override async refreshTokenNoCache(refreshToken?: string | null): Promise<{ tokens: Credentials; res: GaxiosResponse | null }> {
    try {
      return await super.refreshTokenNoCache(refreshToken);
    } catch (err) {
      const { code, text } = oauthErrorText(err);
      const who = this.o.account ? ` of ${this.o.account}` : '';
      const source = this.o.source ?? 'google-oauth-file';
      const todo =
        code === 'invalid_grant'
          ? source === 'google-account'
            ? 'sign in again with `company-data auth login`'
            : 'the refresh token was revoked or has expired: get a new one, or sign in with `company-data auth login` and use --google-account'
          : code === 'invalid_client' || code === 'unauthorized_client'
            ? 'the OAuth client was deleted or its secret changed: download the client JSON again and sign in with `company-data auth login --client-file`'
            : 'check the network, then run again';
      throw new GoogleAuthError(`${source}: the sign-in${who} was refused by Google's token endpoint (${text}): ${todo}`);
    }
  }

  protected override requestAsync<T>(opts: GaxiosOptions, reAuthRetried = false): Promise<GaxiosResponse<T>> {
    return renewOn401<T>(this, (r) => super.requestAsync<T>(opts, r), reAuthRetried);
  }
}

export function googleAuthClient(creds: GoogleCredentials, options: GoogleAuthOptions = {}): GoogleAuthClient {
  if ('accessToken' in creds) {
    const c = new OAuth2Client();
    c.setCredentials({ access_token: creds.accessToken });
    return c;
  }
  if ('oauth' in creds) return new UserClient(creds.oauth);
  const [key, label] =
    'serviceAccountKeyFile' in creds
      ? [readKeyFile(creds.serviceAccountKeyFile), `google-key-file ${creds.serviceAccountKeyFile}`]
      : [creds.serviceAccountKey, 'the service-account key'];
  return new ServiceAccountClient(key, label, options.now ?? Date.now);
}

/** What a 401 from the Sheets API means for these credentials, and what to do. */
export function unauthenticatedAdvice(auth: GoogleAuthClient): string {
  if (auth instanceof ServiceAccountClient || auth instanceof JWT)
    return 'the service-account key was refused: check the key file is current (not deleted or rotated in the Cloud console)';
  if (auth instanceof UserClient)
    return 'the sign-in was refused even after renewing the access token: sign in again with `company-data auth login`';
  return (
    'the credentials were refused or have expired: an access token (--google-token) lasts about an hour and cannot be renewed here; ' +
    'get a new one and run again (answers already paid for are kept, so nothing is billed twice), or use --google-key-file or ' +
    '`company-data auth login` with --google-account, which renew their tokens themselves'
  );
}
