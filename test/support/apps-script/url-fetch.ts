/**
 * UrlFetchApp and HTTPResponse over real HTTP, answered by whatever server the test started. Google's
 * rules: a status >= 400 throws unless muteHttpExceptions; URL Fetch calls a day per user (20,000 for a
 * consumer account); 2 KB per URL; fetchAll sends its requests together (here they cost the virtual time
 * of one request) and answers in request order. Each request costs the world's fetchLatencyMs of virtual time.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { MESSAGES, ScriptException } from './errors';
import { SCOPES, type Exec } from './execution-context';
import { Facade } from './facade';
import { BlobFacade, bytesOf, signedBytes } from './utilities';

const DAY_MS = 24 * 3600 * 1000;
const MAX_URL = 2048;
const MAX_HEADERS = 100;
const MAX_PAYLOAD = 50 * 1024 * 1024;

interface Params {
  method?: string;
  headers?: Record<string, unknown>;
  contentType?: string;
  payload?: unknown;
  muteHttpExceptions?: boolean;
  followRedirects?: boolean;
}

interface Raw {
  status: number;
  headers: [string, string][];
  body: Buffer;
}

export class HttpResponseFacade extends Facade {
  readonly _type = 'HTTPResponse';
  constructor(private raw: Raw) {
    super();
  }
  getResponseCode(): number {
    return this.raw.status;
  }
  getContentText(charset?: string): string {
    return this.raw.body.toString(charset && /^iso-8859-1$/i.test(charset) ? 'latin1' : 'utf8');
  }
  getContent(): number[] {
    return signedBytes(this.raw.body);
  }
  getBlob(): BlobFacade {
    return new BlobFacade(this.raw.body, this.header('content-type') ?? 'application/octet-stream');
  }
  /** One value per header name, as the server spelled it (several values: the last). */
  getHeaders(): Record<string, string> {
    return Object.fromEntries(this.raw.headers);
  }
  /** Every value: a header sent several times (Set-Cookie) gives an array. */
  getAllHeaders(): Record<string, string | string[]> {
    const out: Record<string, string | string[]> = {};
    for (const [k, v] of this.raw.headers) {
      const had = out[k];
      out[k] = had === undefined ? v : Array.isArray(had) ? [...had, v] : [had, v];
    }
    return out;
  }
  private header(name: string): string | undefined {
    return this.raw.headers.find(([k]) => k.toLowerCase() === name)?.[1];
  }
}

