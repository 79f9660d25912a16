/**
 * Sessions of `company-data mcp --http` (its own process) with the official SDK client, whose close() sends
 * no DELETE: 150 clients in a row are all served, the server keeps at most 100 sessions by closing the least
 * recently used, and the client of a closed session gets 404 and, as the protocol says, starts a new one.
 */
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { connectHttp, initializeMessage, mcpHeaders, mcpHttpFixture, rawRequest, structured } from './support';

const TOKEN = 'mcp_token_SESSIONS_5e4d3c2b1a098765';
const CAP = 100;
const mcp = mcpHttpFixture(TOKEN);

/** The highest "(N open)" the server logged. */
const mostOpen = () => Math.max(...[...mcp.server.stderr().matchAll(/\((\d+) open\)/g)].map((m) => Number(m[1])));

describe('mcp --http sessions', () => {
  it('serves 150 clients in a row that never send DELETE; the least recently used session makes room; its client gets 404 and starts anew', async () => {
    // The first client: connected, used, then left alone while the others come and go.
    const first = await connectHttp(mcp.server.url, TOKEN);
    expect((await first.client.listTools()).tools.length).toBeGreaterThan(10);
    // A client that keeps using its session stays: its session is never the least recently used.
    const regular = await connectHttp(mcp.server.url, TOKEN);

    let served = 0;
    for (let i = 0; i < 150; i++) {
      const c = await connectHttp(mcp.server.url, TOKEN);
      const answer = await c.client.callTool({ name: 'companies_get', arguments: { registry_code: '13545698' } });
      expect(structured(answer).items[0]!.registry_code).toBe('13545698');
      await c.client.close(); // the SDK's close: no DELETE, the session stays open on the server
      served++;
      if (i % 20 === 0) await regular.client.ping();
    }
    expect(served).toBe(150);
    expect(mostOpen()).toBe(CAP);
    expect(mcp.server.stderr()).toMatch(/session closed to make room \(100 open at most; it was the least recently used/);

    // The regular client's session survived the churn.
    await regular.client.ping();
    expect((await regular.client.listTools()).tools.length).toBeGreaterThan(10);

    // The first client's session was closed to make room: 404, which the SDK reports as StreamableHTTPError.
    const err: unknown = await first.client.listTools().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(StreamableHTTPError);
    expect((err as StreamableHTTPError).code).toBe(404);
    expect((err as Error).message).toMatch(/Session not found/);

    // Starting anew, as a client must on 404: the same SDK Client closed and connected on a new transport,
    // which initializes without a session id.
    const oldId = first.transport.sessionId;
    await first.client.close();
    const fresh = new StreamableHTTPClientTransport(new URL(mcp.server.url), {
      requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
    });
    await first.client.connect(fresh);
    expect(fresh.sessionId).toBeTruthy();
    expect(fresh.sessionId).not.toBe(oldId);
    const s = structured(await first.client.callTool({ name: 'companies_get', arguments: { registry_code: '13545698' } }));
    expect(s.items[0]!.registry_code).toBe('13545698');
    await first.client.close();
    await regular.client.close();
  }, 180_000);

  it('answers 404 (JSON-RPC -32001) to a closed session id without reading its body, and a DELETE ends a session', async () => {
    const auth = { ...mcpHeaders, authorization: `Bearer ${TOKEN}` };
    const opened = await rawRequest(mcp.server.url, 'POST', auth, JSON.stringify(initializeMessage()));
    const id = opened.headers['mcp-session-id'] as string;
    expect((await rawRequest(mcp.server.url, 'DELETE', { ...auth, 'mcp-session-id': id })).status).toBe(200);
    // A large body to a session that is gone: refused at once for the session, not for the body.
    const big = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: { pad: 'x'.repeat(500_000) } } });
    const after = await rawRequest(mcp.server.url, 'POST', { ...auth, 'mcp-session-id': id }, big);
    expect(after.status).toBe(404);
    expect(JSON.parse(after.text).error).toEqual({
      code: -32001,
      message: expect.stringMatching(/^Session not found.*initialize a new one$/),
    });
  });
});
