/**
 * A Google service account's access tokens, for every door: the key's checks, the signed assertion of
 * the OAuth 2.0 JWT bearer grant (RFC 7523) sent to the key's own token_uri with the key's id as `kid`,
 * the token request through the core's Transport, Google's answer, and the refusals in words that say
 * what to do. Pure code: the RSA-SHA256 signature comes through a port (node:crypto in the CLI and n8n,
 * Utilities.computeRsaSignatureSha256 in Apps Script), and each door names its own things (ServiceAccountWords).
 */
import { isJsonObject, parseJson } from '../json';
import { defaultRetryOptions, withRetries, type AttemptOutcome } from '../retry';
import type { PlainSleep } from '../sleep';
import type { GoogleTokenSource } from '../sheets/ports';
import { TransportError, type Transport, type TransportResponse } from '../transport';
import { base64url, base64urlText } from './base64url';

export const SHEETS_SCOPE = 'https://www.googleapis.com/auth/spreadsheets';
/** Where Google's own keys exchange tokens; a key may name another (a proxy, a stand-in). */
export const GOOGLE_TOKEN_URI = 'https://oauth2.googleapis.com/token';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** A token is renewed this long before Google says it expires, so no request leaves with one about to die. */
const EARLY_RENEWAL_MS = 5 * 60_000;
/** Google answers within seconds; a hung endpoint must not hold the run. */
const TOKEN_TIMEOUT_MS = 30_000;
/** Token requests sent again after no answer, a 429 or a 5xx, when the door gives a sleep (google-auth-library's count). */
const TOKEN_RETRIES = 3;

/** The fields of a service-account key file that are used. */
export interface ServiceAccountKey {
  client_email: string;
  private_key: string;
  private_key_id?: string;
  token_uri: string;
}

/**
 * The RSA-SHA256 (RS256) signature of `data`'s UTF-8 bytes with the PEM private key, as bytes (signed
 * bytes, as Apps Script gives them, are fine). Throws when the key is no RSA private key.
 */
export type RsaSha256Signer = (data: string, privateKeyPem: string) => ArrayLike<number>;

/** How a door names things in the messages: each says them to its own users. */
export interface ServiceAccountWords {
  /** The key as the user gave it, opening each message: "google-key-file ./key.json", "Service Account Key in the … credential". */
  key: string;
  /** Whose clock signs the assertion: "this computer", "the n8n server". */
  machine: string;
  /** How a new key is put in place, after "create a new JSON key for the service account (…) and": "paste the whole file". */
  newKey: string;
  /** What to do when a signed-in person's file (authorized_user) was given instead of a key. */
  signedInUser: string;
}

/** What went wrong: the key itself (before any request), or the token endpoint's answer. */
export type ServiceAccountProblem = 'not-json' | 'signed-in-user' | 'incomplete' | 'not-rsa' | 'refused' | 'no-token' | 'no-answer';

/** A refusal of the key or of the token endpoint, worded for the user; never quotes the key. */
export class ServiceAccountError extends Error {
  override readonly name = 'ServiceAccountError';
  constructor(
    readonly problem: ServiceAccountProblem,
    message: string,
    /** What to do, as a clause ("create a new JSON key …"): the CLI puts it after the message's colon. */
    readonly advice: string,
    /** Google's OAuth error code ("invalid_grant"), when it gave one. */
    readonly oauthError?: string,
  ) {
    super(message);
  }

  /** What to do, as a sentence (n8n's description, the add-on's sidebar). */
  get hint(): string {
    return `${this.advice.charAt(0).toUpperCase()}${this.advice.slice(1)}.`;
  }
}

const newKeyAdvice = (w: ServiceAccountWords) =>
  `create a new JSON key for the service account (Cloud console → IAM → Service accounts → Keys → Add key → JSON) and ${w.newKey}`;

