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
 * - Session: an Mcp-Session-Id this server no longer has gets 404 (the client then initializes anew),
 *   before its body is read.
 * - Body: size, nesting depth and bodies parsed at once bounded (body-limits.ts); then it must be a
 *   JSON-RPC message, and no batch where the session's protocol version forbids them (-32600).
 * At most 100 sessions are open, 10 of one signed-in user; at a cap the least recently used one is closed
 * (sessions.ts). With sign-in a session belongs to the user who opened it.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { lingerThenClose } from '../transport/capped-body';
import { DEFAULT_BODY_LIMITS, jsonBodyReader, type BodyLimits } from './body-limits';
import { invalidInitialize, invalidRequest, jsonRpcError, negotiatedVersion } from './jsonrpc-errors';
import { isDenial, type Caller, type McpAuth, type McpAuthFactory } from './oauth/strategy';
import { SessionTable } from './sessions';

export const MCP_PATH = '/mcp';
/** Sessions open at once; at the cap the least recently used one is closed for the newcomer. */
const MAX_SESSIONS = 100;
/** Sessions of one signed-in user: a client opening sessions in a loop closes its own, never another user's. */
const MAX_SESSIONS_PER_USER = 10;
/** A session unused this long is closed when the next one opens. */
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
  /** Tests only: other body limits. */
  bodyLimits?: BodyLimits;
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

/** The server once it listens: its port (0 asked for any) and who may call, which needs the URL. */
interface Listening {
  port: number;
  auth: McpAuth;
}

/** The Origin and Host guards against DNS rebinding (see the top of this file). */
function requestGuards(opts: McpHttpOptions, listening: () => Listening) {
  const originAllowed = (origin: string | undefined) => {
    if (origin === undefined || origin === opts.publicUrl?.origin) return true;
    let u: URL;
    try {
      u = new URL(origin);
    } catch {
      return false;
    }
    const host = u.hostname.replace(/^\[|\]$/g, '');
    const samePort = (u.port || (u.protocol === 'https:' ? '443' : '80')) === String(listening().port);
    return samePort && (isLoopback(host) ? isLoopback(opts.host) || host === opts.host : host === opts.host);
  };
  const hostAllowed = (host: string | undefined) => {
    if (!isLoopback(opts.host)) return true;
    const name = host ? hostnameOf(host) : undefined;
    return name !== undefined && (isLoopback(name) || name === opts.publicUrl?.hostname);
  };
  return { originAllowed, hostAllowed };
}

/** Answers one request to the HTTP server (the guards, in the order the top of this file gives, then the SDK). */
function requestHandler(opts: McpHttpOptions, sessions: SessionTable, listening: () => Listening) {
  const readBody = jsonBodyReader(opts.bodyLimits ?? DEFAULT_BODY_LIMITS);
  const { originAllowed, hostAllowed } = requestGuards(opts, listening);

  async function openSession(req: IncomingMessage, res: ServerResponse, body: unknown, caller: Caller): Promise<void> {
    const server = opts.newServer();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.add(id, transport, server, negotiatedVersion(body), caller.subject);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.ended(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  /** The caller when the request passes the path, Origin, Host, authorization and method guards; else it is answered. */
  async function admit(req: IncomingMessage, res: ServerResponse): Promise<Caller | undefined> {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== MCP_PATH) return void jsonRpcError(res, 404, -32000, `Not found: the MCP endpoint is ${MCP_PATH}`);
    if (!originAllowed(req.headers.origin))
      return void jsonRpcError(res, 403, -32000, 'Forbidden: requests from web pages of other sites are refused (Origin)');
    if (!hostAllowed(req.headers.host))
      return void jsonRpcError(res, 403, -32000, 'Forbidden: this server answers only to a loopback host name (Host)');
    const verdict = await listening().auth.authenticate(req);
    if (isDenial(verdict)) return void jsonRpcError(res, verdict.status, -32000, verdict.message, verdict.headers);
    if (!['GET', 'POST', 'DELETE'].includes(req.method ?? ''))
      return void jsonRpcError(res, 405, -32000, 'Method not allowed: use POST, GET or DELETE', { allow: 'GET, POST, DELETE' });
    return verdict;
  }

  return async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (listening().auth.serve?.(req, res)) return;
    const caller = await admit(req, res);
    if (!caller) return;

    const id = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(id) ? id[0] : id;
    const session = sessionId ? sessions.use(sessionId, caller.subject) : undefined;
    if (sessionId && !session) {
      jsonRpcError(res, 404, -32001, 'Session not found: it ended, was closed to make room, or the server restarted; initialize a new one');
      return req.method === 'POST' ? lingerThenClose(req) : undefined;
    }

    let body: unknown;
    if (req.method === 'POST') {
      const read = await readBody(req, res);
      if (!read.ok) {
        const { status, code, message } = read.refusal;
        jsonRpcError(res, status, code, message);
        return lingerThenClose(req);
      }
      body = read.value;
      const invalid = invalidRequest(body, session?.protocolVersion);
      if (invalid) return jsonRpcError(res, 400, -32600, invalid.message, {}, invalid.id);
    }

    if (session) {
      if (req.method !== 'POST') return session.transport.handleRequest(req, res, body);
      return sessions.serve(session, () => session.transport.handleRequest(req, res, body));
    }
    const messages = Array.isArray(body) ? body : [body];
    if (req.method === 'POST' && messages.some((m) => isInitializeRequest(m))) return openSession(req, res, body, caller);
    const badInitialize = invalidInitialize(body);
    if (badInitialize) return jsonRpcError(res, 400, -32602, badInitialize.message, {}, badInitialize.id);
    return jsonRpcError(res, 400, -32000, 'Bad request: no Mcp-Session-Id; start with an initialize request');
  };
}

export async function startMcpHttp(opts: McpHttpOptions): Promise<McpHttpServer> {
  const sessions = new SessionTable({ max: MAX_SESSIONS, maxPerSubject: MAX_SESSIONS_PER_USER, idleMs: IDLE_MS, log: opts.log });
  const live: { listening?: Listening } = {};
  // Requests come only once the server listens, when `live.listening` is set.
  const handle = requestHandler(opts, sessions, () => live.listening!);
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
  const port = (http.address() as AddressInfo).port;
  const shownHost = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  const url = `http://${shownHost}:${port}${MCP_PATH}`;
  const mcpUrl = opts.publicUrl ?? new URL(url);
  live.listening = { port, auth: opts.auth(mcpUrl) };

  return {
    url,
    mcpUrl: mcpUrl.href,
    sessions: () => sessions.size,
    close: async () => {
      await sessions.closeAll();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
