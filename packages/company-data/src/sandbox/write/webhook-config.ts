import { createHash, createHmac, randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { ApiError } from '../http/errors';

/**
 * The webhook of one account. The file in the data dir holds a nonce, never the signing secret: the secret
 * is derived from the sandbox's secret key and the nonce, so a restart with the same key signs the same way.
 */
export interface WebhookState {
  url: string;
  enabled: boolean;
  nonce: string;
  created_at: number;
  updated_at: number;
}

export function secretKeyFromSeed(seed: number | string): Buffer {
  return createHash('sha256').update(`company-data-sandbox/webhook-secrets/${seed}`).digest();
}

export function signingSecret(key: Buffer, nonce: string): string {
  return `whsec_${createHmac('sha256', key).update(nonce).digest('base64url')}`;
}

export function newNonce(): string {
  return randomBytes(16).toString('hex');
}

function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h === '::1') return true;
  return isIP(h) === 4 && h.startsWith('127.');
}

/** HTTPS anywhere; plain http only to this machine (127.0.0.0/8, localhost, [::1]) for local receivers. */
export function checkWebhookUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new ApiError(400, 'invalid_parameter', 'url must be a web address', 'url');
  }
  if (u.protocol === 'https:') return u.toString();
  if (u.protocol === 'http:' && isLoopback(u.hostname)) return u.toString();
  throw new ApiError(
    400,
    'invalid_parameter',
    'url must be an HTTPS address (the sandbox also accepts http to 127.0.0.1, localhost or [::1])',
    'url',
  );
}

export function webhookView(w: WebhookState | undefined, secret?: string) {
  if (!w) return { url: null, enabled: false };
  return {
    url: w.url,
    enabled: w.enabled,
    ...(secret ? { signing_secret: secret } : {}),
    created_at: new Date(w.created_at).toISOString(),
    updated_at: new Date(w.updated_at).toISOString(),
  };
}
