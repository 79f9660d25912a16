import type { IExecuteFunctions, ILoadOptionsFunctions } from 'n8n-workflow';
import type { Transport } from '@company-data/core/transport';
import type { GoogleTokenSource } from '@company-data/core/sheets/ports';
import { parseServiceAccountKey, serviceAccountTokenSource } from '@company-data/core/google/service-account';
import { sendThroughN8n } from '../../transport';
import { USER_ACCOUNT_CREDENTIAL, SERVICE_ACCOUNT_CREDENTIAL, type GoogleAuthentication } from '../descriptions/common';
import { N8N_KEY_WORDS, N8N_SERVICE_ACCOUNT_401, n8nServiceAccountTokens } from './service-account';

export type GoogleContext = IExecuteFunctions | ILoadOptionsFunctions;

/** How the node reaches the Sheets API: a transport, and the token source when the node signs in itself. */
export interface GoogleSheetsAccess {
  transport: Transport;
  /** Set for a service account; an OAuth2 credential is applied (and renewed) by n8n's helper itself. */
  tokens?: GoogleTokenSource;
  /** The service account's email: whom to share the spreadsheet with. */
  account?: string;
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
  const key = parseServiceAccountKey(cred.serviceAccountKey, N8N_KEY_WORDS);
  const transport: Transport = { request: async (req) => await sendThroughN8n(ctx, req) };
  return {
    transport,
    tokens: serviceAccountTokenSource(n8nServiceAccountTokens(key, transport), N8N_SERVICE_ACCOUNT_401),
    account: key.client_email,
  };
}