function send(url: string, p: Params, redirectsLeft = 5): Promise<Raw> {
  const { body, type } = payloadOf(p);
  const headers: Record<string, string> = { 'User-Agent': 'Mozilla/5.0 (compatible; Google-Apps-Script)' };
  for (const [k, v] of Object.entries(p.headers ?? {})) if (!/^content-type$/i.test(k)) headers[k] = String(v);
  if (body) headers['Content-Type'] = type;
  if (body) headers['Content-Length'] = String(body.length);
  const method = (p.method ?? 'get').toUpperCase();
  return new Promise<Raw>((resolve, reject) => {
    const req = (url.startsWith('https:') ? httpsRequest : httpRequest)(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        const pairs: [string, string][] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) pairs.push([res.rawHeaders[i] as string, res.rawHeaders[i + 1] as string]);
        const location = res.headers.location;
        if (p.followRedirects !== false && status >= 300 && status < 400 && location && redirectsLeft > 0) {
          const next = new URL(location, url).toString();
          const again =
            status === 303 || ((status === 301 || status === 302) && method === 'POST') ? { ...p, method: 'get', payload: undefined } : p;
          send(next, again, redirectsLeft - 1).then(resolve, reject);
        } else resolve({ status, headers: pairs, body: Buffer.concat(chunks) });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A string is sent as it is; an object as a form (key=value&...); bytes or a Blob as bytes. */
function payloadOf(p: Params): { body?: Buffer; type: string } {
  const contentHeader = Object.entries(p.headers ?? {}).find(([k]) => /^content-type$/i.test(k))?.[1];
  const type = p.contentType ?? (contentHeader === undefined ? 'application/x-www-form-urlencoded' : String(contentHeader));
  const v = p.payload;
  if (v === undefined || v === null) return { type };
  if (typeof v === 'string') return { body: Buffer.from(v, 'utf8'), type };
  if (v instanceof BlobFacade) return { body: v._bytes(), type: p.contentType ?? v.getContentType() ?? type };
  if (Array.isArray(v)) return { body: bytesOf(v as number[]), type };
  const form = Object.entries(v as Record<string, unknown>)
    .map(([k, x]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(x))}`)
    .join('&');
  return { body: Buffer.from(form), type: p.contentType ?? 'application/x-www-form-urlencoded' };
}

export class UrlFetchAppService extends Facade {
  readonly _type = 'UrlFetchApp';
  constructor(private x: Exec) {
    super();
  }
  async fetch(url: string, params: Params = {}): Promise<HttpResponseFacade> {
    const [r] = await this.batch('fetch', [{ url, ...params }]);
    return r as HttpResponseFacade;
  }
  async fetchAll(requests: (string | (Params & { url: string }))[]): Promise<HttpResponseFacade[]> {
    if (!Array.isArray(requests)) throw new ScriptException(MESSAGES.signature('UrlFetchApp', 'fetchAll', [requests]));
    return this.batch(
      'fetchAll',
      requests.map((r) => (typeof r === 'string' ? { url: r } : r)),
    );
  }
  getRequest(url: string, params: Params = {}): Record<string, unknown> {
    const { body, type } = payloadOf(params);
    return {
      url,
      method: (params.method ?? 'get').toLowerCase(),
      headers: params.headers ?? {},
      contentType: type,
      payload: body?.toString() ?? '',
      followRedirects: params.followRedirects !== false,
    };
  }
  private async batch(method: string, requests: (Params & { url: string })[]): Promise<HttpResponseFacade[]> {
    this.x.require(`UrlFetchApp.${method}`, SCOPES.external);
    for (const r of requests) {
      if (typeof r.url !== 'string') throw new ScriptException(MESSAGES.signature('UrlFetchApp', method, [r.url]));
      if (r.url.length > MAX_URL) throw new ScriptException(MESSAGES.urlTooLong);
      if (!/^https?:\/\//i.test(r.url)) throw new ScriptException(`Invalid argument: ${r.url}`);
      if (Object.keys(r.headers ?? {}).length > MAX_HEADERS) throw new ScriptException(MESSAGES.tooManyHeaders);
      if ((payloadOf(r).body?.length ?? 0) > MAX_PAYLOAD) throw new ScriptException(MESSAGES.payloadTooLarge);
    }
    this.spendQuota(requests.length);
    this.x.fetches += requests.length;
    const settled = await Promise.allSettled(requests.map((r) => send(r.url, r)));
    if (requests.length) this.x.advance(this.x.world.fetchLatencyMs);
    return settled.map((s, i) => {
      const r = requests[i] as Params & { url: string };
      if (s.status === 'rejected') throw new ScriptException(MESSAGES.addressUnavailable(r.url));
      if (s.value.status >= 400 && !r.muteHttpExceptions)
        throw new ScriptException(MESSAGES.requestFailed(new URL(r.url).origin, s.value.status, s.value.body.toString('utf8')));
      return new HttpResponseFacade(s.value);
    });
  }
  /** Calls a day per user: the window opens with the user's first call and lasts 24 hours. */
  private spendQuota(n: number): void {
    const counts = this.x.world.fetchCounts;
    const now = this.x.now();
    let c = counts.get(this.x.user);
    if (!c || now - c.since >= DAY_MS) counts.set(this.x.user, (c = { since: now, count: 0 }));
    if (c.count + n > this.x.world.urlFetchDailyQuota) throw new ScriptException(MESSAGES.urlFetchQuota);
    c.count += n;
  }
}
