import { createSign } from 'node:crypto';

export const SHEETS_SCOPE = 'https://www.googleapis.com/auth/spreadsheets';
/** Where Google's own keys exchange tokens; a key may name another (a proxy, a test server). */
export const GOOGLE_TOKEN_URI = 'https://oauth2.googleapis.com/token';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** A token is renewed this long before Google says it expires, so no request leaves with one about to die. */
const EARLY_RENEWAL_MS = 5 * 60_000;

/** The fields of a service-account key file that are used. */
export interface ServiceAccountKey {
  client_email: string;
  private_key: string;
  private_key_id?: string;
  token_uri: string;
}

/** A refusal of the key or of the token endpoint, worded for the user; never quotes the key. */
export class ServiceAccountError extends Error {
  override readonly name = 'ServiceAccountError';
  constructor(
    message: string,
    /** What to do about it. */
    readonly hint: string,
  ) {
    super(message);
  }
}

const KEY_FIELD = 'Service Account Key in the Company Data: Google Service Account credential';
const NEW_KEY = 'Create a new JSON key (Cloud console → IAM → Service accounts → Keys → Add key → JSON) and paste the whole file.';

/** The credential's JSON key file, checked: what is wrong is named without quoting the secret. */
export function parseServiceAccountKey(text: unknown): ServiceAccountKey {
  const json = jsonOf(typeof text === 'string' ? text.trim() : '');
  if (json === undefined) throw new ServiceAccountError(`${KEY_FIELD}: not JSON`, `Paste the whole key file, from { to }. ${NEW_KEY}`);
  const k = (json && typeof json === 'object' ? json : {}) as Record<string, unknown>;
  if (k.type === 'authorized_user')
    throw new ServiceAccountError(
      `${KEY_FIELD}: this is a signed-in person's file (authorized_user), not a service-account key`,
      'Choose Authentication: OAuth2 in the node to use your own Google account, or paste a service-account key.',
    );
  if (typeof k.client_email !== 'string' || !k.client_email || typeof k.private_key !== 'string' || !k.private_key)
    throw new ServiceAccountError(`${KEY_FIELD}: client_email or private_key is missing`, NEW_KEY);
  // A key pasted through a form that kept the JSON escapes as text ("\n" as two characters) is still the same key.
  const pem = k.private_key.includes('\\n') ? k.private_key.replace(/\\n/g, '\n') : k.private_key;
  return {
    client_email: k.client_email.trim(),
    private_key: pem,
    ...(typeof k.private_key_id === 'string' && k.private_key_id ? { private_key_id: k.private_key_id } : {}),
    token_uri: typeof k.token_uri === 'string' && /^https?:\/\//.test(k.token_uri) ? k.token_uri : GOOGLE_TOKEN_URI,
  };
}

/** The signed JWT of the OAuth 2.0 JWT bearer grant (RFC 7523), RS256, for the key's own token_uri. */
export function serviceAccountAssertion(key: ServiceAccountKey, nowMs: number): string {
  const iat = Math.floor(nowMs / 1000);
  const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const header = b64({ alg: 'RS256', typ: 'JWT', ...(key.private_key_id ? { kid: key.private_key_id } : {}) });
  const claims = b64({ iss: key.client_email, scope: SHEETS_SCOPE, aud: key.token_uri, iat, exp: iat + 3600 });
  const signature = rs256(`${header}.${claims}`, key.private_key);
  if (signature === undefined) throw new ServiceAccountError(`${KEY_FIELD}: its private_key is not a valid RSA key`, NEW_KEY);
  return `${header}.${claims}.${signature}`;
}

/** The form body of the token request. */
export function tokenRequestBody(assertion: string): string {
  return new URLSearchParams({ grant_type: JWT_BEARER, assertion }).toString();
}

/** What the token endpoint answered: status and body text. */
export interface TokenAnswer {
  status: number;
  body: string;
}

