import type {
  IExecuteFunctions,
  IHookFunctions,
  IHttpRequestMethods,
  IHttpRequestOptions,
  ILoadOptionsFunctions,
  IPollFunctions,
} from 'n8n-workflow';
import type { Transport, TransportErrorKind, TransportRequest, TransportResponse } from '@company-data/core/transport';
import { TransportError } from '@company-data/core/transport';

export const CREDENTIAL_TYPE = 'companyDataApi';

/** The n8n contexts that make API calls: node execution, trigger (de)activation, polling, and the editor's lists. */
export type N8nRequestContext = IExecuteFunctions | IHookFunctions | IPollFunctions | ILoadOptionsFunctions;

/** Headers the core client sets from its own copy of the key; n8n's credential adds them instead. */
const AUTH_HEADERS = new Set(['x-api-key', 'authorization']);

interface FullResponse {
  statusCode: number;
  headers?: Record<string, unknown>;
  body?: unknown;
}

function headerMap(raw: Record<string, unknown> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!raw) return out;
  // axios hands over an AxiosHeaders instance; toJSON gives plain values where it exists.
  const plain = typeof (raw as { toJSON?: unknown }).toJSON === 'function' ? (raw as { toJSON(): Record<string, unknown> }).toJSON() : raw;
  for (const [k, v] of Object.entries(plain)) {
    if (v === undefined || v === null) continue;
    out[k.toLowerCase()] = Array.isArray(v) ? v.map(String).join(', ') : String(v);
  }
  return out;
}

function bodyText(body: unknown): string {
  if (body === undefined || body === null) return '';
  if (typeof body === 'string') return body;
  if (Buffer.isBuffer(body)) return body.toString('utf8');
  if (body instanceof ArrayBuffer) return Buffer.from(body).toString('utf8');
  // A helper that parsed JSON despite encoding 'text': turn it back into the text the client parses.
  return JSON.stringify(body);
}

const codeKinds: Record<string, TransportErrorKind> = {
  ECONNREFUSED: 'refused',
  ENOTFOUND: 'dns',
  EAI_AGAIN: 'dns',
  ECONNRESET: 'reset',
  EPIPE: 'reset',
  UND_ERR_SOCKET: 'reset',
  ETIMEDOUT: 'timeout',
  ECONNABORTED: 'timeout',
  ESOCKETTIMEDOUT: 'timeout',
  UND_ERR_CONNECT_TIMEOUT: 'timeout',
  UND_ERR_HEADERS_TIMEOUT: 'timeout',
  UND_ERR_BODY_TIMEOUT: 'timeout',
};

/**
 * n8n wraps network failures (NodeApiError around an axios error around a system error); the
 * system code decides whether the core client may retry, so it is looked for along the cause chain.
 */
export function transportErrorFrom(error: unknown): TransportError {
  let e: unknown = error;
  for (let depth = 0; e && typeof e === 'object' && depth < 6; depth++) {
    const rec = e as { code?: unknown; name?: unknown; cause?: unknown; errno?: unknown };
    for (const c of [rec.code, rec.errno]) {
      if (typeof c === 'string' && codeKinds[c]) return new TransportError(codeKinds[c], `${c}`, c);
    }
    if (rec.name === 'TimeoutError' || rec.name === 'AbortError') return new TransportError('timeout', String(rec.name), String(rec.name));
    e = rec.cause;
  }
  const code = (error as { code?: unknown } | null)?.code;
  return new TransportError('other', 'The request could not be completed', typeof code === 'string' ? code : undefined);
}

/** How one request goes through n8n's helpers. */
export interface N8nSend {
  /** Sent with httpRequestWithAuthentication and this credential; else with the plain httpRequest. */
  credentialType?: string;
  /**
   * Let the helper throw on 4xx/5xx and read the answer back from the error. n8n renews an OAuth2
   * token only when its helper throws on the 401, so an OAuth2 credential needs this; a plain helper
   * does not (it returns every answer).
   */
  statusesThrown?: boolean;
}

/**
 * The HTTP answer an n8n helper threw: axios's error, which n8n 2.x keeps as the NodeApiError's cause with
 * status, headers and body; n8n 1.x's NodeApiError drops the cause and keeps only the status (httpCode),
 * so there the answer is its status alone.
 */
function answerInError(error: unknown): TransportResponse | undefined {
  let e: unknown = error;
  for (let depth = 0; e && typeof e === 'object' && depth < 6; depth++) {
    const res = (e as { response?: { status?: unknown; headers?: Record<string, unknown>; data?: unknown } }).response;
    if (res && typeof res.status === 'number') return { status: res.status, headers: headerMap(res.headers), body: bodyText(res.data) };
    e = (e as { cause?: unknown }).cause;
  }
  const httpCode = (error as { httpCode?: unknown } | null)?.httpCode;
  return typeof httpCode === 'string' && /^[1-5]\d\d$/.test(httpCode) ? { status: Number(httpCode), headers: {}, body: '' } : undefined;
}

/** One core transport request through n8n's helpers: every HTTP answer resolves, only "no answer" throws (TransportError). */
export async function sendThroughN8n(ctx: N8nRequestContext, req: TransportRequest, how: N8nSend = {}): Promise<TransportResponse> {
  const options: IHttpRequestOptions = {
    method: req.method as IHttpRequestMethods,
    url: req.url,
    headers: req.headers,
    body: req.body,
    json: false,
    encoding: 'text',
    returnFullResponse: true,
    ignoreHttpStatusErrors: !how.statusesThrown,
    disableFollowRedirect: true,
    timeout: req.timeoutMs,
  };
  let res: FullResponse;
  try {
    res = (
      how.credentialType
        ? await ctx.helpers.httpRequestWithAuthentication.call(ctx, how.credentialType, options)
        : await ctx.helpers.httpRequest(options)
    ) as FullResponse;
  } catch (error) {
    const answer = how.statusesThrown ? answerInError(error) : undefined;
    if (answer) return answer;
    throw transportErrorFrom(error);
  }
  return { status: res.statusCode, headers: headerMap(res.headers), body: bodyText(res.body) };
}

/**
 * The core client's transport over n8n's HTTP helpers, so n8n's proxy settings and the credential's
 * authenticate rule apply. Statuses are not errors here: the client maps them itself.
 */
export function n8nTransport(ctx: N8nRequestContext, credentialType = CREDENTIAL_TYPE): Transport {
  return {
    async request(req: TransportRequest): Promise<TransportResponse> {
      const headers: Record<string, string> = {};
      let authenticated = false;
      for (const [k, v] of Object.entries(req.headers)) {
        if (AUTH_HEADERS.has(k.toLowerCase())) authenticated = true;
        else headers[k] = v;
      }
      return await sendThroughN8n(ctx, { ...req, headers }, authenticated ? { credentialType } : {});
    },
  };
}
