/**
 * `company-data mcp --http`: the MCP server over Streamable HTTP at /mcp, with sessions as the
 * protocol defines them (an initialize request opens one, Mcp-Session-Id names it, DELETE ends it).
 *
 * Guards, in this order, before the SDK sees a request:
 * - Origin: a browser page of another site must not drive the server through the user's browser
 *   (DNS rebinding): a foreign Origin gets 403; requests without one (desktop clients, n8n) pass.
 * - Host: bound to a loopback address, only loopback host names are served (the other half of DNS
 *   rebinding: a hostile name that resolves to 127.0.0.1).
 * - Authorization, by the strategy given (./oauth/strategy.ts): the static COMPANY_DATA_MCP_TOKEN, or
 *   OAuth access tokens of the team's authorization server (--oauth-issuer), whose metadata documents
 *   it also serves, before the guards (they are public).
 * - Body: JSON up to 4 MiB (413 past it, while reading).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { lingerThenClose, readCappedBody } from '../transport/capped-body';
import type { McpAuth, McpAuthFactory } from './oauth/strategy';

export const MCP_PATH = '/mcp';
const MAX_BODY = 4 * 1024 * 1024;
/** Sessions open at once; past it, sessions idle longest are closed first, then new ones are refused. */
const MAX_SESSIONS = 100;
/** A session unused this long is closed when room is needed. */
const IDLE_MS = 30 * 60_000;

export interface McpHttpOptions {
  host: string;
  port: number;
  /** Who may call: `staticToken(token)` or `oauthResourceServer(issuer)` (./oauth/). */
  auth: McpAuthFactory;
  /** The address clients use, behind a reverse proxy: its host name passes the Host and Origin guards. */
  publicUrl?: URL;
  /** A fresh server for each session (the SDK connects one server to one transport). */
  newServer(): Server;
  log?: (line: string) => void;
}

export interface McpHttpServer {
  /** http://host:port/mcp */
  url: string;
  /** The URL of /mcp clients use: the public one when given, else `url`. */
  mcpUrl: string;
  sessions(): number;
  close(): Promise<void>;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);
export const isLoopback = (host: string) => LOOPBACK_HOSTS.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host);

/** Host name of a Host header or an Origin URL, without the port. */
function hostnameOf(value: string): string | undefined {
  try {
    return new URL(value.includes('://') ? value : `http://${value}`).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return undefined;
  }
}

function jsonRpcError(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  res
    .writeHead(status, { 'content-type': 'application/json', ...headers })
    .end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

interface Session {
  transport: StreamableHTTPServerTransport;
  server: Server;
  lastUsed: number;
}

export async function startMcpHttp(opts: McpHttpOptions): Promise<McpHttpServer> {
  const sessions = new Map<string, Session>();
  let port = opts.port;

  const originAllowed = (origin: string | undefined) => {
    if (origin === undefined || origin === opts.publicUrl?.origin) return true;
    let u: URL;
    try {
      u = new URL(origin);
    } catch {
      return false;
    }
    const host = u.hostname.replace(/^\[|\]$/g, '');
    const samePort = (u.port || (u.protocol === 'https:' ? '443' : '80')) === String(port);
    return samePort && (isLoopback(host) ? isLoopback(opts.host) || host === opts.host : host === opts.host);
  };
  const hostAllowed = (host: string | undefined) => {
    if (!isLoopback(opts.host)) return true;
    const name = host ? hostnameOf(host) : undefined;
    return name !== undefined && (isLoopback(name) || name === opts.publicUrl?.hostname);
  };

  async function closeSession(id: string): Promise<void> {
    const s = sessions.get(id);
    if (!s) return;
    sessions.delete(id);
    await s.transport.close().catch(() => undefined);
    await s.server.close().catch(() => undefined);
  }

  /** Room for one more session: idle ones go first; false when all are in use. */
  async function makeRoom(): Promise<boolean> {
    const now = Date.now();
    for (const [id, s] of sessions) if (now - s.lastUsed > IDLE_MS) await closeSession(id);
    return sessions.size < MAX_SESSIONS;
  }

  async function openSession(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    if (!(await makeRoom()))
      return jsonRpcError(res, 503, -32000, `Too many open sessions (${MAX_SESSIONS}): close unused clients, or retry later`);
    const server = opts.newServer();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, server, lastUsed: Date.now() });
        opts.log?.(`session opened (${sessions.size} open)`);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId && sessions.delete(transport.sessionId)) opts.log?.(`session closed (${sessions.size} open)`);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (auth.serve?.(req, res)) return;
    const path = (req.url ?? '/').split('?')[0];
    if (path !== MCP_PATH) return jsonRpcError(res, 404, -32000, `Not found: the MCP endpoint is ${MCP_PATH}`);
    if (!originAllowed(req.headers.origin))
      return jsonRpcError(res, 403, -32000, 'Forbidden: requests from web pages of other sites are refused (Origin)');
    if (!hostAllowed(req.headers.host))
      return jsonRpcError(res, 403, -32000, 'Forbidden: this server answers only to a loopback host name (Host)');
    const denied = await auth.authenticate(req);
    if (denied) return jsonRpcError(res, denied.status, -32000, denied.message, denied.headers);
    if (!['GET', 'POST', 'DELETE'].includes(req.method ?? '')) {
      return jsonRpcError(res, 405, -32000, 'Method not allowed: use POST, GET or DELETE', { allow: 'GET, POST, DELETE' });
    }

    let body: unknown;
    if (req.method === 'POST') {
      const raw = await readCappedBody(req, MAX_BODY);
      if (!raw) {
        jsonRpcError(res, 413, -32000, `Request body over ${MAX_BODY / 1024 / 1024} MiB`);
        return lingerThenClose(req);
      }
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        return jsonRpcError(res, 400, -32700, 'Parse error: the body is not JSON');
      }
    }

    const id = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(id) ? id[0] : id;
    if (sessionId) {
      const s = sessions.get(sessionId);
      if (!s) return jsonRpcError(res, 404, -32001, 'Session not found: it ended or the server restarted; initialize a new one');
      s.lastUsed = Date.now();
      return s.transport.handleRequest(req, res, body);
    }
    const messages = Array.isArray(body) ? body : [body];
    if (req.method === 'POST' && messages.some((m) => isInitializeRequest(m))) return openSession(req, res, body);
    return jsonRpcError(res, 400, -32000, 'Bad request: no Mcp-Session-Id; start with an initialize request');
  }

  const http = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      opts.log?.(`request failed: ${err instanceof Error ? err.message : String(err)}`);
      if (!res.headersSent) jsonRpcError(res, 500, -32603, 'Internal error');
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(opts.port, opts.host, () => resolve());
  });
  port = (http.address() as AddressInfo).port;
  const shownHost = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  const url = `http://${shownHost}:${port}${MCP_PATH}`;
  const mcpUrl = opts.publicUrl ?? new URL(url);
  // Requests come only once the server listens: `handle` reads it after this line.
  const auth: McpAuth = opts.auth(mcpUrl);

  return {
    url,
    mcpUrl: mcpUrl.href,
    sessions: () => sessions.size,
    close: async () => {
      await Promise.all([...sessions.keys()].map(closeSession));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
