import { createHmac } from 'node:crypto';

/** v1 signature of the spec: HMAC-SHA256 over `timestamp.body`, hex. */
export function signatureHeader(secret: string, timestamp: string, body: string): string {
  return `v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}
