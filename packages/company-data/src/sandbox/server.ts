import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { validationErrorFromIssues } from '@company-data/core/client';
import { inputSchema, operationId, type AnyOperation } from '@company-data/core/operation';
import { operations } from '@company-data/core/operations';
import type { Lang } from '@company-data/core/schemas/common';
import type { Dataset } from './dataset';
import { coerce } from './http/coerce';
import { lingerThenClose, readCappedBody } from '../transport/capped-body';
import { ApiError } from './http/errors';
import type { KeyInfo, KeyStore } from './http/keys';
import type { LatencyModel } from './latency';
import { KeyQuota } from './http/key-quota';
import { Router } from './http/router';
import { period } from './handlers/companies';
import { routedHandlers, type OpHandlers, type OpResult, type RoutedHandler } from './handlers/types';
import type { SandboxState } from './state';

/** What a raw route is given of a request. */
export interface RequestContext {
  key: KeyInfo | null;
  body: unknown;
  query: URLSearchParams;
  path: string;
  method: string;
}

/** A route outside the operation table (sandbox controls under /sandbox/). */
export type RawHandler = (ctx: RequestContext) => OpResult | Promise<OpResult>;

type Entry = { kind: 'op'; op: AnyOperation } | { kind: 'raw'; handler: RawHandler; auth: boolean };

export interface ServerOptions {
  ds: Dataset;
  state: SandboxState;
  keys: KeyStore;
  /** Requests per second per key; false turns the limit off. */
  rateLimit: number | false;
  /** Time source of the rate limit, ms (default performance.now). */
  rateLimitNow?: () => number;
  /** Sandbox time (ms). */
  now: () => number;
  /** Called after authentication for every non-/sandbox/ request; true = the answer was already sent (fault injection). */
  beforeOperation?: (key: KeyInfo, req: IncomingMessage, res: ServerResponse, requestId: string) => Promise<boolean>;
  /** A distant service: round trip and service time of operations (not of /sandbox/ controls). */
  latency?: LatencyModel;
}

/** One request in flight: its id, and whether the latency's first half-trip was taken (an error then takes the way back). */
interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  requestId: string;
  arrived: boolean;
}

const MAX_BODY = 2 * 1024 * 1024;

/**
 * The sandbox's HTTP front: routes derived from the operation table, request validation with the
 * operations' own parameter schemas, authentication, plans, rate limit, envelope and error body.
 * Handlers of operations and raw routes are registered by modules (read side here, write side elsewhere).
 */
export class SandboxServer {
  private router = new Router<Entry>();
  private handlers = new Map<string, RoutedHandler>();
  private prefixes: { prefix: string; accepts: (path: string) => boolean; handler: RawHandler }[] = [];
  private quota: KeyQuota | null;
  private sockets = new Set<Socket>();
  readonly http: Server;