/** The key file's JSON (its text, or parsed), checked: what is wrong is named without quoting the secret. */
export function parseServiceAccountKey(json: unknown, words: ServiceAccountWords): ServiceAccountKey {
  const value = typeof json === 'string' ? parseJson(json.trim())?.value : json;
  const fail = (problem: ServiceAccountProblem, what: string, advice = newKeyAdvice(words)) =>
    new ServiceAccountError(problem, `${words.key}: ${what}`, advice);
  if (!isJsonObject(value))
    throw fail('not-json', 'not JSON', `use the whole key file as downloaded (from { to }), or ${newKeyAdvice(words)}`);
  if (value.type === 'authorized_user')
    throw fail('signed-in-user', "this is a signed-in person's file (authorized_user), not a service-account key", words.signedInUser);
  const { client_email: email, private_key: pem, private_key_id: id, token_uri: uri } = value;
  if (typeof email !== 'string' || !email || typeof pem !== 'string' || !pem)
    throw fail('incomplete', 'client_email or private_key is missing');
  return {
    client_email: email.trim(),
    // A key pasted through a form that kept the JSON escapes as text ("\n" as two characters) is still the same key.
    private_key: pem.includes('\\n') ? pem.replace(/\\n/g, '\n') : pem,
    ...(typeof id === 'string' && id ? { private_key_id: id } : {}),
    token_uri: typeof uri === 'string' && /^https?:\/\//.test(uri) ? uri : GOOGLE_TOKEN_URI,
  };
}

/** The signed JWT of the JWT bearer grant, RS256, for the key's own token_uri, valid an hour from `nowMs`. */
export function serviceAccountAssertion(key: ServiceAccountKey, nowMs: number, sign: RsaSha256Signer, words: ServiceAccountWords): string {
  const iat = Math.floor(nowMs / 1000);
  const header = base64urlText(JSON.stringify({ alg: 'RS256', typ: 'JWT', ...(key.private_key_id ? { kid: key.private_key_id } : {}) }));
  const claims = base64urlText(JSON.stringify({ iss: key.client_email, scope: SHEETS_SCOPE, aud: key.token_uri, iat, exp: iat + 3600 }));
  const signature = signed(sign, `${header}.${claims}`, key.private_key);
  // The key's text is never quoted: it is the secret.
  if (!signature) throw new ServiceAccountError('not-rsa', `${words.key}: its private_key is not a valid RSA key`, newKeyAdvice(words));
  return `${header}.${claims}.${base64url(signature)}`;
}

/** The signature, or undefined when the signer refused the key. */
function signed(sign: RsaSha256Signer, data: string, pem: string): ArrayLike<number> | undefined {
  try {
    return sign(data, pem);
  } catch {
    return undefined;
  }
}

/** After Google refused the exchange: why, by Google's answer, and which of the user's things to check. */
function refusal(code: string | undefined, text: string, w: ServiceAccountWords): { why?: string; advice: string } {
  if (/short-lived|reasonable timeframe|\biat\b|\bexp\b/i.test(text))
    return { why: `${w.machine}'s clock is off by more than a few minutes`, advice: 'set it right (automatic time) and run again' };
  if (code === 'invalid_grant' || code === 'invalid_client' || code === 'unauthorized_client')
    return { why: 'the key was deleted or replaced in the Cloud console, or its JSON was changed', advice: newKeyAdvice(w) };
  if (code === 'invalid_scope')
    return { why: 'the token endpoint refused the Sheets scope', advice: 'check the Google Sheets API is enabled for the key’s project' };
  return { advice: 'check the network and the token_uri in the key, then run again' };
}

/** A token endpoint's answer other than a token, as the refusal to throw: Google's words and what to do. */
function tokenRefusal(
  key: ServiceAccountKey,
  answer: TransportResponse,
  body: Record<string, unknown>,
  w: ServiceAccountWords,
): ServiceAccountError {
  if (answer.status === 200)
    return new ServiceAccountError(
      'no-token',
      `${w.key}: the token endpoint ${key.token_uri} answered without an access token`,
      'run again later',
    );
  const code = typeof body.error === 'string' ? body.error : undefined;
  const text = code ? `${code}${typeof body.error_description === 'string' ? `: ${body.error_description}` : ''}` : `HTTP ${answer.status}`;
  const { why, advice } = refusal(code, text, w);
  const message = `${w.key} (service account ${key.client_email}) was refused by the token endpoint ${key.token_uri} (${text})`;
  return new ServiceAccountError('refused', why ? `${message}: ${why}` : message, advice, code);
}

/**
 * The access token in a token endpoint's answer, with its expiry counted from `sentAt` (so a slow
 * answer cannot make it look younger than it is); otherwise a ServiceAccountError in Google's words
 * ("invalid_grant: Invalid JWT Signature.") with what to do.
 */
export function readTokenAnswer(
  key: ServiceAccountKey,
  answer: TransportResponse,
  sentAt: number,
  words: ServiceAccountWords,
): { token: string; expiresAt: number } {
  const read = tokenOrRefusal(key, answer, sentAt, words);
  if (read instanceof ServiceAccountError) throw read;
  return read;
}

