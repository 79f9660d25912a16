import { timingSafeEqual } from 'node:crypto';
import { webhookEventSchema, type WebhookEvent } from '../core/schemas/events';
import { computeSignature, SIGNATURE_HEADER, TIMESTAMP_HEADER } from './sign';

export type SignatureFailureReason =
  | 'missing_header'
  | 'duplicate_header'
  | 'malformed_header'
  | 'bad_signature'
  | 'timestamp_too_old'
  | 'timestamp_too_new'
  | 'body_not_raw'
  | 'invalid_json';

const HINTS: Record<SignatureFailureReason, string> = {
  missing_header: 'The request lacks the signature headers: it did not come from the service.',
  duplicate_header: 'A signature header was sent twice: reject the request.',
  malformed_header: 'A signature header is not in the form the service sends: reject the request.',
  bad_signature: 'The signature does not match: check the signing secret, and that the body is passed exactly as received.',
  timestamp_too_old: 'The request is older than the allowed window: a replay, or this server clock is wrong.',
  timestamp_too_new: 'The request is dated in the future: this server clock is wrong, or the request was forged.',
  body_not_raw: 'Pass the raw body (string or Buffer) exactly as received, not parsed JSON.',
  invalid_json: 'The signed body is not a JSON object.',
};

export class SignatureVerificationError extends Error {
  readonly reason: SignatureFailureReason;
  readonly hint: string;
  constructor(reason: SignatureFailureReason, message: string) {
    super(message);
    this.name = 'SignatureVerificationError';
    this.reason = reason;
    this.hint = HINTS[reason];
  }
}

/**
 * Headers as any server gives them: a Fetch Headers-like object (get), a plain object with any-case
 * keys (node:http IncomingMessage.headers), a flat raw list [name, value, ...] (rawHeaders) or a
 * list of [name, value] pairs.
 */
export type WebhookHeaders =
  | { get(name: string): string | null | undefined }
  | Readonly<Record<string, string | readonly string[] | undefined>>
  | readonly string[]
  | ReadonlyArray<readonly [string, string]>;

/** All values of a header, case-insensitively; a comma-joined value counts as several. */
function headerValues(headers: WebhookHeaders, name: string): string[] {
  const lower = name.toLowerCase();
  let values: string[] = [];
  if (Array.isArray(headers)) {
    if (headers.length > 0 && Array.isArray(headers[0])) {
      for (const [k, v] of headers as ReadonlyArray<readonly [string, string]>) if (k.toLowerCase() === lower) values.push(v);
    } else {
      const flat = headers as readonly string[];
      for (let i = 0; i + 1 < flat.length; i += 2) if (flat[i]!.toLowerCase() === lower) values.push(flat[i + 1]!);
    }
  } else if (typeof (headers as { get?: unknown }).get === 'function') {
    const v = (headers as { get(name: string): string | null | undefined }).get(name);
    if (v !== null && v !== undefined) values.push(v);
  } else {
    for (const [k, v] of Object.entries(headers as Record<string, string | readonly string[] | undefined>)) {
      if (k.toLowerCase() !== lower || v === undefined) continue;
      if (Array.isArray(v)) values.push(...(v as string[]));
      else values.push(v as string);
    }
  }
  // Fetch Headers and node:http join repeated custom headers with ", "; neither value has a comma.
  values = values.flatMap((v) => v.split(','));
  return values.map((v) => v.trim());
}

function single(headers: WebhookHeaders, name: string): string {
  const values = headerValues(headers, name);
  if (values.length === 0 || (values.length === 1 && values[0] === '')) throw new SignatureVerificationError('missing_header', `${name} header is missing`);
  if (values.length > 1) throw new SignatureVerificationError('duplicate_header', `${name} header was sent more than once`);
  return values[0]!;
}

/**
 * The signature headers' presence and form, the part of verifyWebhook that needs no body: a receiver
 * can refuse a delivery with bad headers before reading its body. Throws SignatureVerificationError.
 */
