import { createHmac } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-Service-Signature';
export const TIMESTAMP_HEADER = 'X-Service-Timestamp';
export const EVENT_ID_HEADER = 'X-Service-Event-Id';
export const SIGNATURE_SCHEME = 'v1';

/** Hex HMAC-SHA256 keyed with the signing secret over `${timestamp}.${rawBody}` (spec, Events > Signature). */
export function computeSignature(secret: string, timestamp: number | string, rawBody: string | Buffer): string {
  const h = createHmac('sha256', secret);
  h.update(`${timestamp}.`, 'utf8');
  h.update(typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody);
  return h.digest('hex');
}

export interface SignWebhookInput {
  secret: string;
  /** The exact body that will be sent. */
  body: string | Buffer;
  /** Unix time in seconds; default now. */
  timestamp?: number;
  /** Adds X-Service-Event-Id when given. */
  eventId?: string;
}

/** Headers of a signed delivery, as the service sends them (used by the sandbox and tests). */
export function signWebhook(input: SignWebhookInput): Record<string, string> {
  const timestamp = input.timestamp ?? Math.floor(Date.now() / 1000);
  if (!Number.isInteger(timestamp) || timestamp < 0) throw new RangeError('timestamp must be whole Unix seconds');
  const headers: Record<string, string> = {};
  if (input.eventId !== undefined) headers[EVENT_ID_HEADER] = input.eventId;
  headers[TIMESTAMP_HEADER] = String(timestamp);
  headers[SIGNATURE_HEADER] = `${SIGNATURE_SCHEME}=${computeSignature(input.secret, timestamp, input.body)}`;
  return headers;
}
