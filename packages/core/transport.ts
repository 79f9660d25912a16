import type { HttpMethod } from './operation';

/**
 * The client's only way to the network. The library uses undici (packages/company-data/src/transport/undici.ts); the n8n
 * nodes plug in n8n's HTTP helpers. A transport resolves for every HTTP answer, 4xx and 5xx included,
 * and throws TransportError only when there was no answer.
 */
export interface TransportRequest {
  method: HttpMethod;
  url: string;
  /** Request headers; may hold the API key, so a transport must never log or echo them. */
  headers: Record<string, string>;
  body?: string;
  /** Overall deadline for this request, connection to last body byte. */
  timeoutMs?: number;
}

export interface TransportResponse {
  status: number;
  /** Header names in lower case; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: string;
}

export interface Transport {
  request(req: TransportRequest): Promise<TransportResponse>;
  /** Frees pooled connections. */
  close?(): Promise<void>;
}

/**
 * Why there was no answer.
 * - refused: the connection was refused; nothing reached the server, so any request may be retried.
 * - dns: the host name did not resolve; nothing was sent either.
 * - reset: the connection broke after it was made; the server may have processed the request.
 * - timeout: connect, headers, body or overall deadline ran out; the server may have processed it.
 * - other: anything else (TLS, protocol); not retried.
 */
export type TransportErrorKind = 'refused' | 'reset' | 'timeout' | 'dns' | 'other';

export class TransportError extends Error {
  readonly kind: TransportErrorKind;
  /** The underlying system or library code, e.g. ECONNREFUSED or UND_ERR_HEADERS_TIMEOUT. */
  readonly code?: string;
  constructor(kind: TransportErrorKind, message: string, code?: string) {
    super(message);
    this.name = 'TransportError';
    this.kind = kind;
    this.code = code;
  }
}

/** Time source and sleeping, injectable so core code never touches timer globals. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  sleep(ms: number): Promise<void>;
}
