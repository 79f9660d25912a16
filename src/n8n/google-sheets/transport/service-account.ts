import { createSign } from 'node:crypto';
import {
  ServiceAccountTokens,
  type RsaSha256Signer,
  type ServiceAccountKey,
  type ServiceAccountWords,
} from '@company-data/core/google/service-account';
import type { Transport } from '@company-data/core/transport';

/** The service-account sign-in is the core's (packages/core/google/service-account.ts); n8n fills its ports and words. */
export { ServiceAccountError } from '@company-data/core/google/service-account';

/** node:crypto's RS256: the core's signature port in n8n. */
const nodeRsaSha256: RsaSha256Signer = (data, pem) => createSign('RSA-SHA256').update(data).sign(pem);

/** How the node names the key in the core's messages: the credential's field, and pasting a new key there. */
export const N8N_KEY_WORDS: ServiceAccountWords = {
  key: 'Service Account Key in the Company Data: Google Service Account credential',
  machine: 'the n8n server',
  newKey: 'paste the whole file into the credential',
  signedInUser: 'choose Authentication: OAuth2 in the node to use your own Google account, or paste a service-account key',
};

/** What a 401 after a new token means, in the node's words. */
export const N8N_SERVICE_ACCOUNT_401 =
  'The service-account key was refused even with a new token: check the key is current (not deleted or rotated in the Cloud console), or paste a new one into the credential.';

/** A service account's tokens in n8n: the core's exchange through the given n8n helper, signed with node:crypto. */
export function n8nServiceAccountTokens(key: ServiceAccountKey, transport: Transport): ServiceAccountTokens {
  return new ServiceAccountTokens(key, { transport, sign: nodeRsaSha256, now: () => Date.now(), words: N8N_KEY_WORDS });
}
