/**
 * JSON-RPC errors of the MCP server with the codes the JSON-RPC 2.0 and MCP specifications give them, and
 * messages a person can act on:
 * - -32700 the body is not JSON; -32600 it is JSON but not a JSON-RPC message, or a batch where the session's
 *   protocol version (2025-06-18 and later) forbids batches;
 * - -32601 an unknown method (the SDK answers that itself);
 * - -32602 invalid params: a request that fails the SDK's schema of its method (the SDK would answer -32603
 *   with zod's raw dump), an unknown tool, resource or prompt, a cursor this server never gave out.
 * The SDK's McpError puts "MCP error <code>: " in front of its message and the client adds it again when it
 * reads the answer; the answer carries the message alone.
 */
import type { ServerResponse } from 'node:http';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  ErrorCode,
  InitializeRequestSchema,
  JSONRPCMessageSchema,
  LATEST_PROTOCOL_VERSION,
  McpError,
  SUPPORTED_PROTOCOL_VERSIONS,
  isInitializeRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { isJsonObject } from '@company-data/core/json';

/** The first protocol version without JSON-RPC batches (its Streamable HTTP transport: one message per POST). */
export const NO_BATCHES_FROM = '2025-06-18';
/** Messages a batch may hold at the versions that allow batches (the SDK's own bound). */
export const MAX_BATCH = 100;

type Id = string | number | null;

/** An error the SDK sends as it is: `code`, `message` and `data` are what the answer carries. */
export class JsonRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'JsonRpcError';
  }
}

/** A JSON-RPC error as the whole HTTP answer (the transport's own refusals, before a message reaches the SDK). */
export function jsonRpcError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
  id: Id = null,
): void {
  res
    .writeHead(status, { 'content-type': 'application/json', ...headers })
    .end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id }));
}

const typeName = (v: unknown) =>
  v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : `a ${typeof v}`;

/** The protocol version the SDK's server agrees to for this initialize request (its rule: the client's if supported, else the latest). */
export function negotiatedVersion(initialize: unknown): string {
  const messages = Array.isArray(initialize) ? initialize : [initialize];
  const init = messages.find((m) => isInitializeRequest(m));
  const asked = init?.params.protocolVersion;
  return asked && SUPPORTED_PROTOCOL_VERSIONS.includes(asked) ? asked : LATEST_PROTOCOL_VERSION;
}

/** Why one message is not a JSON-RPC 2.0 message, in the words of the rule it breaks. */
function messageProblem(m: unknown): string | undefined {
  if (JSONRPCMessageSchema.safeParse(m).success) return undefined;
  if (!isJsonObject(m)) return `a message must be a JSON object, not ${typeName(m)}`;
  if (m.jsonrpc !== '2.0') return '"jsonrpc" must be "2.0"';
  if ('id' in m && typeof m.id !== 'string' && !(typeof m.id === 'number' && Number.isFinite(m.id)))
    return '"id" must be a string or a number';
  if (!('method' in m) && !('result' in m) && !('error' in m))
    return 'a message needs a "method" (or, as an answer, a "result" or an "error")';
  if ('method' in m && typeof m.method !== 'string') return '"method" must be a string';
  if ('params' in m && !isJsonObject(m.params)) return `"params" must be an object, not ${typeName(m.params)}`;
  return 'it is not a JSON-RPC 2.0 request, notification or response';
}

const idOf = (m: unknown): Id => (isJsonObject(m) && (typeof m.id === 'string' || typeof m.id === 'number') ? m.id : null);

/**
 * A parsed body that must be refused with -32600 before the SDK sees it, or undefined. `version` is the
 * session's protocol version (none yet for an initialize: then the version that request would agree to).
 */
export function invalidRequest(body: unknown, version: string | undefined): { message: string; id: Id } | undefined {
  if (Array.isArray(body)) {
    const at = version ?? negotiatedVersion(body);
    if (at >= NO_BATCHES_FROM)
      return {
        message: `Invalid Request: JSON-RPC batches are not part of MCP ${at} (removed in ${NO_BATCHES_FROM}); send one message per request`,
        id: null,
      };
    if (body.length === 0) return { message: 'Invalid Request: the batch is empty', id: null };
    if (body.length > MAX_BATCH)
      return { message: `Invalid Request: a batch holds at most ${MAX_BATCH} messages, this one ${body.length}`, id: null };
    for (const [i, m] of body.entries()) {
      const problem = messageProblem(m);
      if (problem) return { message: `Invalid Request: message ${i + 1} of the batch: ${problem}`, id: null };
    }
    return undefined;
  }
  const problem = messageProblem(body);
  return problem ? { message: `Invalid Request: ${problem}`, id: idOf(body) } : undefined;
}

