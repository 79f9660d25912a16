import type { Transport, TransportRequest, TransportResponse } from '@company-data/core/transport';

export interface SeenRequest extends TransportRequest {
  /** Parsed URL for convenient assertions. */
  u: URL;
  at: number;
}

/**
 * An in-process implementation of the Transport interface for client unit tests: answers come from a
 * function of the request. Transport behaviour over real sockets is tested in test/integration.
 */
export class ScriptedTransport implements Transport {
  readonly seen: SeenRequest[] = [];
  constructor(
    public answer: (req: SeenRequest, n: number) => TransportResponse | Promise<TransportResponse>,
    private readonly now: () => number = () => 0,
  ) {}
  async request(req: TransportRequest): Promise<TransportResponse> {
    const r: SeenRequest = { ...req, u: new URL(req.url), at: this.now() };
    this.seen.push(r);
    return this.answer(r, this.seen.length);
  }
}

export const ok = (data: unknown, meta: Record<string, unknown> = {}, headers: Record<string, string> = {}): TransportResponse => ({
  status: 200,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify({ success: true, data, meta: { request_id: 'req-ok', ...meta } }),
});

export const fail = (status: number, code: string, message = code, headers: Record<string, string> = {}): TransportResponse => ({
  status,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify({ success: false, error: { code, message }, meta: { request_id: `req-${status}` } }),
});
