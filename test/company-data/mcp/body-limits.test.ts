/**
 * Request bodies of `company-data mcp --http` that would take the memory: too large (413) or nested too deep
 * (400), refused with a JSON-RPC error before they are parsed, with and without Content-Length; a lookup of
 * 1,000 queries still goes through, and a client is served while hostile bodies arrive. The memory figures
 * (peak RSS under ten 4 MB bodies at once) are measured by bench/mcp-limits.bench.mjs, not here.
 */
import { request } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { describe, expect, it } from 'vitest';
import { ByteBudget, JsonDepth } from '../../../packages/company-data/src/mcp/body-limits';
import { startMcpHttp } from '../../../packages/company-data/src/mcp/http';
import { staticToken } from '../../../packages/company-data/src/mcp/oauth/strategy';
import { connectHttp, initializeMessage, mcpHeaders, mcpHttpFixture, rawRequest, structured, type RawAnswer } from './support';

const TOKEN = 'mcp_token_BODYLIMITS_9a8b7c6d5e4f3a2b';
const auth = { ...mcpHeaders, authorization: `Bearer ${TOKEN}` };
const MiB = 1024 * 1024;
const mcp = mcpHttpFixture(TOKEN);

/** A POST whose body goes out in chunks without Content-Length (chunked transfer encoding). */
function chunked(url: string, headers: Record<string, string>, chunks: Iterable<Buffer>): Promise<RawAnswer> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
    });
    // The server answers and closes before the whole body is sent: that is the point.
    req.on('error', (e: NodeJS.ErrnoException) => (e.code === 'EPIPE' || e.code === 'ECONNRESET' ? undefined : reject(e)));
    for (const c of chunks) req.write(c);
    req.end();
  });
}

/** 4 MB of JSON nested 2,000,000 deep, as the issue sent it. */
const nested = Buffer.from(`${'['.repeat(2_000_000)}${']'.repeat(2_000_000)}`);
const inPieces = (b: Buffer) =>
  Array.from({ length: Math.ceil(b.length / (64 * 1024)) }, (_, i) => b.subarray(i * 64 * 1024, (i + 1) * 64 * 1024));

const errorOf = (r: RawAnswer) => (JSON.parse(r.text) as { error: { code: number; message: string } }).error;
/** A ping whose params._meta nests `levels` arrays: the message is levels + 3 deep (message, params, _meta). */
const pingNested = (levels: number) =>
  `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"x":${'['.repeat(levels)}${']'.repeat(levels)}}}}`;

describe('JsonDepth', () => {
  const depthOk = (max: number, ...chunks: string[]) => {
    const d = new JsonDepth(max);
    return chunks.every((c) => d.feed(Buffer.from(c)));
  };

  it('counts arrays and objects, not brackets inside strings (escaped quotes too), across chunk boundaries', () => {
    expect(depthOk(3, '{"a":[{"b":1}]}')).toBe(true);
    expect(depthOk(2, '{"a":[{"b":1}]}')).toBe(false);
    expect(depthOk(1, '{"a":"[[[{{{"}')).toBe(true);
    expect(depthOk(1, '{"a":"say \\"[[[\\" and \\\\", "b": "x"}')).toBe(true);
    expect(depthOk(1, '{"a":"\\\\"', ',"b":[1]}')).toBe(false);
    expect(depthOk(2, '{"a":"[', '[["}', '[1]')).toBe(true);
    expect(depthOk(2, '[[', '[')).toBe(false);
    // Stray closing brackets do not buy depth (JSON.parse would stop at them anyway).
    expect(depthOk(2, ']]]]', '[[[')).toBe(false);
    expect(depthOk(1, '{"Tõnu ÕÄÖÜ 😀 [":"ü{"}')).toBe(true);
  });
});

describe('ByteBudget', () => {
  it('lets a request in while it fits; of those waiting, the smallest first; a request over the whole budget waits for all of it', async () => {
    const budget = new ByteBudget(100);
    const order: string[] = [];
    const big = await budget.take(80);
    const waiting = [
      budget.take(60).then((h) => (order.push('60'), h)),
      budget.take(150).then((h) => (order.push('150'), h)),
      budget.take(30).then((h) => (order.push('30'), h)),
    ];
    const small = await budget.take(20); // fits beside the 80 at once
    await new Promise((r) => setTimeout(r, 10));
    expect(order).toEqual([]);
    big.release();
    small.release();
    await new Promise((r) => setTimeout(r, 10));
    expect(order).toEqual(['30', '60']);
    const [h60, , h30] = await Promise.all([waiting[0], Promise.resolve(), waiting[2]]);
    h60!.keep(10); // a body smaller than the room it waited for gives the rest back
    expect(order).toEqual(['30', '60']);
    h30!.release();
    h60!.release();
    await waiting[1];
    expect(order).toEqual(['30', '60', '150']);
  });
});

