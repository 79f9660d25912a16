import type { GoogleTokenSource, SheetsClock, Transport } from '../ports';

/**
 * How the core's Google Sheets table (SheetsRestTable) is built: Sheets REST v4 over the core's
 * Transport, Google's per-minute quotas kept, 429 and 5xx retried through the core's retry rules.
 */
export interface SheetsRestTableOptions {
  spreadsheetId: string;
  /** Sheet (tab) title; the first sheet when not given. */
  sheet?: string;
  /** Sends every request; resolves for every HTTP answer (see packages/core/transport.ts). */
  transport: Transport;
  /**
   * Signs each request. Leave it out when the transport signs requests itself (n8n's authenticated
   * request helper with an OAuth2 credential): then a 401 is reported, not renewed.
   */
  tokens?: GoogleTokenSource;
  /** Quota spacing and back-off waits. */
  clock: SheetsClock;
  /** API root, default https://sheets.googleapis.com/ (a local stand-in in tests). */
  rootUrl?: string;
  /** Google's per-user write quota; calls are spaced to stay within it. Default 60 per minute. */
  writesPerMinute?: number;
  /** Google's per-user read quota, likewise. Default 60 per minute. */
  readsPerMinute?: number;
  /** Largest request body in bytes; saves and appends are split to stay under it. Default 2,000,000. */
  maxRequestBytes?: number;
  /** Attempts after a 429 or 5xx before giving up. Default 6. */
  maxRetries?: number;
  /** First back-off step; doubles per attempt, capped at 64 s (Google's advice), jittered like the client's. */
  backoffBaseMs?: number;
  /** Deadline of one request, ms (default 120,000). */
  timeoutMs?: number;
  random?: () => number;
  /**
   * Ends the retrying (n8n's Stop): once it aborts, a failed request is not sent again and a back-off under
   * way ends; the call rejects with its reason. A request's first attempt still goes out, so what was paid
   * for is saved after Stop, once, without a burst of retries.
   */
  signal?: AbortSignal;
}
