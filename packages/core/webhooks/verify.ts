import { timingSafeEqual } from 'node:crypto';
import { parseJson } from '../json';
import { webhookEventSchema, type WebhookEvent } from '../schemas/events';
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

/** Why a delivery is refused: what SignatureVerificationError carries, as a value. */
export interface SignatureFailure {
  reason: SignatureFailureReason;
  message: string;
}

function single(headers: WebhookHeaders, name: string): string | SignatureFailure {
  const values = headerValues(headers, name);
  if (values.length === 0 || (values.length === 1 && values[0] === ''))
    return { reason: 'missing_header', message: `${name} header is missing` };
  if (values.length > 1) return { reason: 'duplicate_header', message: `${name} header was sent more than once` };
  return values[0]!;
}

function readWebhookHeaders(headers: WebhookHeaders): { timestamp: string; signatureHex: string } | SignatureFailure {
  const timestamp = single(headers, TIMESTAMP_HEADER);
  if (typeof timestamp !== 'string') return timestamp;
  const signature = single(headers, SIGNATURE_HEADER);
  if (typeof signature !== 'string') return signature;
  if (!/^\d{1,15}$/.test(timestamp))
    return { reason: 'malformed_header', message: `${TIMESTAMP_HEADER} must be Unix seconds, digits only` };
  const m = /^v1=([0-9a-f]{64})$/.exec(signature);
  if (!m) return { reason: 'malformed_header', message: `${SIGNATURE_HEADER} must be v1= followed by 64 lowercase hex characters` };
  return { timestamp, signatureHex: m[1]! };
}

/**
 * The signature headers' presence and form, the part of verifyWebhook that needs no body: a receiver
 * can refuse a delivery with bad headers before reading its body. Throws SignatureVerificationError.
 */
export function checkWebhookHeaders(headers: WebhookHeaders): { timestamp: string; signatureHex: string } {
  const read = readWebhookHeaders(headers);
  if ('reason' in read) throw new SignatureVerificationError(read.reason, read.message);
  return read;
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

/** What checkWebhook finds: the event, or why the delivery is refused. */
export type WebhookCheck = { ok: true; event: WebhookEvent } | ({ ok: false } & SignatureFailure);

/**
 * Verifies a delivery and returns its event; throws SignatureVerificationError when it is refused.
 * See checkWebhook for the order of the checks.
 */
export function verifyWebhook(input: VerifyWebhookInput): WebhookEvent {
  const checked = checkWebhook(input);
  if (!checked.ok) throw new SignatureVerificationError(checked.reason, checked.message);
  return checked.event;
}

/**
 * verifyWebhook with the refusal as a value, for a receiver that answers every refusal alike (the n8n
 * trigger answers 401). Order: raw body, headers, signature, then time window, so timing reasons are
 * only reported for authentic requests. A missing secret or a negative tolerance is the caller's bug
 * and throws (TypeError, RangeError).
 * Decision: a correctly signed event whose type or shape is unknown is still returned (the service
 * may add types); its `type` may then be a value not in WebhookEvent, so keep a default branch.
 */
export function checkWebhook(input: VerifyWebhookInput): WebhookCheck {
  const secrets = [...(input.secrets ?? []), ...(input.secret !== undefined ? [input.secret] : [])].filter(
    (s) => typeof s === 'string' && s !== '',
  );
  if (secrets.length === 0) throw new TypeError('verifyWebhook needs the signing secret (secret or secrets)');
  const tolerance = input.toleranceSeconds ?? 300;
  if (!(tolerance >= 0)) throw new RangeError('toleranceSeconds must be 0 or more');
  const refuse = (reason: SignatureFailureReason, message: string): WebhookCheck => ({ ok: false, reason, message });

  const raw = input.rawBody;
  if (typeof raw !== 'string' && !(raw instanceof Uint8Array)) {
    return refuse('body_not_raw', 'rawBody must be the body as received (string or Buffer), not a parsed object');
  }
  const body = typeof raw === 'string' ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);

  const read = readWebhookHeaders(input.headers);
  if ('reason' in read) return { ok: false, ...read };
  const { timestamp, signatureHex } = read;
  const given = Buffer.from(signatureHex, 'hex');
  const ok = secrets.some((s) => timingSafeEqual(Buffer.from(computeSignature(s, timestamp, body), 'hex'), given));
  if (!ok) return refuse('bad_signature', 'the signature does not match the body and timestamp');

  const nowMs = input.now instanceof Date ? input.now.getTime() : (input.now ?? Date.now());
  const age = Math.floor(nowMs / 1000) - Number(timestamp);
  if (age > tolerance) return refuse('timestamp_too_old', `the timestamp is ${age} seconds old; at most ${tolerance} allowed`);
  if (-age > tolerance) return refuse('timestamp_too_new', `the timestamp is ${-age} seconds in the future; at most ${tolerance} allowed`);

  const parsed = parseJson(typeof body === 'string' ? body : body.toString('utf8'));
  if (!parsed) return refuse('invalid_json', 'the body is not JSON');
  const json = parsed.value;
  if (!json || typeof json !== 'object' || Array.isArray(json)) return refuse('invalid_json', 'the body is not a JSON object');
  const event = webhookEventSchema.safeParse(json);
  if (event.success) return { ok: true, event: event.data };
  input.onSchemaMismatch?.(event.error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message })));
  return { ok: true, event: json as WebhookEvent };
}
