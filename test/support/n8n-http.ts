import type { ICredentialDataDecryptedObject, IHttpRequestOptions, INode, INodeTypes } from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';
import { mock } from 'jest-mock-extended';
import { CompanyDataApi } from '../../credentials/CompanyDataApi.credentials';

export interface SentRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/**
 * The credential's generic authenticate rule applied the way n8n does: header names and values are
 * n8n expressions over $credentials, resolved by n8n-workflow's own expression engine.
 */
export function authenticate(credentials: ICredentialDataDecryptedObject, options: IHttpRequestOptions, node: INode): IHttpRequestOptions {
  const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes: mock<INodeTypes>() });
  const resolve = (v: string) => {
    if (!v.startsWith('=')) return v;
    const r = workflow.expression.getSimpleParameterValue(node, v, 'internal', { $credentials: credentials }, undefined, '');
    return r ? String(r) : '';
  };
  const headers: Record<string, unknown> = { ...(options.headers ?? {}) };
  for (const [k, v] of Object.entries(new CompanyDataApi().authenticate.properties.headers ?? {})) headers[resolve(k)] = resolve(String(v));
  return { ...options, headers: headers as IHttpRequestOptions['headers'] };
}

/** The request's time-out and abort signal (n8n's Stop), as n8n's helper honours both. */
function requestSignal(options: IHttpRequestOptions): AbortSignal | undefined {
  const signals = [options.timeout ? AbortSignal.timeout(options.timeout) : undefined, options.abortSignal as AbortSignal | undefined];
  const live = signals.filter((s): s is AbortSignal => s !== undefined);
  return live.length > 1 ? AbortSignal.any(live) : live[0];
}

/**
 * n8n's httpRequest contract over real HTTP (node fetch): returnFullResponse, ignoreHttpStatusErrors,
 * encoding 'text', timeout and abortSignal are honoured; every request is recorded for assertions.
 */
export async function forwardHttp(options: IHttpRequestOptions, log: SentRequest[]): Promise<unknown> {
  const url = new URL(options.url, options.baseURL);
  for (const [k, v] of Object.entries(options.qs ?? {})) url.searchParams.append(k, String(v));
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(options.headers ?? {})) if (v !== undefined && v !== null) headers[k] = String(v);
  const body = options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  log.push({ method: options.method ?? 'GET', url: url.toString(), headers, body });
  const res = await fetch(url, {
    method: options.method ?? 'GET',
    headers,
    body,
    redirect: options.disableFollowRedirect ? 'manual' : 'follow',
    signal: requestSignal(options),
  });
  const text = await res.text();
  const resHeaders: Record<string, string> = {};
  res.headers.forEach((v, k) => (resHeaders[k] = v));
  if (!options.ignoreHttpStatusErrors && res.status >= 400) {
    // As axios throws it (n8n wraps it in a NodeApiError): the answer rides along on `response`.
    throw Object.assign(new Error(`Request failed with status code ${res.status}`), {
      httpCode: String(res.status),
      response: { status: res.status, headers: resHeaders, data: text },
    });
  }
  const parsed = options.encoding === 'text' || options.json === false ? text : text ? JSON.parse(text) : undefined;
  if (!options.returnFullResponse) return parsed;
  return { statusCode: res.status, statusMessage: res.statusText, headers: resHeaders, body: parsed };
}
