/**
 * A small local HTTP service answering POST /companies/lookup like the spec (envelope, order kept,
 * 10 requests per second with 429 + Retry-After), counting billed queries. Used to exercise the enrich
 * engine on cases the sandbox data does not pin down (VAT groups, chosen no-match codes).
 */
import { createServer } from 'node:http';
import { readBody } from '../../../support/http-server';
import type { AddressInfo } from 'node:net';
import { classifyLookupQuery } from '@company-data/core/validation';

export interface LookupServer {
  url: string;
  apiKey: string;
  billed: number;
  requests: number;
  /** Queries as received, in order. */
  received: string[];
  /** Registry codes that find nothing. */
  unknown: Set<string>;
  /** VAT number → holders now. */
  vatHolders: Map<string, number>;
  /** Called with each billed request's queries before it is answered: where a test acts mid-run. */
  onLookup?: (queries: string[]) => void;
  /** While set, billed requests wait for it before they are answered: where a test keeps a run going. */
  hold?: Promise<void>;
  close(): Promise<void>;
}

function company(code: string, name = `Company ${code} OÜ`) {
  return {
    registry_code: code,
    name,
    legal_form: { name: 'osaühing', label: 'Private limited company' },
    status: { code: 'R', label: 'Registered' },
    registered_on: '2015-01-01',
    deleted_on: null,
    vat_number: `EE10${code.slice(1)}`,
    address: { full: `Tallinn ${code}`, postal_code: '10111' },
    url: `https://example.test/${code}`,
  };
}

export async function startLookupServer(): Promise<LookupServer> {
  const state: Omit<LookupServer, 'url' | 'close'> = {
    apiKey: 'test-key',
    billed: 0,
    requests: 0,
    received: [],
    unknown: new Set(),
    vatHolders: new Map(),
  };
  const stamps: number[] = [];
  const server = createServer(async (req, res) => {
    const raw = await readBody(req);
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) =>
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
    if (req.headers['x-api-key'] !== state.apiKey)
      return send(401, { success: false, error: { code: 'invalid_api_key', message: 'bad key' }, meta: { request_id: 'r' } });
    const now = Date.now();
    while (stamps.length && stamps[0]! <= now - 1000) stamps.shift();
    if (stamps.length >= 10)
      return send(
        429,
        { success: false, error: { code: 'rate_limited', message: 'slow down' }, meta: { request_id: 'r' } },
        { 'retry-after': '1' },
      );
    stamps.push(now);
    if (req.method !== 'POST' || !req.url?.startsWith('/companies/lookup'))
      return send(404, { success: false, error: { code: 'not_found', message: 'no' }, meta: { request_id: 'r' } });
    const body = JSON.parse(raw.toString()) as { queries: string[] };
    state.requests++;
    state.billed += body.queries.length;
    state.received.push(...body.queries);
    state.onLookup?.(body.queries);
    if (state.hold) await state.hold;
    const data = body.queries.map((q) => {
      const c = classifyLookupQuery(q);
      if (c.type === 'registry_code')
        return { query: q, type: c.type, matches: state.unknown.has(c.normalised) ? [] : [company(c.normalised)] };
      if (c.type === 'vat_number') {
        const holders = state.vatHolders.get(c.normalised) ?? 1;
        return { query: q, type: c.type, matches: [company(`1${c.normalised.slice(4, 11)}`)], vat_holders: holders };
      }
      if (c.skipped) return { query: q, type: c.type, matches: [], skipped: 'query_too_short' };
      return { query: q, type: c.type, matches: /nomatch/i.test(q) ? [] : [company('10000000', q)] };
    });
    send(200, {
      success: true,
      data,
      meta: { request_id: `req-${state.requests}`, queries: data.length, matched: data.filter((d) => d.matches.length).length },
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const out = state as LookupServer;
  out.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  out.close = () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r())));
  return out;
}
