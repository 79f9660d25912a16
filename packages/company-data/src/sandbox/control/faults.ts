import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Faults injected into the next N API requests of an account, for reliability tests of clients:
 * 429 bursts with Retry-After, 5xx answers, connection resets (no answer at all) and slow answers.
 * Requests under /sandbox/ are never faulted, so a test can always reach the controls.
 */

export type FaultKind = 'rate_limited' | 'server_error' | 'reset' | 'slow';
export const faultKinds: readonly FaultKind[] = ['rate_limited', 'server_error', 'reset', 'slow'];

export interface FaultSpec {
  kind: FaultKind;
  /** Requests to fault (1-1000). */
  count: number;
  /** server_error: 500, 502, 503 or 504 (default 503). */
  status?: number;
  /** rate_limited: seconds in Retry-After (default 1). */
  retry_after?: number;
  /** slow: ms before the normal answer (default 2000). */
  delay_ms?: number;
}

interface Pending {
  spec: FaultSpec;
  remaining: number;
}

export class FaultInjector {
  private readonly queues = new Map<string, Pending[]>();
  private injectedCount = 0;

  add(account: string, spec: FaultSpec): void {
    const q = this.queues.get(account) ?? [];
    q.push({ spec, remaining: spec.count });
    this.queues.set(account, q);
  }

  clear(account: string): void {
    this.queues.delete(account);
  }

  list(account: string) {
    return (this.queues.get(account) ?? []).map((p) => ({ ...p.spec, remaining: p.remaining }));
  }

  get injected(): number {
    return this.injectedCount;
  }

  /** The fault for this request, in the order they were added; null when none is left. */
  take(account: string): FaultSpec | null {
    const q = this.queues.get(account);
    const head = q?.[0];
    if (!q || !head) return null;
    head.remaining--;
    if (head.remaining <= 0) q.shift();
    if (!q.length) this.queues.delete(account);
    this.injectedCount++;
    return head.spec;
  }
}

/**
 * Carries out a fault. Returns true when the request has been answered (or dropped); for a slow answer it
 * waits and returns false, and the caller answers normally.
 */
export async function applyFault(fault: FaultSpec, req: IncomingMessage, res: ServerResponse, requestId: string): Promise<boolean> {
  const send = (
    status: number,
    code: string,
    message: string,
    headers: Record<string, string> = {},
    extra: Record<string, unknown> = {},
  ) => {
    const body = JSON.stringify({ success: false, error: { code, message, ...extra }, meta: { request_id: requestId } });
    res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)), ...headers });
    res.end(body);
    return true;
  };
  switch (fault.kind) {
    case 'rate_limited': {
      const after = fault.retry_after ?? 1;
      return send(
        429,
        'rate_limited',
        'Too many requests; wait as Retry-After says',
        { 'Retry-After': String(after) },
        { retry_after: after },
      );
    }
    case 'server_error': {
      const status = fault.status ?? 503;
      return send(status, status === 503 ? 'service_unavailable' : 'server_error', 'Injected server error (sandbox fault)');
    }
    case 'reset':
      req.socket.destroy();
      return true;
    case 'slow':
      await new Promise((r) => setTimeout(r, fault.delay_ms ?? 2000));
      return false;
  }
}