interface Issue {
  code?: string;
  path?: PropertyKey[];
  message?: string;
  expected?: string;
}
const isZodError = (e: unknown): e is Error & { issues: Issue[] } =>
  e instanceof Error && Array.isArray((e as { issues?: unknown }).issues) && /ZodError/.test(e.name);

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let v = root;
  for (const k of path) v = isJsonObject(v) || Array.isArray(v) ? (v as Record<PropertyKey, unknown>)[k] : undefined;
  return v;
}

/** "name is required (text)", "arguments must be an object, not an array": the field under params, the rule, what came. */
function issueText(issue: Issue, request: unknown): string {
  const path = issue.path ?? [];
  const field = (path[0] === 'params' ? path.slice(1) : path).map(String).join('.') || 'params';
  const given = valueAt(request, path);
  const expected = issue.expected === 'record' ? 'object' : issue.expected;
  if (issue.code === 'invalid_type' && expected) {
    const what = expected === 'object' ? 'an object' : expected === 'array' ? 'an array' : `a ${expected}`;
    return given === undefined ? `${field} is required (${what})` : `${field} must be ${what}, not ${typeName(given)}`;
  }
  return `${field}: ${(issue.message ?? 'is not valid').replace(/^Invalid input: /, '')}`;
}

const invalidParams = (request: { method?: unknown }, issues: readonly Issue[]) =>
  `Invalid params for ${String(request.method)}: ${issues.map((i) => issueText(i, request)).join('; ')}`;

/**
 * An initialize request whose params break the protocol's schema (-32602), or undefined. The SDK does not
 * see it as an initialize at all and would answer that the session is missing.
 */
export function invalidInitialize(body: unknown): { message: string; id: Id } | undefined {
  if (!isJsonObject(body) || body.method !== 'initialize') return undefined;
  const read = InitializeRequestSchema.safeParse(body);
  return read.success ? undefined : { message: invalidParams(body, read.error.issues as Issue[]), id: idOf(body) };
}

/** The error a request handler threw, as the answer should carry it. */
export function asJsonRpcError(err: unknown, request: { method?: unknown }): unknown {
  if (isZodError(err)) return new JsonRpcError(ErrorCode.InvalidParams, invalidParams(request, err.issues));
  if (err instanceof McpError) return new JsonRpcError(err.code, err.message.replace(/^MCP error -?\d+: /, ''), err.data);
  return err;
}

type Handler = (request: { method?: unknown }, extra: unknown) => Promise<unknown>;

/**
 * Makes every request handler of `server` (the SDK's own, ours, and any registered later) answer with the
 * codes and messages above. The SDK checks a request's params inside the handler it stores, before ours runs,
 * so the wrapping is around what it stores: its map of handlers, read at each request.
 */
export function cleanErrors(server: Server): void {
  const handlers = (server as unknown as { _requestHandlers?: Map<string, Handler> })._requestHandlers;
  // A later SDK may store them otherwise: then its own answers stand (the tests of this module say so).
  if (!(handlers instanceof Map)) return;
  const get = handlers.get.bind(handlers);
  handlers.get = (method: string) => {
    const handler = get(method);
    return (
      handler &&
      (async (request, extra) => {
        try {
          return await handler(request, extra);
        } catch (err) {
          throw asJsonRpcError(err, request);
        }
      })
    );
  };
}

/**
 * Every list of this server comes in one page (no nextCursor), so any cursor is one it never gave out:
 * -32602, as the MCP pagination rules say of an invalid cursor.
 */
export function noCursor(params: { cursor?: string } | undefined, what: string): void {
  if (params?.cursor !== undefined)
    throw new JsonRpcError(
      ErrorCode.InvalidParams,
      `Invalid params: unknown cursor; this server lists all its ${what} in one page, so list them again without a cursor`,
    );
}
