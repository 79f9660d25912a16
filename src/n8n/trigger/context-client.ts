import { sleep, type IDataObject, type IHttpRequestMethods, type IHttpRequestOptions } from 'n8n-workflow';
import { CoreClient } from '../../core/client';
import { TransportError, type Transport } from '../../core/transport';

/**
 * Interim: the trigger's client over n8n's HTTP helper, until the shared n8n transport of src/n8n lands
 * (then this file shrinks to a call of it). Credential fields: apiKey, baseUrl, webhookSigningSecret.
 */
export interface TriggerCredentials {
  apiKey: string;
  baseUrl: string;
  webhookSigningSecret?: string;
}

type HttpRequest = (opts: IHttpRequestOptions) => Promise<unknown>;

function n8nTransport(httpRequest: HttpRequest): Transport {
  return {
    async request(req) {
      let res: { statusCode?: number; headers?: Record<string, unknown>; body?: unknown };
      try {
        res = (await httpRequest({
          method: req.method as IHttpRequestMethods,
          url: req.url,
          headers: req.headers,
          body: req.body,
          timeout: req.timeoutMs,
          returnFullResponse: true,
          ignoreHttpStatusErrors: true,
          encoding: 'text',
          json: false,
        })) as typeof res;
      } catch (error) {
        throw new TransportError('other', `no answer from the service: ${(error as Error).message}`);
      }
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(res.headers ?? {})) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : String(v);
      const body = typeof res.body === 'string' ? res.body : Buffer.isBuffer(res.body) ? res.body.toString('utf8') : JSON.stringify(res.body ?? '');
      return { status: res.statusCode ?? 0, headers, body };
    },
  };
}

export function triggerClient(creds: TriggerCredentials, httpRequest: HttpRequest): CoreClient {
  return new CoreClient({
    apiKey: creds.apiKey,
    baseUrl: creds.baseUrl,
    transport: n8nTransport(httpRequest),
    clock: { now: () => Date.now(), sleep },
  });
}

export function readCredentials(raw: IDataObject): TriggerCredentials {
  return {
    apiKey: String(raw.apiKey ?? ''),
    baseUrl: String(raw.baseUrl ?? ''),
    webhookSigningSecret: typeof raw.webhookSigningSecret === 'string' && raw.webhookSigningSecret.trim() !== '' ? raw.webhookSigningSecret.trim() : undefined,
  };
}