export function checkWebhookHeaders(headers: WebhookHeaders): { timestamp: string; signatureHex: string } {
  const timestamp = single(headers, TIMESTAMP_HEADER);
  const signature = single(headers, SIGNATURE_HEADER);
  if (!/^\d{1,15}$/.test(timestamp)) throw new SignatureVerificationError('malformed_header', `${TIMESTAMP_HEADER} must be Unix seconds, digits only`);
  const m = /^v1=([0-9a-f]{64})$/.exec(signature);
  if (!m) throw new SignatureVerificationError('malformed_header', `${SIGNATURE_HEADER} must be v1= followed by 64 lowercase hex characters`);
  return { timestamp, signatureHex: m[1]! };
}

export interface VerifyWebhookInput {
  /** The body exactly as received: string or Buffer. Parsed JSON cannot be verified. */
  rawBody: string | Buffer | Uint8Array;
  headers: WebhookHeaders;
  secret?: string;
  /** Several secrets during rotation: a signature by any of them is accepted. */
  secrets?: readonly string[];
  /** Allowed difference between the timestamp and now, both ways. Default 300 (spec). */
  toleranceSeconds?: number;
  /** Current time, ms since the epoch or a Date. Default Date.now(). */
  now?: number | Date;
  /** Called when a correctly signed event does not match the known event schemas (a new type or field shape). */
  onSchemaMismatch?: (issues: ReadonlyArray<{ path: string; message: string }>) => void;
}

/**
 * Verifies a delivery and returns its event. Order: raw body, headers, signature, then time window,
 * so timing reasons are only reported for authentic requests.
 * Decision: a correctly signed event whose type or shape is unknown is still returned (the service
 * may add types); its `type` may then be a value not in WebhookEvent, so keep a default branch.
 */
export function verifyWebhook(input: VerifyWebhookInput): WebhookEvent {
  const secrets = [...(input.secrets ?? []), ...(input.secret !== undefined ? [input.secret] : [])].filter((s) => typeof s === 'string' && s !== '');
  if (secrets.length === 0) throw new TypeError('verifyWebhook needs the signing secret (secret or secrets)');
  const tolerance = input.toleranceSeconds ?? 300;
  if (!(tolerance >= 0)) throw new RangeError('toleranceSeconds must be 0 or more');

  const raw = input.rawBody;
  if (typeof raw !== 'string' && !(raw instanceof Uint8Array)) {
    throw new SignatureVerificationError('body_not_raw', 'rawBody must be the body as received (string or Buffer), not a parsed object');
  }
  const body = typeof raw === 'string' ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);

  const { timestamp, signatureHex } = checkWebhookHeaders(input.headers);
  const given = Buffer.from(signatureHex, 'hex');
  const ok = secrets.some((s) => timingSafeEqual(Buffer.from(computeSignature(s, timestamp, body), 'hex'), given));
  if (!ok) throw new SignatureVerificationError('bad_signature', 'the signature does not match the body and timestamp');

  const nowMs = input.now instanceof Date ? input.now.getTime() : (input.now ?? Date.now());
  const age = Math.floor(nowMs / 1000) - Number(timestamp);
  if (age > tolerance) throw new SignatureVerificationError('timestamp_too_old', `the timestamp is ${age} seconds old; at most ${tolerance} allowed`);
  if (-age > tolerance) throw new SignatureVerificationError('timestamp_too_new', `the timestamp is ${-age} seconds in the future; at most ${tolerance} allowed`);

  let json: unknown;
  try {
    json = JSON.parse(typeof body === 'string' ? body : body.toString('utf8'));
  } catch {
    throw new SignatureVerificationError('invalid_json', 'the body is not JSON');
  }
  if (!json || typeof json !== 'object' || Array.isArray(json)) throw new SignatureVerificationError('invalid_json', 'the body is not a JSON object');
  const parsed = webhookEventSchema.safeParse(json);
  if (parsed.success) return parsed.data;
  input.onSchemaMismatch?.(parsed.error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message })));
  return json as WebhookEvent;
}
