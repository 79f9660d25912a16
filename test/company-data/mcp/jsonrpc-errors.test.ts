/**
 * The JSON-RPC error codes of `company-data mcp --http` (its own process), each one, over real HTTP: raw
 * requests where the test must control the bytes, the official SDK client where what matters is what a client
 * shows (the message with "MCP error <code>:" once, not twice, and no zod dump).
 */
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { connectHttp, initializeMessage, mcpHeaders, mcpHttpFixture, rawRequest } from './support';

const TOKEN = 'mcp_token_JSONRPC_0f1e2d3c4b5a6978';
const auth = { ...mcpHeaders, authorization: `Bearer ${TOKEN}` };
const mcp = mcpHttpFixture(TOKEN);

interface Answer {
  jsonrpc: string;
  id: string | number | null;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

/** The JSON-RPC answers in a body: plain JSON, or the data lines of an SSE stream. */
function answersOf(text: string): Answer[] {
  if (!text.trim()) return [];
  if (text.startsWith('{') || text.startsWith('[')) return [JSON.parse(text)].flat() as Answer[];
  return [...text.matchAll(/^data: (.+)$/gm)].map((m) => JSON.parse(m[1]!) as Answer);
}

/** A session opened by raw requests at `version`: its headers, and a poster of raw bodies to it. */
async function rawSession(version: string) {
  const opened = await rawRequest(mcp.server.url, 'POST', auth, JSON.stringify(initializeMessage(version)));
  expect(opened.status).toBe(200);
  expect(answersOf(opened.text)[0]!.result!.protocolVersion).toBe(version);
  const headers = { ...auth, 'mcp-session-id': opened.headers['mcp-session-id'] as string, 'mcp-protocol-version': version };
  expect(
    (await rawRequest(mcp.server.url, 'POST', headers, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }))).status,
  ).toBe(202);
  const post = async (body: unknown) => {
    const r = await rawRequest(mcp.server.url, 'POST', headers, typeof body === 'string' ? body : JSON.stringify(body));
    return { status: r.status, answers: answersOf(r.text) };
  };
  return { post };
}