describe('mcp --http request bodies', () => {
  it('refuses 4 MB of JSON nested 2,000,000 deep by its Content-Length: 413 and JSON-RPC -32600, nothing parsed', async () => {
    const r = await rawRequest(mcp.server.url, 'POST', auth, nested);
    expect(r.status).toBe(413);
    expect(errorOf(r)).toEqual({
      code: -32600,
      message: 'Invalid Request: the body is over 256 KiB; send fewer items per call (a lookup of 1,000 company names is about 40 KB)',
    });
  });

  it('refuses nesting deeper than 64 levels while reading: 400 and -32600, with and without Content-Length', async () => {
    const deep = await rawRequest(mcp.server.url, 'POST', auth, Buffer.alloc(100_000, '['));
    expect(deep.status).toBe(400);
    expect(errorOf(deep)).toEqual({ code: -32600, message: 'Invalid Request: the JSON is nested deeper than 64 levels' });
    // The same 4 MB, chunked: refused on the first chunk, long before the size limit.
    const streamed = await chunked(mcp.server.url, auth, inPieces(nested));
    expect(streamed.status).toBe(400);
    expect(errorOf(streamed).message).toMatch(/nested deeper than 64 levels/);
    // Exactly 64 levels pass the depth check (and the ping is answered); 65 do not.
    const opened = await rawRequest(mcp.server.url, 'POST', auth, JSON.stringify(initializeMessage()));
    const session = { ...auth, 'mcp-session-id': opened.headers['mcp-session-id'] as string, 'mcp-protocol-version': '2025-06-18' };
    const at64 = await rawRequest(mcp.server.url, 'POST', session, pingNested(61));
    expect(at64.status).toBe(200);
    expect(at64.text).toMatch(/"result":\{\}/);
    expect((await rawRequest(mcp.server.url, 'POST', session, pingNested(62))).status).toBe(400);
  });

  it('refuses a body over 256 KiB without Content-Length once more has come: 413', async () => {
    const r = await chunked(
      mcp.server.url,
      auth,
      Array.from({ length: 8 }, () => Buffer.alloc(64 * 1024, ' ')),
    );
    expect(r.status).toBe(413);
    expect(errorOf(r).code).toBe(-32600);
  });

  it('takes the largest legitimate call: a lookup of 1,000 company names', async () => {
    const { client } = await connectHttp(mcp.server.url, TOKEN);
    try {
      const queries = Array.from({ length: 1000 }, (_, i) => `Osaühing Põhjamaade Ehitus- ja Kinnisvarahaldus ${i}`);
      const answer = structured(await client.callTool({ name: 'companies_lookup', arguments: { queries, max_billed_queries: 1000 } }));
      expect(answer.count).toBe(1000);
      expect(JSON.stringify({ queries }).length).toBeGreaterThan(50_000);
    } finally {
      await client.close();
    }
  }, 60_000);

  it('serves a client while ten hostile 4 MB bodies (2,000,000 deep) arrive at once', async () => {
    const { client } = await connectHttp(mcp.server.url, TOKEN);
    try {
      const hostile = Array.from({ length: 10 }, (_, i) =>
        i % 2 ? rawRequest(mcp.server.url, 'POST', auth, nested) : chunked(mcp.server.url, auth, inPieces(nested)),
      );
      const s = structured(await client.callTool({ name: 'companies_get', arguments: { registry_code: '13545698' } }));
      expect(s.items[0]!.registry_code).toBe('13545698');
      const answers = await Promise.all(hostile);
      expect(answers.map((a) => a.status).sort()).toEqual([400, 400, 400, 400, 400, 413, 413, 413, 413, 413]);
      expect((await client.listTools()).tools.length).toBeGreaterThan(10);
    } finally {
      await client.close();
    }
  });
});

describe('mcp --http body budget', () => {
  it('answers 408 to a body that stalls while it holds the room, and the request waiting for room is then served', async () => {
    const http = await startMcpHttp({
      host: '127.0.0.1',
      port: 0,
      auth: staticToken(TOKEN),
      newServer: () => new Server({ name: 'slots', version: '1' }, { capabilities: {} }),
      bodyLimits: { maxBytes: 64 * 1024, maxDepth: 64, budgetBytes: 64 * 1024, timeoutMs: 1500 },
    });
    const u = new URL(http.url);
    try {
      const stalled = new Promise<RawAnswer>((resolve, reject) => {
        const req = request({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: auth }, (res) => {
          let text = '';
          res.on('data', (d: Buffer) => (text += d.toString()));
          res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
        });
        req.on('error', reject);
        // Without Content-Length: it holds room for the largest body, the whole budget, and sends no more.
        req.write('{"jsonrpc":"2.0",');
      });
      // Handled from now on (the Promise.all below still sees a failure): it must not go unhandled during the wait.
      stalled.catch(() => undefined);
      // Sent once the staller holds the room: it waits, then is served.
      await new Promise((r) => setTimeout(r, 200));
      const waiting = rawRequest(http.url, 'POST', auth, JSON.stringify(initializeMessage()));
      // Both settled together: a failure of the second while the first is awaited still has its handler.
      const [first, second] = await Promise.all([stalled, waiting]);
      expect(first.status).toBe(408);
      expect(errorOf(first)).toEqual({ code: -32000, message: 'Request timeout: the body did not arrive within 1.5 s' });
      expect(second.status).toBe(200);
      expect(second.headers['mcp-session-id']).toBeTruthy();
    } finally {
      await http.close();
    }
  });
});
