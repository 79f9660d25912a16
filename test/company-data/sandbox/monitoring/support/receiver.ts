import { createHmac, timingSafeEqual } from 'node:crypto';
import type { RecordedRequest } from '../../../../support/http-server';

/** Independent check of a delivery's signature with node:crypto (not the package's verifier). */
export function signatureValid(secret: string, r: RecordedRequest): boolean {
  const ts = String(r.headers['x-service-timestamp']);
  const sig = String(r.headers['x-service-signature']);
  const expected = `v1=${createHmac('sha256', secret).update(`${ts}.${r.body}`).digest('hex')}`;
  return sig.length === expected.length && timingSafeEqual(Buffer.from(sig), Buffer.from(expected));
}

export { waitFor } from '../../../../support/wait-for';
