/**
 * `company-data mcp --http` as its own process: the official SDK client over Streamable HTTP with the
 * bearer token, sessions, and the guards a server on a developer's machine needs: 401 without the
 * token, 403 for a web page of another site (Origin) or a rebound host name (Host), 413 for a huge
 * body, 404 for an ended session; and neither the API key nor the token in any answer or log line.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { cliBundle } from '../../drills/support/cli';
import { API_KEY, cliEnv, connectHttp, initializeMessage, mcpHeaders, mcpHttpFixture, rawRequest, structured } from './support';

const TOKEN = 'mcp_token_HTTPDRILL_0a1b2c3d4e5f6a7b';
const mcp = mcpHttpFixture(TOKEN);
const seen: unknown[] = [];
const initialize = initializeMessage();

async function raw(method: string, headers: Record<string, string>, body?: string | Buffer) {
  const answer = await rawRequest(mcp.server.url, method, headers, body);
  seen.push(answer.text);
  return answer;
}

const connect = (token = TOKEN) => connectHttp(mcp.server.url, token);

describe('mcp --http', () => {
  it('listens on loopback at /mcp', () => {
    expect(mcp.server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  });

  it('serves the SDK client with the token: tools, a call, its own session', async () => {
    const a = await connect();
    const b = await connect();
    try {
      const { tools } = await a.client.listTools();
      expect(tools.map((t) => t.name)).toContain('companies_get');
      const s = structured(await a.client.callTool({ name: 'companies_get', arguments: { registry_code: '13545698' } }));
      seen.push(s);
      expect(s.items[0]!.registry_code).toBe('13545698');
      expect(a.transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
      expect(b.transport.sessionId).not.toBe(a.transport.sessionId);
    } finally {
      await a.client.close();
      await b.client.close();
    }
  });

  it('answers 401 without the token or with a wrong one', async () => {
    const none = await raw('POST', mcpHeaders, JSON.stringify(initialize));
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(JSON.parse(none.text).error.message).toMatch(/Authorization: Bearer/);
    expect((await raw('POST', { ...mcpHeaders, authorization: `Bearer ${TOKEN}x` }, JSON.stringify(initialize))).status).toBe(401);
    await expect(connect('wrong-token-0000000000')).rejects.toThrow();
  });

  it('answers 403 to a web page of another site, and to a host name rebound to loopback', async () => {
    const auth = { ...mcpHeaders, authorization: `Bearer ${TOKEN}` };
    const foreign = await raw('POST', { ...auth, origin: 'https://evil.example' }, JSON.stringify(initialize));
    expect(foreign.status).toBe(403);
    expect(JSON.parse(foreign.text).error.message).toMatch(/Origin/);
    expect((await raw('POST', { ...auth, origin: 'http://localhost:1' }, JSON.stringify(initialize))).status).toBe(403);
    expect((await raw('POST', { ...auth, host: `evil.example:${new URL(mcp.server.url).port}` }, JSON.stringify(initialize))).status).toBe(
      403,
    );
    // The server's own origin is fine (a page it served, if it ever serves one).
    const own = await raw('POST', { ...auth, origin: new URL(mcp.server.url).origin }, JSON.stringify(initialize));
    expect(own.status).toBe(200);
  });

  it('ends a session on DELETE; its id then answers 404', async () => {
    const auth = { ...mcpHeaders, authorization: `Bearer ${TOKEN}` };
    const opened = await raw('POST', auth, JSON.stringify(initialize));
    const id = opened.headers['mcp-session-id'] as string;
    expect(id).toBeTruthy();
    expect((await raw('DELETE', { ...auth, 'mcp-session-id': id })).status).toBe(200);
    const after = await raw('POST', { ...auth, 'mcp-session-id': id }, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }));
    expect(after.status).toBe(404);
    const noSession = await raw('POST', auth, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }));
    expect(noSession.status).toBe(400);
  });

  it('refuses a body over 256 KiB, and a body that is not JSON', async () => {
    const auth = { ...mcpHeaders, authorization: `Bearer ${TOKEN}` };
    const huge = await raw('POST', auth, Buffer.alloc(1024 * 1024, 0x20));
    expect(huge.status).toBe(413);
    expect((await raw('POST', auth, '{not json')).status).toBe(400);
  });

  it('without COMPANY_DATA_MCP_TOKEN it does not start, and says what to set', async () => {
    const child = spawn(process.execPath, [cliBundle(), 'mcp', '--http', '--port', '0', '--base-url', mcp.sb.url], {
      env: cliEnv({ COMPANY_DATA_API_KEY: API_KEY }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise((r) => child.on('exit', r));
    expect(code).toBe(1);
    expect(err).toMatch(/COMPANY_DATA_MCP_TOKEN: is required with --http/);
  });

  it('neither the API key nor the token is in any answer or log line', () => {
    const stderr = mcp.server.stderr();
    const all = `${JSON.stringify(seen)}\n${stderr}`;
    expect(stderr).toMatch(/session opened/);
    for (const secret of [API_KEY, TOKEN]) {
      expect(all).not.toContain(secret);
      expect(all).not.toContain(Buffer.from(secret).toString('base64'));
    }
  });
});
