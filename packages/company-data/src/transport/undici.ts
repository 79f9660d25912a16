import { StringDecoder } from 'node:string_decoder';
import { Pool, type Dispatcher } from 'undici';
import {
  TransportError,
  type Transport,
  type TransportErrorKind,
  type TransportRequest,
  type TransportResponse,
} from '@company-data/core/transport';
import { DEFAULT_MAX_IN_FLIGHT } from '@company-data/core/bulk-lookup';
import { DeadlineTimer, type Deadline } from './deadlines';

export interface UndiciTransportOptions {
  /** Time to open a connection (TCP and TLS), ms. Default 10 000. */
  connectTimeoutMs?: number;
  /** Time from sending to receiving the response headers, ms. Default 30 000. */
  headersTimeoutMs?: number;
  /** Longest pause between two body chunks, ms. Default 30 000. */
  bodyTimeoutMs?: number;
  /** Overall deadline per request when the request sets none, ms. Default 60 000. */
  deadlineMs?: number;
  /**
   * Connections per origin. Default 32: as many as the lookup engine keeps in flight; with a round trip
   * longer than the rate limit's window, more than 10 requests are in flight at once.
   */
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

/** Response headers as the Transport contract has them: lower-case names (undici's), repeats joined. */
function flatHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k in headers) {
    const v = headers[k];
    if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

/**
 * One request on undici's dispatch interface: collects the body chunks itself. pool.request() would
 * build a Readable stream, an async resource and (for the deadline) an AbortSignal listener per call,
 * which on a loopback call cost more than everything else the client does (measured: see
 * docs/performance.md). Settles once: with the answer, undici's error, or the overall deadline, which
 * aborts the request as soon as undici has handed it a connection.
 */
class CollectingRequest implements Dispatcher.DispatchHandler, Deadline {
  private controller: Dispatcher.DispatchController | undefined;
  private status = 0;
  private headers: Record<string, string> = {};
  /** A body of one chunk (most answers) is decoded at the end, as it is. */
  private first: Buffer | undefined;
  /**
   * A longer body is decoded as it arrives: holding the bytes until the end kept them, their concatenation and
   * the text at once (a whole-sheet read of 100,000 rows is some 25 MB of JSON; measured in docs/performance.md).
   */
  private decoder: StringDecoder | undefined;
  private readonly parts: string[] = [];
  private settled = false;
  readonly promise: Promise<TransportResponse>;
  private resolve!: (r: TransportResponse) => void;
  private reject!: (e: TransportError) => void;

  constructor(
    readonly at: number,
    private readonly deadlines: DeadlineTimer,
  ) {
    this.promise = new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    deadlines.add(this);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    // Called again when undici retries a pipelined request; a request past its deadline is not sent.
    this.controller = controller;
    if (this.settled) controller.abort(new Error('the overall request deadline ran out'));
  }

  onResponseStart(_c: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    if (statusCode < 200) return; // 1xx informational: the real answer follows
    this.status = statusCode;
    this.headers = flatHeaders(headers);
  }

  onResponseData(_c: Dispatcher.DispatchController, chunk: Buffer): void {
    if (!this.decoder) {
      if (!this.first) {
        this.first = chunk;
        return;
      }
      this.decoder = new StringDecoder('utf8');
      this.parts.push(this.decoder.write(this.first));
      this.first = undefined;
    }
    this.parts.push(this.decoder.write(chunk));
  }

  onResponseEnd(): void {
    if (this.finish()) {
      let body = this.first?.toString('utf8') ?? '';
      if (this.decoder) {
        this.parts.push(this.decoder.end());
        body = this.parts.join('');
        this.parts.length = 0;
      }
      this.resolve({ status: this.status, headers: this.headers, body });
    }
  }

  onResponseError(_c: Dispatcher.DispatchController | undefined, error: Error): void {
    if (this.finish()) this.reject(toTransportError(error, false));
  }

  /** The overall deadline ran out (called by the DeadlineTimer). */
  expire(): void {
    if (!this.finish()) return;
    this.reject(toTransportError(undefined, true));
    this.controller?.abort(new Error('the overall request deadline ran out'));
  }

  private finish(): boolean {
    if (this.settled) return false;
    this.settled = true;
    this.deadlines.remove(this);
    return true;
  }
}

/**
 * Default transport of the library and the CLI: one undici Pool per origin, so connections are kept
 * alive and reused across calls. Per-phase timeouts (connect, headers, body) are the Pool's; the overall
 * deadline per request runs on one shared timer (DeadlineTimer).
 * It never reads or logs request headers (they carry the API key).
 */
export class UndiciTransport implements Transport {
  private readonly pools = new Map<string, Pool>();
  private readonly opts: Required<UndiciTransportOptions>;
  private readonly deadlines = new DeadlineTimer();
  private closed = false;

  constructor(opts: UndiciTransportOptions = {}) {
    this.opts = {
      connectTimeoutMs: opts.connectTimeoutMs ?? 10_000,
      headersTimeoutMs: opts.headersTimeoutMs ?? 30_000,
      bodyTimeoutMs: opts.bodyTimeoutMs ?? 30_000,
      deadlineMs: opts.deadlineMs ?? 60_000,
      connections: opts.connections ?? DEFAULT_MAX_IN_FLIGHT,
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
    const pool = this.pool(url.origin);
    const r = new CollectingRequest(performance.now() + (req.timeoutMs ?? this.opts.deadlineMs), this.deadlines);
    // dispatch() reports its own errors (closed pool, bad options) through onResponseError.
    pool.dispatch({ method: req.method, path: url.pathname + url.search, headers: req.headers, body: req.body }, r);
    return r.promise;
  }

  async close(): Promise<void> {
    this.closed = true;
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((p) => p.close()));
    this.deadlines.stop();
  }
}