/** A clean message: no SDK prefix, no zod dump. */
function expectClean(message: string): void {
  expect(message).not.toMatch(/MCP error/);
  expect(message).not.toMatch(/invalid_type|"code"|"path"|\[\s*\{/);
}

describe('mcp --http JSON-RPC errors', () => {
  it('-32602 for tools/call without a name or with arguments that are not an object: field and rule, no zod dump', async () => {
    const s = await rawSession('2025-06-18');
    const noName = await s.post({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { arguments: {} } });
    expect(noName.status).toBe(200);
    expect(noName.answers).toEqual([
      { jsonrpc: '2.0', id: 7, error: { code: -32602, message: 'Invalid params for tools/call: name is required (a string)' } },
    ]);
    const badArgs = await s.post({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'companies_get', arguments: [1] } });
    expect(badArgs.answers[0]!.error).toEqual({
      code: -32602,
      message: 'Invalid params for tools/call: arguments must be an object, not an array',
    });
    const noParams = await s.post({ jsonrpc: '2.0', id: 9, method: 'resources/read' });
    expect(noParams.answers[0]!.error!.code).toBe(-32602);
    expectClean(noParams.answers[0]!.error!.message);
  });

  it('-32602 for an unknown tool, resource or prompt; the SDK client shows "MCP error -32602:" once', async () => {
    const { client } = await connectHttp(mcp.server.url, TOKEN);
    try {
      const calls: [Promise<unknown>, RegExp][] = [
        [client.callTool({ name: 'no_such_tool', arguments: {} }), /^MCP error -32602: Unknown tool no_such_tool: list the tools/],
        [client.readResource({ uri: 'company-data://nothing' }), /^MCP error -32602: .*uri is not a resource of this server/],
        [client.getPrompt({ name: 'nothing' }), /^MCP error -32602: .*name is not a prompt of this server/],
      ];
      for (const [call, message] of calls) {
        const err = await call.then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(McpError);
        expect((err as McpError).code).toBe(-32602);
        expect((err as Error).message).toMatch(message);
        expect((err as Error).message.match(/MCP error/g)).toHaveLength(1);
      }
    } finally {
      await client.close();
    }
  });

  it('-32602 for a cursor this server never gave out, on every list', async () => {
    const { client } = await connectHttp(mcp.server.url, TOKEN);
    try {
      // Settled together: each rejection has its handler from the start (awaited one at a time, a list
      // that failed before the one awaited would be an unhandled rejection).
      const lists = await Promise.allSettled([
        client.listTools({ cursor: 'page-2' }),
        client.listResources({ cursor: 'page-2' }),
        client.listResourceTemplates({ cursor: 'page-2' }),
        client.listPrompts({ cursor: 'page-2' }),
      ]);
      for (const list of lists) {
        expect(list.status).toBe('rejected');
        const err = (list as PromiseRejectedResult).reason as unknown;
        expect((err as McpError).code).toBe(-32602);
        expect((err as Error).message).toMatch(
          /^MCP error -32602: Invalid params: unknown cursor; this server lists all its .+ in one page/,
        );
      }
      // Without a cursor the lists answer, in one page.
      expect((await client.listTools()).nextCursor).toBeUndefined();
    } finally {
      await client.close();
    }
  });

  it('-32601 for an unknown method', async () => {
    const s = await rawSession('2025-06-18');
    const r = await s.post({ jsonrpc: '2.0', id: 3, method: 'tools/fly' });
    expect(r.answers).toEqual([{ jsonrpc: '2.0', id: 3, error: { code: -32601, message: 'Method not found' } }]);
  });

  it('-32700 (HTTP 400) for a body that is not JSON', async () => {
    const s = await rawSession('2025-06-18');
    const r = await s.post('{"jsonrpc": "2.0", ');
    expect(r.status).toBe(400);
    expect(r.answers).toEqual([{ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the body is not JSON' } }]);
  });

  it('-32600 (HTTP 400) for JSON that is not a JSON-RPC message, saying what is wrong', async () => {
    const s = await rawSession('2025-06-18');
    const cases: [unknown, string, string | number | null][] = [
      [{ hello: 'world' }, '"jsonrpc" must be "2.0"', null],
      ['"tools/list"', 'a message must be a JSON object, not a string', null],
      [42, 'a message must be a JSON object, not a number', null],
      [{ jsonrpc: '2.0', id: 4 }, 'a message needs a "method" (or, as an answer, a "result" or an "error")', 4],
      [{ jsonrpc: '2.0', id: 5, method: 17 }, '"method" must be a string', 5],
      [{ jsonrpc: '2.0', id: { x: 1 }, method: 'ping' }, '"id" must be a string or a number', null],
      [{ jsonrpc: '2.0', id: 6, method: 'tools/list', params: ['a'] }, '"params" must be an object, not an array', 6],
      [{ jsonrpc: '1.0', id: 7, method: 'ping' }, '"jsonrpc" must be "2.0"', 7],
    ];
    for (const [body, why, id] of cases) {
      const r = await s.post(body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.answers, JSON.stringify(body)).toEqual([
        { jsonrpc: '2.0', id, error: { code: -32600, message: `Invalid Request: ${why}` } },
      ]);
    }
    // Without a session too (before any initialize).
    const none = await rawRequest(mcp.server.url, 'POST', auth, JSON.stringify({ hello: 'world' }));
    expect(none.status).toBe(400);
    expect(answersOf(none.text)[0]!.error!.code).toBe(-32600);
  });

  it('-32600 (HTTP 400) for a batch on a session at 2025-06-18 or later, and for an initialize in a batch at those versions', async () => {
    const batch = [
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: 2, method: 'ping' },
    ];
    for (const version of ['2025-06-18', '2025-11-25']) {
      const s = await rawSession(version);
      const r = await s.post(batch);
      expect(r.status).toBe(400);
      expect(r.answers).toEqual([
        {
          jsonrpc: '2.0',
          id: null,
          error: {
            code: -32600,
            message: `Invalid Request: JSON-RPC batches are not part of MCP ${version} (removed in 2025-06-18); send one message per request`,
          },
        },
      ]);
      // One message at a time is served.
      expect((await s.post(batch[0])).answers).toEqual([{ jsonrpc: '2.0', id: 1, result: {} }]);
    }
    const initBatch = await rawRequest(mcp.server.url, 'POST', auth, JSON.stringify([initializeMessage('2025-06-18')]));
    expect(initBatch.status).toBe(400);
    expect(answersOf(initBatch.text)[0]!.error!.code).toBe(-32600);
  });

  it('serves batches on a session at 2025-03-26, which allows them; an empty or malformed batch is -32600', async () => {
    const s = await rawSession('2025-03-26');
    const r = await s.post([
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    ]);
    expect(r.status).toBe(200);
    expect(r.answers.map((a) => a.id).sort()).toEqual([1, 2]);
    expect(r.answers.find((a) => a.id === 2)!.result!.tools).toBeInstanceOf(Array);
    const empty = await s.post([]);
    expect(empty.status).toBe(400);
    expect(empty.answers[0]!.error).toEqual({ code: -32600, message: 'Invalid Request: the batch is empty' });
    const bad = await s.post([{ jsonrpc: '2.0', id: 1, method: 'ping' }, { nope: true }]);
    expect(bad.answers[0]!.error).toEqual({ code: -32600, message: 'Invalid Request: message 2 of the batch: "jsonrpc" must be "2.0"' });
  });

  it('-32602 for an initialize without its params', async () => {
    const r = await rawRequest(mcp.server.url, 'POST', auth, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }));
    expect(r.status).toBe(400);
    const answer = answersOf(r.text)[0]!;
    expect(answer.id).toBe(1);
    expect(answer.error!.code).toBe(-32602);
    expect(answer.error!.message).toMatch(
      /^Invalid params for initialize: protocolVersion is required \(a string\); capabilities is required/,
    );
  });
});