/** The parsed JSON, or undefined when it is not JSON. */
function jsonOf(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The RS256 signature, or undefined when the key is no RSA private key (the key is never quoted). */
function rs256(data: string, pem: string): string | undefined {
  try {
    return createSign('RSA-SHA256').update(data).sign(pem, 'base64url');
  } catch {
    return undefined;
  }
}

function parsed(body: string): Record<string, unknown> {
  const v = jsonOf(body);
  return v && typeof v === 'object' ? (v as Record<string, unknown>) : {};
}

/** After Google refused the exchange: which of the user's things to check, by Google's answer. */
function advice(code: string | undefined, text: string): string {
  if (/short-lived|reasonable timeframe|\biat\b|\bexp\b/i.test(text))
    return "The n8n server's clock is off by more than a few minutes: set it right (automatic time) and run again.";
  if (code === 'invalid_grant' || code === 'invalid_client' || code === 'unauthorized_client')
    return `The key was deleted or replaced in the Cloud console, or the JSON was changed. ${NEW_KEY}`;
  if (code === 'invalid_scope')
    return 'The token endpoint refused the Sheets scope: check the Google Sheets API is enabled for the key’s project.';
  return 'Check the network and the token_uri in the key, then run again.';
}

/**
 * The access token in a token endpoint's answer, with its expiry counted from `sentAt`; otherwise a
 * ServiceAccountError in Google's words ("invalid_grant: Invalid JWT Signature.") with what to do.
 */
export function readTokenAnswer(key: ServiceAccountKey, answer: TokenAnswer, sentAt: number): { token: string; expiresAt: number } {
  const body = parsed(answer.body);
  if (answer.status === 200 && typeof body.access_token === 'string' && body.access_token) {
    const life = typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : 3600;
    return { token: body.access_token, expiresAt: sentAt + life * 1000 };
  }
  const code = typeof body.error === 'string' ? body.error : undefined;
  const text = code ? `${code}${typeof body.error_description === 'string' ? `: ${body.error_description}` : ''}` : `HTTP ${answer.status}`;
  if (answer.status === 200)
    throw new ServiceAccountError(`The token endpoint ${key.token_uri} answered without an access token`, 'Run again later.');
  throw new ServiceAccountError(
    `The token endpoint ${key.token_uri} refused the service account ${key.client_email} (${text})`,
    advice(code, text),
  );
}

/** Sends one token request (form-encoded POST) through whatever n8n gives the calling context. */
export type TokenPoster = (url: string, form: string) => Promise<TokenAnswer>;

/**
 * Access tokens of one service account for one execution: fetched on first use, kept until five
 * minutes before they expire, renewed at once after a 401 (Google did not take the request, so sending
 * it again with a new token is safe).
 */
export class ServiceAccountTokens {
  private current: { token: string; expiresAt: number } | undefined;
  private pending: Promise<string> | undefined;
  /** Tokens fetched so far (a report or test reads it). */
  fetched = 0;

  constructor(
    readonly key: ServiceAccountKey,
    private readonly post: TokenPoster,
    private readonly now: () => number = Date.now,
  ) {}

  async token(): Promise<string> {
    if (this.current && this.current.expiresAt - EARLY_RENEWAL_MS > this.now()) return this.current.token;
    // Requests that find no token at once share one exchange.
    this.pending ??= this.fetch().finally(() => (this.pending = undefined));
    return await this.pending;
  }

  /** Forgets a token the API refused (a 401): the next request fetches a new one. */
  refused(token: string): void {
    if (this.current?.token === token) this.current = undefined;
  }

  private async fetch(): Promise<string> {
    const sentAt = this.now();
    const answer = await this.post(this.key.token_uri, tokenRequestBody(serviceAccountAssertion(this.key, sentAt)));
    this.current = readTokenAnswer(this.key, answer, sentAt);
    this.fetched++;
    return this.current.token;
  }
}
