import { createSign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { JWT, OAuth2Client, type Credentials, type gaxios } from 'google-auth-library';
import {
  GOOGLE_TOKEN_URI,
  parseServiceAccountKey,
  requestServiceAccountToken,
  ServiceAccountError,
  SHEETS_SCOPE,
  type RsaSha256Signer,
  type ServiceAccountKey,
  type ServiceAccountWords,
} from '@company-data/core/google/service-account';
import type { Transport } from '@company-data/core/transport';
import { systemClock } from '../transport/clock';
import { UndiciTransport } from '../transport/undici';

type GaxiosError<T = unknown> = gaxios.GaxiosError<T>;
type GaxiosOptions = gaxios.GaxiosOptions;
type GaxiosResponse<T = unknown> = gaxios.GaxiosResponse<T>;

export { GOOGLE_TOKEN_URI, SHEETS_SCOPE };

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
  /** A key file's JSON, parsed; token_uri may be left out (Google's). */
  | { serviceAccountKey: Omit<ServiceAccountKey, 'token_uri'> & { token_uri?: string } }
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
  /** Where a service account's token requests go; default: undici. */
  transport?: Transport;
}

/** An error of the sign-in, worded for the user; `status` is left out so the Sheets table does not add its own advice. */
export class GoogleAuthError extends Error {
  override readonly name = 'GoogleAuthError';
}

/** node:crypto's RS256, the core's signature port in the CLI. */
const nodeRsaSha256: RsaSha256Signer = (data, pem) => createSign('RSA-SHA256').update(data).sign(pem);

/** How the CLI names a service account's key in the core's messages. */
function keyWords(path: string | undefined): ServiceAccountWords {
  return {
    key: path ? `google-key-file ${path}` : 'the service-account key',
    machine: 'this computer',
    newKey: path ? `pass it with --google-key-file instead of ${path}` : 'use it instead of this one',
    signedInUser: 'pass it with --google-oauth-file',
  };
}

/** The core's refusal as one line for the terminal: what happened, then what to do. */
const inCliWords = (e: unknown): unknown => (e instanceof ServiceAccountError ? new GoogleAuthError(`${e.message}: ${e.advice}`) : e);

function readKeyFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`google-key-file: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? 'unreadable'})`);
  }
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
 * A service account as a google-auth-library client: the token comes from the core's exchange (the key's
 * own token_uri, the key's id as `kid`, sent through undici); caching, early renewal (5 minutes before
 * expiry) and the request path stay the library's.
 */
class ServiceAccountClient extends OAuth2Client {
  constructor(
    readonly key: ServiceAccountKey,
    private readonly words: ServiceAccountWords,
    private readonly now: () => number,
    private readonly transport: Transport,
  ) {
    super();
    // The library asks for a new token only while it holds a refresh token: a key can always sign a new assertion.
    this.setCredentials({ refresh_token: 'jwt-placeholder' });
  }

  protected override async refreshTokenNoCache(): Promise<{ tokens: Credentials; res: GaxiosResponse | null }> {
    const { token, expiresAt } = await requestServiceAccountToken(this.key, {
      transport: this.transport,
      sign: nodeRsaSha256,
      now: this.now,
      words: this.words,
      sleep: systemClock.sleep,
    }).catch((e: unknown) => {
      throw inCliWords(e);
    });
    const tokens: Credentials = { access_token: token, token_type: 'Bearer', expiry_date: expiresAt, refresh_token: 'jwt-placeholder' };
    this.emit('tokens', tokens);
    return { tokens, res: null };
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
  const path = 'serviceAccountKeyFile' in creds ? creds.serviceAccountKeyFile : undefined;
  const words = keyWords(path);
  let key: ServiceAccountKey;
  try {
    key = parseServiceAccountKey(
      'serviceAccountKeyFile' in creds ? readKeyFile(creds.serviceAccountKeyFile) : creds.serviceAccountKey,
      words,
    );
  } catch (e) {
    throw inCliWords(e);
  }
  const transport = options.transport ?? new UndiciTransport({ deadlineMs: 30_000 });
  return new ServiceAccountClient(key, words, options.now ?? Date.now, transport);
}

/** The service account's email, when one signs in: whom to share a spreadsheet with. */
export function signedInAccount(auth: GoogleAuthClient): string | undefined {
  if (auth instanceof ServiceAccountClient) return auth.key.client_email;
  return auth instanceof JWT ? (auth.email ?? undefined) : undefined;
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