  constructor(private readonly o: ServerOptions) {
    // Real time for the rate limit: a sped-up sandbox clock must not lift it.
    this.quota = o.rateLimit === false ? null : new KeyQuota(o.rateLimit, o.rateLimitNow ?? (() => performance.now()));
    for (const op of operations) this.router.add(op.method, op.path, { kind: 'op', op }, op);
    this.http = createServer((req, res) => void this.serve(req, res));
    this.http.on('connection', (s: Socket) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
  }

  /** Serves an operation of the table (by its id, e.g. "monitoring.createList"). */
  handle(id: string, handler: RoutedHandler): void {
    this.handlers.set(id, handler);
  }

  /** Serves every operation of a table of typed handlers. */
  handleAll(table: OpHandlers): void {
    for (const [id, h] of routedHandlers(table)) this.handle(id, h);
  }

  /** A route outside the table, e.g. GET /sandbox/fixtures. */
  route(method: string, path: string, handler: RawHandler, opts: { auth?: boolean } = {}): void {
    this.router.add(method, path, { kind: 'raw', handler, auth: opts.auth ?? true });
  }

  /** Routes a module matches itself (the write side's /sandbox/ controls); they need a key of any plan. */
  routePrefix(prefix: string, accepts: (path: string) => boolean, handler: RawHandler): void {
    this.prefixes.push({ prefix, accepts, handler });
  }

  async listen(port: number, host: string): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.http.once('error', reject);
      this.http.listen(port, host, () => resolve());
    });
    const addr = this.http.address();
    const p = typeof addr === 'object' && addr ? addr.port : port;
    return `http://${host.includes(':') ? `[${host}]` : host}:${p}`;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((r) => this.http.close(() => r()));
  }

  private send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    const text = JSON.stringify(body);
    res.writeHead(status, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': String(Buffer.byteLength(text)),
      ...headers,
    });
    res.end(text);
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const x: Exchange = { req, res, requestId: randomUUID(), arrived: false };
    try {
      await this.dispatch(x);
    } catch (err) {
      await this.fail(x, err);
    }
  }

  private async dispatch(x: Exchange): Promise<void> {
    const url = new URL(x.req.url ?? '/', 'http://sandbox');
    const method = (x.req.method ?? 'GET').toUpperCase();
    const bodyText = await readBody(x.req);
    const found = this.router.match(method, url.pathname);
    if (!found) return this.servePrefixed(x, url, method, bodyText);
    const entry = found.route.handler;
    if (entry.kind === 'op' && this.o.latency) {
      await this.o.latency.halfTrip();
      x.arrived = true;
    }
    const key = this.admit(x.req, entry.kind === 'op' ? !entry.op.noAuth : entry.auth);
    const ctx: RequestContext = { key, body: parseJson(bodyText), query: url.searchParams, path: url.pathname, method };
    if (entry.kind === 'raw') return this.answer(x.res, await entry.handler(ctx), x.requestId);
    await this.serveOperation(x, entry.op, found.params, ctx);
  }

  /** A route no table entry matches: a module's prefix route, else 405 (other methods exist there) or 404. */
  private async servePrefixed(x: Exchange, url: URL, method: string, bodyText: string): Promise<void> {
    const px = this.prefixes.find((p) => url.pathname.startsWith(p.prefix) && p.accepts(url.pathname));
    if (!px) {
      const allowed = this.router.methodsAt(url.pathname);
      if (allowed.length)
        throw new ApiError(405, 'method_not_allowed', `${url.pathname} accepts ${allowed.join(', ')}, not ${method}`, undefined, {
          Allow: allowed.join(', '),
        });
      throw new ApiError(404, 'not_found', `No operation at ${method} ${url.pathname}`);
    }
    const key = this.authenticate(x.req);
    const r = await px.handler({ key, body: parseJson(bodyText), query: url.searchParams, path: url.pathname, method });
    this.o.state.changed();
    this.answer(x.res, r, x.requestId);
  }

  /** The caller's key when the route needs one, counted in its usage and held to the rate limit. */
  private admit(req: IncomingMessage, needsKey: boolean): KeyInfo | null {
    const key = needsKey ? this.authenticate(req) : null;
    if (key) {
      this.o.state.usage(key.id, period(this.o.now())).requests++;
      const wait = this.quota?.take(key.id);
      if (wait)
        throw new ApiError(429, 'rate_limited', `More than ${this.o.rateLimit} requests per second; retry after ${wait} s`, undefined, {
          'Retry-After': String(wait),
        });
    }
    return key;
  }

  private async serveOperation(x: Exchange, op: AnyOperation, pathParams: Record<string, string>, ctx: RequestContext): Promise<void> {
    const { key, method } = ctx;
    if (
      key &&
      !ctx.path.startsWith('/sandbox/') &&
      this.o.beforeOperation &&
      (await this.o.beforeOperation(key, x.req, x.res, x.requestId))
    )
      return;
    if (op.plan === 'api' && key?.plan !== 'api')
      throw new ApiError(403, 'plan_required', `${op.action} needs the API plan; this key is on the basic plan`);
    const params = this.validate(op, pathParams, ctx.query, ctx.body);
    const handler = this.handlers.get(operationId(op));
    if (!handler) throw new ApiError(501, 'not_implemented', `${method} ${op.path} is not served by this sandbox`);
    const r = await handler({
      params,
      lang: ((params as { lang?: Lang }).lang ?? 'et') as Lang,
      key,
      ds: this.o.ds,
      state: this.o.state,
      now: this.o.now,
    });
    if (method !== 'GET') this.o.state.changed();
    if (x.arrived) {
      x.arrived = false;
      await this.o.latency!.answer(op.bulk ? ((params as Record<string, unknown[]>)[op.bulk.param]?.length ?? 1) : 1);
    }
    this.answer(x.res, r, x.requestId);
  }

  /** The error body; a 500 for anything but an ApiError (logged); a connection cut when headers already left. */
  private async fail(x: Exchange, err: unknown): Promise<void> {
    const e = err instanceof ApiError ? err : new ApiError(500, 'server_error', 'The sandbox failed to answer; see its log');
    if (!(err instanceof ApiError)) console.error('sandbox error', err);
    if (x.arrived) await this.o.latency!.halfTrip();
    if (x.res.headersSent) return void x.res.destroy();
    if (e.status === 413) lingerThenClose(x.req);
    this.send(x.res, e.status, errorBody(e, x.requestId), e.headers ?? {});
  }

  private answer(res: ServerResponse, r: OpResult, requestId: string): void {
    if (r.raw) return this.send(res, r.status ?? 200, r.data);
    this.send(res, r.status ?? 200, { success: true, data: r.data, meta: { request_id: requestId, ...r.meta } });
  }

  private authenticate(req: IncomingMessage): KeyInfo {
    const header = req.headers['x-api-key'];
    const bearer = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const key = (Array.isArray(header) ? header[0] : header)?.trim() || bearer?.trim();
    if (!key) throw new ApiError(401, 'api_key_required', 'Send an API key in the X-API-Key header or as Authorization: Bearer <key>');
    const info = this.o.keys.lookup(key);
    if (!info) throw new ApiError(401, 'invalid_api_key', 'The API key is unknown or revoked');
    return info;
  }

  private validate(op: AnyOperation, pathParams: Record<string, string>, query: URLSearchParams, body: unknown): unknown {
    const input: Record<string, unknown> = {};
    for (const [name, spec] of Object.entries(op.params)) {
      if (spec.in === 'path') input[name] = coerce(spec.schema, [pathParams[name] ?? '']);
    }
    for (const name of new Set(query.keys())) {
      const spec = op.params[name];
      if (spec && spec.in !== 'query') throw new ApiError(400, 'invalid_parameter', `${name} must be sent in the ${spec.in}`, name);
      if (!spec) throw new ApiError(400, 'invalid_parameter', `${name} is not a parameter of ${op.method} ${op.path}`, name);
      input[name] = coerce(spec.schema, query.getAll(name));
    }
    const hasBodyParams = Object.values(op.params).some((p) => p.in === 'body');
    if (hasBodyParams) {
      if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body))
        throw new ApiError(400, 'invalid_parameter', 'body must be a JSON object', 'body');
      for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
        const spec = op.params[name];
        if (!spec || spec.in !== 'body') throw new ApiError(400, 'invalid_parameter', `${name} is not a field of the request body`, name);
        input[name] = value;
      }
    }
    const parsed = inputSchema(op).safeParse(input);
    if (!parsed.success) {
      // The client's own reading of the same schema: one wording for a rule on both sides.
      const e = validationErrorFromIssues(parsed.error.issues, input);
      throw new ApiError(400, 'invalid_parameter', e.message, e.field.split('.')[0] || 'body');
    }
    return parsed.data;
  }
}

function errorBody(e: ApiError, requestId: string): unknown {
  const retryAfter = e.headers?.['Retry-After'];
  return {
    success: false,
    error: {
      code: e.code,
      message: e.message,
      ...(e.param ? { param: e.param } : {}),
      ...(retryAfter ? { retry_after: Number(retryAfter) } : {}),
    },
    meta: { request_id: requestId },
  };
}

function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError(400, 'invalid_json', 'The request body is not valid JSON', 'body');
  }
}

/** The body as text, up to MAX_BODY; past it the answer is 413 (sent, then the rest is drained: lingerThenClose). */
async function readBody(req: IncomingMessage): Promise<string> {
  const body = await readCappedBody(req, MAX_BODY);
  if (!body) throw new ApiError(413, 'body_too_large', `The request body is larger than ${MAX_BODY / 1024 / 1024} MB`, 'body');
  return body.toString('utf8');
}
