import { CoreClient } from '@company-data/core/client';
import type { Lang } from '@company-data/core/schemas/common';
import { toNodeError } from '../errors';
import { n8nClock } from './clock';
import { CREDENTIAL_TYPE, n8nTransport, type N8nRequestContext } from './index';

/** What the credential stores (credentials/CompanyDataApi.credentials.ts). */
export interface CompanyDataCredential {
  apiKey?: string;
  baseUrl?: string;
  authStyle?: 'xApiKey' | 'bearer';
  webhookSigningSecret?: string;
}

/**
 * One client per execute() call, so its rate limiter and retries span every item of the run.
 * The client keeps the key only to scrub it from error texts: n8n's credential adds the header.
 * `lang`: sent with every operation that takes a language when the call sets none.
 */
export async function clientFor(ctx: N8nRequestContext, opts: { lang?: Lang } = {}): Promise<CoreClient> {
  const cred = (await ctx.getCredentials(CREDENTIAL_TYPE)) as CompanyDataCredential;
  try {
    return newClient(ctx, cred, opts.lang);
  } catch (error) {
    // A base URL without http(s):// is the credential's fault, and every node and trigger should say so.
    throw toNodeError(ctx.getNode(), error, undefined, 0);
  }
}

function newClient(ctx: N8nRequestContext, cred: CompanyDataCredential, lang: Lang | undefined): CoreClient {
  return new CoreClient({
    apiKey: cred.apiKey,
    lang,
    baseUrl: (cred.baseUrl ?? '').trim(),
    auth: cred.authStyle === 'bearer' ? 'bearer' : 'x-api-key',
    transport: n8nTransport(ctx),
    clock: n8nClock(),
    userAgent: 'n8n-nodes-company-data (n8n)',
    onSchemaMismatch: (m) =>
      ctx.logger.warn(`Company Data: the answer to ${m.operation} differs from the documented shape`, { requestId: m.requestId }),
  });
}
