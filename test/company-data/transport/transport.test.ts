import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CompanyDataClient,
  ConnectionError,
  ServerError,
  TimeoutError,
  TransportError,
  UndiciTransport,
} from '../../../packages/company-data/src';
import { toTransportError } from '../../../packages/company-data/src/transport/undici';
import { DeadlineTimer } from '../../../packages/company-data/src/transport/deadlines';
import { json, startTestServer, type TestServer } from '../../support/http-server';

const KEY = 'sk_it_Vh3Lx9Qw2Rt5Yp8Z';
const RC = '12417834';
const servers: TestServer[] = [];
const transports: UndiciTransport[] = [];
const clients: CompanyDataClient[] = [];

afterEach(async () => {
  await Promise.all([...clients.splice(0).map((c) => c.close()), ...transports.splice(0).map((t) => t.close())]);
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function server(...args: Parameters<typeof startTestServer>) {
  const s = await startTestServer(...args);
  servers.push(s);
  return s;
}
function transport(opts: ConstructorParameters<typeof UndiciTransport>[0] = {}) {
  const t = new UndiciTransport(opts);
  transports.push(t);
  return t;
}
function client(baseUrl: string, over: Partial<ConstructorParameters<typeof CompanyDataClient>[0]> = {}) {
  const c = new CompanyDataClient({ apiKey: KEY, baseUrl, retry: { baseDelayMs: 20, maxDelayMs: 100 }, ...over });
  clients.push(c);
  return c;
}
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}
async function transportError(p: Promise<unknown>): Promise<TransportError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(TransportError);
  return e as TransportError;
}
const envelope = (data: unknown) => ({ success: true, data, meta: { request_id: 'r-1' } });
const get = (url: string) => ({ method: 'GET' as const, url, headers: { accept: 'application/json' } });

