import type { IExecuteFunctions, ILoadOptionsFunctions } from 'n8n-workflow';
import type { Transport, TransportResponse } from '@company-data/core/transport';
import type { GoogleTokenSource } from '@company-data/core/sheets/ports';
import { TransportError } from '@company-data/core/transport';
import { sendThroughN8n } from '../../transport';
import { USER_ACCOUNT_CREDENTIAL, SERVICE_ACCOUNT_CREDENTIAL, type GoogleAuthentication } from '../descriptions/common';
import { parseServiceAccountKey, ServiceAccountError, ServiceAccountTokens, type TokenPoster } from './service-account';

export type GoogleContext = IExecuteFunctions | ILoadOptionsFunctions;

/** What the token exchange is given: Google answers within seconds; a hung endpoint must not hold the run. */
const TOKEN_TIMEOUT_MS = 30_000;

/** How the node reaches the Sheets API: a transport, and the token source when the node signs in itself. */
export interface GoogleSheetsAccess {
  transport: Transport;
  /** Set for a service account; an OAuth2 credential is applied (and renewed) by n8n's helper itself. */
  tokens?: GoogleTokenSource;
  /** The service account's email: whom to share the spreadsheet with. */
  account?: string;
}

/** The token endpoint through n8n's plain helper (the credential is the key itself, signed here). */
export function n8nTokenPoster(ctx: GoogleContext): TokenPoster {
  return async (url, form) => {
    const res: TransportResponse | TransportError = await sendThroughN8n(ctx, {
      method: 'POST',
      url,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form,
      timeoutMs: TOKEN_TIMEOUT_MS,
    }).catch((error: unknown) => (error instanceof TransportError ? error : new TransportError('other', 'network error')));
    if (res instanceof TransportError)
      throw new ServiceAccountError(
        `The token endpoint ${url} did not answer (${res.code ?? res.kind})`,
        'Check the network and the token_uri in the key, then run again.',
      );
    return { status: res.status, body: res.body };
  };
}

/** A service account's tokens as the engine's token source: renewed on a 401, errors in the user's words. */
export function serviceAccountTokenSource(tokens: ServiceAccountTokens): GoogleTokenSource {
  let last: string | undefined;
  return {
    account: tokens.key.client_email,
    on401:
      'The service-account key was refused even with a new token: check the key is current (not deleted or rotated in the Cloud console), or paste a new one into the credential.',
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

/**
 * The Sheets API as the node reaches it. The node does not tie its own requests to the execution's
 * cancel signal: after Stop the engine still saves the answers it has. (n8n's authenticated helper,
 * used for OAuth2, ties every request to it by itself: there Stop ends the saving too.)
 */
export async function googleSheetsAccess(ctx: GoogleContext, authentication: GoogleAuthentication): Promise<GoogleSheetsAccess> {
  if (authentication === 'oAuth2') {
    // n8n adds the token, renews it on a 401 (which is why statuses are thrown) and adds the execution's cancel signal.
    return {
      transport: {
        request: async (req) => await sendThroughN8n(ctx, req, { credentialType: USER_ACCOUNT_CREDENTIAL, statusesThrown: true }),
      },
    };
  }
  const cred = await ctx.getCredentials(SERVICE_ACCOUNT_CREDENTIAL);
  const key = parseServiceAccountKey(cred.serviceAccountKey);
  const tokens = new ServiceAccountTokens(key, n8nTokenPoster(ctx));
  return {
    transport: { request: async (req) => await sendThroughN8n(ctx, req) },
    tokens: serviceAccountTokenSource(tokens),
    account: key.client_email,
  };
}
