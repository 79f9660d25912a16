/**
 * A proxy in front of the Sheets stand-in for two faults the stand-in does not make on its own:
 * Google refusing a value it has no rule for (400 INVALID_ARGUMENT, nothing applied), and a write that
 * Google applied whose answer never reaches the writer (the writer killed while it waits). Requests
 * go on over real HTTP; the stand-in stays the one model of Google.
 */
import { createServer } from 'node:http';
import { readBody } from './http-server';
import type { AddressInfo } from 'node:net';

export interface ProxiedRequest {
  method: string;
  /** Path and query, decoded: /v4/spreadsheets/id/values/'Events'!A1:append?valueInputOption=RAW… */
  path: string;
  body: string;
}

/** pass: forwarded and answered; refuse: answered 400 and not forwarded; hold: forwarded (applied), never answered. */
export type ProxyAction = 'pass' | 'refuse' | 'hold';

export interface SheetsProxy {
  url: string;
  /** Requests refused or held so far. */
  readonly refused: ProxiedRequest[];
  readonly held: ProxiedRequest[];
  close(): Promise<void>;
}

/** `target`: the stand-in's url. `decide` is asked for every request; `onHeld` runs once a held write was applied. */
export async function startSheetsProxy(
  target: string,
  decide: (r: ProxiedRequest) => ProxyAction,
  onHeld?: (r: ProxiedRequest) => void,
): Promise<SheetsProxy> {
  const refused: ProxiedRequest[] = [];
  const held: ProxiedRequest[] = [];
  const server = createServer(async (req, res) => {
    const r: ProxiedRequest = {
      method: req.method ?? 'GET',
      path: decodeURIComponent(req.url ?? '/'),
      body: (await readBody(req)).toString('utf8'),
    };
    const action = decide(r);
    if (action === 'refuse') {
      refused.push(r);
      res.writeHead(400, { 'content-type': 'application/json; charset=UTF-8' }).end(
        JSON.stringify({
          error: { code: 400, message: 'Invalid values[1][5]: the value was refused.', status: 'INVALID_ARGUMENT' },
        }),
      );
      return;
    }
    const headers: Record<string, string> = {};
    for (const k of ['authorization', 'content-type']) if (typeof req.headers[k] === 'string') headers[k] = req.headers[k];
    const answer = await fetch(new URL(req.url ?? '/', target), {
      method: r.method,
      headers,
      ...(r.method === 'GET' || r.method === 'HEAD' ? {} : { body: r.body }),
    });
    const text = await answer.text();
    if (action === 'hold') {
      held.push(r);
      onHeld?.(r);
      return; // applied by the stand-in; the writer never hears of it
    }
    res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' }).end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    refused,
    held,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
