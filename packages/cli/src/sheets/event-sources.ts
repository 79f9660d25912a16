import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { WebhookEvent } from '../../../../src/core/schemas/events';
import { SignatureVerificationError, verifyWebhook } from '../../../../src/webhooks';
import type { EventSheetWriter } from './events-to-rows';

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
  sleep?: (ms: number) => Promise<void>;
  onEvent?: (id: string, outcome: string) => void;
}

/**
 * Reads events after the cursor kept in the ledger, stores each (exactly once) and only then moves the
 * cursor, so a restart resumes where the sheet is.
 */
export async function pollEventsToSheet(opts: PollOptions): Promise<void> {
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const ledger = opts.writer.ledger;
  for (;;) {
    const after = ledger.cursor;
    const source = opts.searchId
      ? opts.client.iterateMatches({ search_id: opts.searchId, ...(after ? { after } : {}) })
      : opts.client.iterateEvents(after ? { after } : {});
    for await (const raw of source) {
      const ev = raw as WebhookEvent;
      const outcome = await opts.writer.accept(ev);
      ledger.setCursor(ev.id);
      opts.onEvent?.(ev.id, outcome);
      if (opts.signal?.aborted) return;
    }
    if (opts.once || opts.signal?.aborted) return;
    await sleep(opts.intervalMs ?? 60_000);
    if (opts.signal?.aborted) return;
  }
}

export interface WebhookReceiverOptions {
  writer: EventSheetWriter;
  /** Signing secret(s); several while rotating. */
  secrets: readonly string[];
  port?: number;
  host?: string;
  onEvent?: (id: string, outcome: string) => void;
  /** Signature age window, seconds (default 300 as the spec says). */
  toleranceSeconds?: number;
}

/**
 * Receives signed deliveries. Answers 2xx only after the rows are in the sheet and the ledger says so;
 * a redelivered event is answered 200 without a second row. Bad signatures get 401, failures 500
 * (the service then retries on its schedule).
 */
export async function startWebhookReceiver(opts: WebhookReceiverOptions): Promise<{ server: Server; url: string; close(): Promise<void> }> {
  const server = createServer(async (req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const rawBody = Buffer.concat(chunks);
    let event: WebhookEvent;
    try {
      event = verifyWebhook({ rawBody, headers: req.headers, secrets: opts.secrets, ...(opts.toleranceSeconds ? { toleranceSeconds: opts.toleranceSeconds } : {}) });
    } catch (e) {
      const reason = e instanceof SignatureVerificationError ? e.reason : 'invalid';
      // Said aloud: with a wrong secret every delivery is refused, and the sheet would stay empty without a word.
      const id = req.headers['x-service-event-id'];
      opts.onEvent?.(typeof id === 'string' ? id : 'a delivery', `rejected (${reason}); check the signing secret`);
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: reason }));
      return;
    }
    try {
      const outcome = await opts.writer.accept(event);
      opts.onEvent?.(event.id, outcome);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ received: event.id, outcome }));
    } catch (e) {
      opts.onEvent?.(event.id, `failed: ${(e as Error).message}`);
      res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'not_stored' }));
    }
  });
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
