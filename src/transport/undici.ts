import { Pool } from 'undici';
import { TransportError, type Transport, type TransportErrorKind, type TransportRequest, type TransportResponse } from '../core/transport';

export interface UndiciTransportOptions {
  /** Time to open a connection (TCP and TLS), ms. Default 10 000. */
  connectTimeoutMs?: number;
  /** Time from sending to receiving the response headers, ms. Default 30 000. */
  headersTimeoutMs?: number;
  /** Longest pause between two body chunks, ms. Default 30 000. */
  bodyTimeoutMs?: number;
  /** Overall deadline per request when the request sets none, ms. Default 60 000. */
  deadlineMs?: number;
  /** Connections per origin. Default 10 (the service allows 10 requests per second per key). */
  connections?: number;
  /** How long an idle kept-alive connection stays open, ms. Default 4 000 (below common 5 s server defaults). */
  keepAliveTimeoutMs?: number;
}

const CODE_KINDS: Record<string, TransportErrorKind> = {
  ECONNREFUSED: 'refused',
  ECONNRESET: 'reset',
  EPIPE: 'reset',
  ECONNABORTED: 'reset',
  UND_ERR_SOCKET: 'reset',
  ETIMEDOUT: 'timeout',
  UND_ERR_CONNECT_TIMEOUT: 'timeout',
  UND_ERR_HEADERS_TIMEOUT: 'timeout',
  UND_ERR_BODY_TIMEOUT: 'timeout',
  ENOTFOUND: 'dns',
  EAI_AGAIN: 'dns',
};

function codeOf(e: unknown): string | undefined {
  const err = e as { code?: unknown; cause?: unknown; errors?: unknown[] } | undefined;
  if (!err || typeof err !== 'object') return undefined;
  if (typeof err.code === 'string' && err.code in CODE_KINDS) return err.code;
  // Happy-eyeballs connects fail with an AggregateError; a wrapped error keeps the cause.
  for (const inner of [...(Array.isArray(err.errors) ? err.errors : []), err.cause]) {
    const c = codeOf(inner);
    if (c) return c;
  }
  return typeof err.code === 'string' ? err.code : undefined;
}

/** Maps an undici or socket error to a TransportError kind. */
export function toTransportError(e: unknown, deadlineHit: boolean): TransportError {
  const message = e instanceof Error && e.message ? e.message : String(e);
  if (deadlineHit) return new TransportError('timeout', 'the overall request deadline ran out', 'DEADLINE');
  const code = codeOf(e);
  return new TransportError((code && CODE_KINDS[code]) || 'other', message, code);
}

/**
 * Default transport of the library and the CLI: one undici Pool per origin, so connections are kept
 * alive and reused across calls. Per-phase timeouts (connect, headers, body) plus one overall deadline.
 * It never reads or logs request headers (they carry the API key).
 */
export class UndiciTransport implements Transport {
  private readonly pools = new Map<string, Pool>();
  private readonly opts: Required<UndiciTransportOptions>;
  private closed = false;

  constructor(opts: UndiciTransportOptions = {}) {
    this.opts = {
      connectTimeoutMs: opts.connectTimeoutMs ?? 10_000,
      headersTimeoutMs: opts.headersTimeoutMs ?? 30_000,
      bodyTimeoutMs: opts.bodyTimeoutMs ?? 30_000,
      deadlineMs: opts.deadlineMs ?? 60_000,
      connections: opts.connections ?? 10,
      keepAliveTimeoutMs: opts.keepAliveTimeoutMs ?? 4_000,
    };
  }

  private pool(origin: string): Pool {
    let p = this.pools.get(origin);
    if (!p) {
      p = new Pool(origin, {
        connections: this.opts.connections,
        connectTimeout: this.opts.connectTimeoutMs,
        headersTimeout: this.opts.headersTimeoutMs,
        bodyTimeout: this.opts.bodyTimeoutMs,
        keepAliveTimeout: this.opts.keepAliveTimeoutMs,
      });
      this.pools.set(origin, p);
    }
    return p;
  }

  async request(req: TransportRequest): Promise<TransportResponse> {
    if (this.closed) throw new TransportError('other', 'the transport is closed');
    const url = new URL(req.url);
    const deadline = req.timeoutMs ?? this.opts.deadlineMs;
    const controller = new AbortController();
    let deadlineHit = false;
    const timer = setTimeout(() => {
      deadlineHit = true;
      controller.abort();
    }, deadline);
    try {
      const res = await this.pool(url.origin).request({
        method: req.method,
        path: url.pathname + url.search,
        headers: req.headers,
        body: req.body,
        signal: controller.signal,
      });
      const body = await res.body.text();
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(res.headers)) {
        if (v !== undefined) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
      }
      return { status: res.statusCode, headers, body };
    } catch (e) {
      throw toTransportError(e, deadlineHit);
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((p) => p.close()));
  }
}
