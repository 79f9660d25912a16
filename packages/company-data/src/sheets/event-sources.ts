import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { WebhookEvent } from '@company-data/core/schemas/events';
import { storeInBatches } from '@company-data/core/sheets/events/batches';
import { checkWebhookHeaders, EVENT_ID_HEADER, SignatureVerificationError, verifyWebhook } from '@company-data/core/webhooks';
import { lingerThenClose, readCappedBody } from '../transport/capped-body';
import { systemClock } from '../transport/clock';
import type { EventSheetWriter } from './events-to-rows';

/** An event's id for a log line; a malformed event may carry none, or something else in its place. */
const idText = (id: unknown): string => (typeof id === 'string' ? id : 'an event without an id');

/** What polling needs from the client (CoreClient satisfies it). */
export interface EventsClient {
  iterateEvents(input?: { after?: string }): AsyncIterable<unknown>;
  iterateMatches(input: { search_id: string; after?: string }): AsyncIterable<unknown>;
}

export interface PollOptions {
  client: EventsClient;
  writer: EventSheetWriter;
  /** Poll the matches of this saved search instead of monitoring events. */
  searchId?: string;
  /** Stop when caught up instead of polling again after intervalMs. */
  once?: boolean;
  intervalMs?: number;
  signal?: AbortSignal;
  /** Default: the system clock's; the wait between polls ends when `signal` aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  onEvent?: (id: string, outcome: string) => void;
}

/**
 * Reads events after the cursor kept in the ledger, stores them in batches of EVENTS_PER_BATCH (each
 * batch exactly once, one Google append) and only then moves the cursor past the batch, so a restart
 * resumes where the sheet is. A batch is stored once that many have been read, or when the service
 * has no more.
 */
export async function pollEventsToSheet(opts: PollOptions): Promise<void> {
  const sleep = opts.sleep ?? systemClock.sleep;
  const ledger = opts.writer.ledger;
  const store = async (batch: WebhookEvent[]): Promise<void> => {
    const outcomes = await opts.writer.acceptMany(batch);
    // An event without a usable id is no place to resume from: the last one of the batch with one is.
    const last = batch.findLast((_, i) => outcomes[i] !== 'refused');
    if (last) ledger.setCursor(last.id);
    batch.forEach((ev, i) => opts.onEvent?.(idText(ev.id), outcomes[i]!));
  };
  for (;;) {
    const after = ledger.cursor;
    const source = opts.searchId
      ? opts.client.iterateMatches({ search_id: opts.searchId, ...(after ? { after } : {}) })
      : opts.client.iterateEvents(after ? { after } : {});
    if ((await storeInBatches(source as AsyncIterable<WebhookEvent>, store, opts.signal)) === 'stopped') return;
    if (opts.once || opts.signal?.aborted) return;
    await sleep(opts.intervalMs ?? 60_000, opts.signal);
    if (opts.signal?.aborted) return;
  }
}

/**
 * Largest delivery body accepted. The spec caps a search.matches event at 500 companies (the largest
 * event there is). A company there is 11 fields: about 180 bytes of keys and punctuation plus its
 * texts; a long name (250 characters) and address (400) with the rest make some 750 characters, which
 * JSON may send escaped as \uXXXX, 6 bytes each: 4.7 KB at the very worst, 8 KiB with room to spare.
 * 500 x 8 KiB = 4 MiB; a real day of 500 matches is about 300 KB. A body past this is refused with
 * 413 while it is being read, so a forged 300 MB delivery costs no more memory than a real one.
 */
export const MAX_WEBHOOK_BODY_BYTES = 500 * 8 * 1024;

export interface WebhookReceiverOptions {
  writer: EventSheetWriter;
  /** Signing secret(s); several while rotating. */
  secrets: readonly string[];
  port?: number;
  host?: string;
  /** `id` is the event id, or for a refused delivery what it claimed to be (untrusted: quote it when logging). */
  onEvent?: (id: string, outcome: string) => void;
  /** Signature age window, seconds (default 300 as the spec says). */
  toleranceSeconds?: number;
  /** Body cap in bytes (default MAX_WEBHOOK_BODY_BYTES). */
  maxBodyBytes?: number;
}

/**
 * Receives signed deliveries. Answers 2xx only after the rows are in the sheet and the ledger says so;
 * a redelivered event is answered 200 without a second row. Bad signatures get 401, failures 500
 * (the service then retries on its schedule). Headers are checked before the body is read, and the
 * body is read up to the cap only.
 */
export async function startWebhookReceiver(opts: WebhookReceiverOptions): Promise<{ server: Server; url: string; close(): Promise<void> }> {
  const max = opts.maxBodyBytes ?? MAX_WEBHOOK_BODY_BYTES;
  const refuse = (req: IncomingMessage, res: ServerResponse, status: number, reason: string) => {
    const id = req.headers[EVENT_ID_HEADER.toLowerCase()];
    // Said aloud: with a wrong secret every delivery is refused, and the sheet would stay empty without a word.
    opts.onEvent?.(typeof id === 'string' ? id : 'a delivery', `rejected (${reason})${status === 401 ? '; check the signing secret' : ''}`);
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: reason }));
    lingerThenClose(req);
  };
  const server = createServer(async (req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST' }).end();
      return lingerThenClose(req);
    }
    const declared = Number(req.headers['content-length']);
    if (declared > max) return refuse(req, res, 413, 'body_too_large');
    try {
      // The headers' form before the body is read: a forged delivery without them costs no body.
      checkWebhookHeaders(req.headers);
    } catch (e) {
      return refuse(req, res, 401, e instanceof SignatureVerificationError ? e.reason : 'invalid');
    }
    const rawBody = await readCappedBody(req, max).catch(() => undefined);
    if (rawBody === undefined) return req.destroyed ? undefined : refuse(req, res, 413, 'body_too_large');
    let event: WebhookEvent;
    try {
      event = verifyWebhook({
        rawBody,
        headers: req.headers,
        secrets: opts.secrets,
        ...(opts.toleranceSeconds ? { toleranceSeconds: opts.toleranceSeconds } : {}),
      });
    } catch (e) {
      return refuse(req, res, 401, e instanceof SignatureVerificationError ? e.reason : 'invalid');
    }
    try {
      const outcome = await opts.writer.accept(event);
      opts.onEvent?.(idText(event.id), outcome);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ received: event.id, outcome }));
    } catch (e) {
      opts.onEvent?.(idText(event.id), `failed: ${(e as Error).message}`);
      res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'not_stored' }));
    }
  });
  // Slow or silent clients may not hold the receiver: a delivery is small and comes at once.
  server.headersTimeout = 10_000;
  server.requestTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const addr = server.address() as AddressInfo;
  return {
    server,
    url: `http://${addr.address}:${addr.port}/`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