/** The token and its expiry, or the refusal to throw. */
function tokenOrRefusal(key: ServiceAccountKey, answer: TransportResponse, sentAt: number, words: ServiceAccountWords) {
  const parsed = parseJson(answer.body)?.value;
  const body = isJsonObject(parsed) ? parsed : {};
  if (answer.status !== 200 || typeof body.access_token !== 'string' || !body.access_token) return tokenRefusal(key, answer, body, words);
  const life = typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : 3600;
  return { token: body.access_token, expiresAt: sentAt + life * 1000 };
}

/** What a door gives the exchange: the way out, the signature, the time, its words; a sleep to retry with. */
export interface TokenExchange {
  transport: Transport;
  sign: RsaSha256Signer;
  now(): number;
  words: ServiceAccountWords;
  /** With it, a request that got no answer, a 429 or a 5xx is sent again (a new assertion each time) after a wait; else once. */
  sleep?: PlainSleep;
}

/** One token: a fresh assertion posted to the key's token_uri, Google's answer read. */
export async function requestServiceAccountToken(key: ServiceAccountKey, x: TokenExchange): Promise<{ token: string; expiresAt: number }> {
  const attempt = async (): Promise<AttemptOutcome<{ token: string; expiresAt: number }>> => {
    const sentAt = x.now();
    const assertion = serviceAccountAssertion(key, sentAt, x.sign, x.words);
    let res: TransportResponse;
    try {
      res = await x.transport.request({
        method: 'POST',
        url: key.token_uri,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `grant_type=${encodeURIComponent(JWT_BEARER)}&assertion=${assertion}`,
        timeoutMs: TOKEN_TIMEOUT_MS,
      });
    } catch (e) {
      const t = e instanceof TransportError ? e : undefined;
      const error = new ServiceAccountError(
        'no-answer',
        `${x.words.key}: the token endpoint ${key.token_uri} did not answer (${t ? (t.code ?? t.kind) : 'network error'})`,
        'check the network and the token_uri in the key, then run again',
      );
      return { ok: false, failure: { kind: 'transport', transportKind: t?.kind ?? 'other' }, error };
    }
    const read = tokenOrRefusal(key, res, sentAt, x.words);
    if (!(read instanceof ServiceAccountError)) return { ok: true, value: read };
    // A 429 or 5xx may be retried (withRetries decides); any other refusal is final.
    return { ok: false, failure: { kind: 'http', status: res.status }, error: read };
  };
  if (!x.sleep) {
    const out = await attempt();
    if (out.ok) return out.value;
    throw out.error;
  }
  return await withRetries(attempt, {
    policy: 'safe',
    options: { ...defaultRetryOptions, retries: TOKEN_RETRIES, rateLimitRetries: TOKEN_RETRIES },
    sleep: x.sleep,
  });
}

/**
 * Access tokens of one service account: fetched on first use, kept until five minutes before they
 * expire, renewed at once after a 401 (Google did not take the request, so sending it again with a new
 * token is safe). Requests that find no token share one exchange.
 */
export class ServiceAccountTokens {
  private current: { token: string; expiresAt: number } | undefined;
  private pending: Promise<string> | undefined;
  /** Tokens fetched so far (a report or test reads it). */
  fetched = 0;

  constructor(
    readonly key: ServiceAccountKey,
    private readonly exchange: TokenExchange,
  ) {}

  async token(): Promise<string> {
    if (this.current && this.current.expiresAt - EARLY_RENEWAL_MS > this.exchange.now()) return this.current.token;
    this.pending ??= this.fetch().finally(() => (this.pending = undefined));
    return await this.pending;
  }

  /** Forgets a token the API refused (a 401): the next request fetches a new one. */
  refused(token: string): void {
    if (this.current?.token === token) this.current = undefined;
  }

  private async fetch(): Promise<string> {
    this.current = await requestServiceAccountToken(this.key, this.exchange);
    this.fetched++;
    return this.current.token;
  }
}

/** A service account's tokens as the Sheets engine's token source; `on401`: what a 401 after a new token means, in the door's words. */
export function serviceAccountTokenSource(tokens: ServiceAccountTokens, on401: string): GoogleTokenSource {
  let last: string | undefined;
  return {
    account: tokens.key.client_email,
    on401,
    async authorize() {
      last = await tokens.token();
      return { authorization: `Bearer ${last}` };
    },
    // A refused token is dropped: the next authorize() fetches a new one (a key can always sign a new request).
    async renew() {
      if (last) tokens.refused(last);
      return true;
    },
  };
}