describe('UndiciTransport over a real socket', () => {
  it('keeps the connection alive across requests', async () => {
    const s = await server((_q, res) => json(res, 200, { ok: true }));
    const t = transport();
    for (let i = 0; i < 20; i++) expect((await t.request(get(`${s.url}/x?i=${i}`))).status).toBe(200);
    // Measured: undici's pool alternates between two sockets for back-to-back calls; both are reused.
    expect(s.requests).toHaveLength(20);
    expect(s.connections).toBeLessThanOrEqual(2);
  });

  it('resolves 4xx and 5xx answers with lower-case headers and the body', async () => {
    const s = await server((_q, res) => json(res, 503, { error: 'down' }, { 'Retry-After': '7', 'X-Request-Id': 'abc' }));
    const r = await transport().request(get(`${s.url}/y`));
    expect(r.status).toBe(503);
    expect(r.headers['retry-after']).toBe('7');
    expect(r.headers['x-request-id']).toBe('abc');
    expect(JSON.parse(r.body)).toEqual({ error: 'down' });
  });

  it('decodes a UTF-8 body whose characters are split across chunks, and a large one whole', async () => {
    const text = JSON.stringify({ name: 'Šokolaadi- ja Žurnaalikeskus OÜ 🍫', county: 'Võru maakond' });
    const bytes = Buffer.from(text, 'utf8');
    const split = await server((_q, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      // One byte a chunk, flushed apart: every multi-byte character arrives in pieces.
      let i = 0;
      const next = () => (i < bytes.length ? res.write(bytes.subarray(i, ++i), () => setImmediate(next)) : res.end());
      next();
    });
    expect((await transport().request(get(`${split.url}/split`))).body).toBe(text);
    const big = 'ä€'.repeat(2_000_000);
    const large = await server((_q, res) => {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(big);
    });
    expect((await transport().request(get(`${large.url}/large`))).body === big).toBe(true);
  });

  it('sends method, headers and body as given', async () => {
    const s = await server((_q, res) => json(res, 200, {}));
    await transport().request({
      method: 'POST',
      url: `${s.url}/companies/lookup?lang=et`,
      headers: { 'content-type': 'application/json', 'x-api-key': KEY },
      body: '{"queries":["Bolt OÜ"]}',
    });
    expect(s.requests[0]).toMatchObject({ method: 'POST', url: '/companies/lookup?lang=et', body: '{"queries":["Bolt OÜ"]}' });
    expect(s.requests[0]!.headers['x-api-key']).toBe(KEY);
  });

  it('maps a refused connection to refused', async () => {
    const port = await freePort();
    const e = await transportError(transport().request(get(`http://127.0.0.1:${port}/`)));
    expect(e.kind).toBe('refused');
    expect(e.code).toBe('ECONNREFUSED');
  });

  it('maps a connection closed by the server to reset', async () => {
    const s = await server((req) => req.socket.destroy());
    const e = await transportError(transport().request(get(`${s.url}/z`)));
    expect(e.kind).toBe('reset');
  });

  it('times out waiting for headers', async () => {
    const s = await server(() => undefined);
    const started = Date.now();
    const e = await transportError(transport({ headersTimeoutMs: 200 }).request(get(`${s.url}/slow`)));
    expect(e.kind).toBe('timeout');
    expect(e.code).toBe('UND_ERR_HEADERS_TIMEOUT');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('times out when the body stalls', async () => {
    const s = await server((_q, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"partial":');
    });
    const e = await transportError(transport({ bodyTimeoutMs: 200 }).request(get(`${s.url}/stall`)));
    expect(e.kind).toBe('timeout');
    expect(e.code).toBe('UND_ERR_BODY_TIMEOUT');
  });

  it('enforces the overall deadline against a trickling body', async () => {
    const s = await server((_q, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const timer = setInterval(() => res.write(' '), 50);
      res.on('close', () => clearInterval(timer));
    });
    const started = Date.now();
    const e = await transportError(transport({ bodyTimeoutMs: 5000 }).request({ ...get(`${s.url}/trickle`), timeoutMs: 300 }));
    expect(e.kind).toBe('timeout');
    expect(e.code).toBe('DEADLINE');
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(290);
    expect(took).toBeLessThan(2000);
  });

  it('applies each request its own deadline on the shared timer: a shorter one added later fires first', async () => {
    const s = await server((q, res) => {
      if (q.url === '/slow') setTimeout(() => json(res, 200, { ok: true }), 600);
    });
    const t = transport({ headersTimeoutMs: 5000 });
    const started = Date.now();
    const long = t.request({ ...get(`${s.url}/slow`), timeoutMs: 3000 });
    long.catch(() => undefined); // handled while the short one is awaited; `await long` below still throws
    const short = await transportError(t.request({ ...get(`${s.url}/hang`), timeoutMs: 200 }));
    expect(short.code).toBe('DEADLINE');
    const shortTook = Date.now() - started;
    expect(shortTook).toBeGreaterThanOrEqual(190);
    expect(shortTook).toBeLessThan(550);
    expect((await long).status).toBe(200);
  });

  it('a finished request leaves no deadline behind that could cut a later one', async () => {
    const s = await server((q, res) => (q.url === '/fast' ? json(res, 200, {}) : setTimeout(() => json(res, 200, { late: true }), 500)));
    const t = transport();
    for (let i = 0; i < 5; i++) expect((await t.request({ ...get(`${s.url}/fast`), timeoutMs: 100 })).status).toBe(200);
    // The timer armed for the fast requests' 100 ms fires during this one and must re-arm, not abort it.
    const r = await t.request({ ...get(`${s.url}/late`), timeoutMs: 3000 });
    expect(JSON.parse(r.body)).toEqual({ late: true });
  });

  it('a request still queued for a connection fails at its deadline, and is never sent', async () => {
    const s = await server(() => undefined);
    const t = transport({ connections: 1, headersTimeoutMs: 5000 });
    const hold = t.request({ ...get(`${s.url}/hold`), timeoutMs: 1500 }).catch((e: unknown) => e);
    const started = Date.now();
    const queued = await transportError(t.request({ ...get(`${s.url}/queued`), timeoutMs: 200 }));
    expect(queued.code).toBe('DEADLINE');
    expect(Date.now() - started).toBeLessThan(1000);
    expect(((await hold) as TransportError).code).toBe('DEADLINE');
    // Give undici the freed connection: the expired request must not go out on it.
    await new Promise((r) => setTimeout(r, 100));
    expect(s.requests.map((q) => q.url)).toEqual(['/hold']);
  });

  it('maps other undici and socket errors by code', () => {
    expect(toTransportError(Object.assign(new Error('x'), { code: 'UND_ERR_CONNECT_TIMEOUT' }), false).kind).toBe('timeout');
    expect(toTransportError(Object.assign(new Error('x'), { code: 'ENOTFOUND' }), false).kind).toBe('dns');
    expect(toTransportError(new AggregateError([Object.assign(new Error('a'), { code: 'ECONNREFUSED' })], 'all failed'), false).kind).toBe(
      'refused',
    );
    expect(toTransportError(Object.assign(new Error('x'), { code: 'ERR_TLS_CERT_ALTNAME_INVALID' }), false).kind).toBe('other');
  });
});

describe('CompanyDataClient over real HTTP', () => {
  it('retries a GET after 5xx answers', async () => {
    const s = await server((_q, res) =>
      s.requests.length < 3 ? json(res, 503, { error: 'busy' }) : json(res, 200, envelope({ rated: false, reason: 'not_covered' })),
    );
    const res = await client(s.url).risk.creditScore({ registry_code: RC });
    expect(res.data).toEqual({ rated: false, reason: 'not_covered' });
    expect(s.requests).toHaveLength(3);
  });

  it('retries a GET after a reset connection', async () => {
    const s = await server((req, res) => (s.requests.length === 1 ? req.socket.destroy() : json(res, 200, envelope({ rated: true }))));
    expect((await client(s.url).risk.creditScore({ registry_code: RC })).data).toEqual({ rated: true });
    expect(s.requests).toHaveLength(2);
  });

  it('does NOT retry the billed lookup after a 5xx, a reset or a time-out', async () => {
    const s5 = await server((_q, res) =>
      json(res, 500, { success: false, error: { code: 'internal', message: 'boom' }, meta: { request_id: 'r-5' } }),
    );
    const e5 = await client(s5.url)
      .companies.lookup({ queries: [RC] })
      .catch((e: unknown) => e);
    expect(e5).toBeInstanceOf(ServerError);
    expect(s5.requests).toHaveLength(1);

    const sr = await server((req) => req.socket.destroy());
    const er = await client(sr.url)
      .companies.lookup({ queries: [RC] })
      .catch((e: unknown) => e);
    expect(er).toBeInstanceOf(ConnectionError);
    expect((er as ConnectionError).kind).toBe('reset');
    expect(sr.requests).toHaveLength(1);

    const st = await server(() => undefined);
    const et = await client(st.url, { timeoutMs: 200 })
      .companies.lookup({ queries: [RC] })
      .catch((e: unknown) => e);
    expect(et).toBeInstanceOf(TimeoutError);
    expect(st.requests).toHaveLength(1);
  });

  it('retries the lookup when the connection was refused (nothing was sent)', async () => {
    const port = await freePort();
    let late: Server | undefined;
    const c = client(`http://127.0.0.1:${port}`, {
      retry: { baseDelayMs: 300, maxDelayMs: 300 },
      // The service comes up during the back-off after the refused first attempt.
      onRetry: () => {
        if (late) return;
        late = createHttpServer((_q, res) => json(res, 200, envelope([{ query: RC, type: 'registry_code', matches: [] }])));
        late.listen(port, '127.0.0.1');
      },
    });
    try {
      const res = await c.companies.lookup({ queries: [RC] });
      expect(res.data).toEqual([{ query: RC, type: 'registry_code', matches: [] }]);
    } finally {
      await c.close();
      late?.closeAllConnections();
      await new Promise((r) => (late ? late.close(r) : r(undefined)));
    }
  });

  it('waits for Retry-After on 429 and then succeeds, also for the lookup', async () => {
    const s = await server((_q, res) =>
      s.requests.length === 1
        ? json(
            res,
            429,
            { success: false, error: { code: 'rate_limited', message: 'Too many requests' }, meta: { request_id: 'r' } },
            { 'Retry-After': '1' },
          )
        : json(res, 200, envelope([])),
    );
    const started = Date.now();
    await client(s.url).companies.lookup({ queries: [RC] });
    const waited = s.requests.length === 2 ? Date.now() - started : -1;
    expect(waited).toBeGreaterThanOrEqual(1000);
    expect(waited).toBeLessThan(3000);
  });

  it('keeps to 10 requests per second per client and reuses connections', async () => {
    const arrivals: number[] = [];
    const s = await server((_q, res) => {
      arrivals.push(Date.now());
      json(res, 200, envelope({ rated: true }));
    });
    // The limit is on what the client sends: send times are taken where the limiter lets each request go.
    // (Arrival times at a server in the same process bunch up when a loaded machine delays the event loop.)
    const sent: number[] = [];
    const c = client(s.url, { onRequest: () => sent.push(performance.now()) });
    const started = Date.now();
    await Promise.all(Array.from({ length: 25 }, () => c.risk.creditScore({ registry_code: RC })));
    const took = Date.now() - started;
    expect(sent).toHaveLength(25);
    for (const t of sent) expect(sent.filter((u) => u >= t && u < t + 1000).length).toBeLessThanOrEqual(10);
    expect(took).toBeGreaterThanOrEqual(2000);
    // Not much slower than the limit allows (about 2.4 s): a generous bound, as the machine may be loaded.
    expect(took).toBeLessThan(8000);
    expect(arrivals).toHaveLength(25);
    expect(s.connections).toBeLessThan(25);
  });

  it('never sends the key to the open OpenAPI operation and sends it to others', async () => {
    const s = await server((q, res) =>
      json(res, 200, q.url === '/openapi.json' ? { openapi: '3.1.0', info: { version: '1.0' } } : envelope({ rated: true })),
    );
    const c = client(s.url, { auth: 'bearer' });
    await c.reference.openapi();
    await c.risk.creditScore({ registry_code: RC });
    expect(s.requests[0]!.headers.authorization).toBeUndefined();
    expect(s.requests[0]!.headers['x-api-key']).toBeUndefined();
    expect(s.requests[1]!.headers.authorization).toBe(`Bearer ${KEY}`);
  });
});

describe('DeadlineTimer', () => {
  it('expires due deadlines in one pass, skips removed ones and disarms when nothing is pending', async () => {
    const timer = new DeadlineTimer();
    const expired: string[] = [];
    const at = (ms: number, name: string) => ({ at: performance.now() + ms, expire: () => expired.push(name) });
    const a = at(60, 'a');
    const b = at(30, 'b');
    const gone = at(20, 'removed');
    timer.add(a);
    timer.add(b);
    timer.add(gone);
    timer.remove(gone);
    expect(timer.size).toBe(2);
    await new Promise((r) => setTimeout(r, 120));
    expect(expired).toEqual(['b', 'a']);
    expect(timer.size).toBe(0);
    expect(timer.armed).toBe(false);
    timer.add(at(10_000, 'later'));
    expect(timer.armed).toBe(true);
    timer.stop();
    expect(timer.armed).toBe(false);
    expect(timer.size).toBe(0);
  });
});
