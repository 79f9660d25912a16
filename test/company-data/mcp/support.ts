/**
 * An MCP client of the official SDK talking to `company-data mcp` run as its own process (the CLI
 * bundled as users run it), against a sandbox server over real HTTP.
 */
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll } from 'vitest';
import { startSandbox } from '../../../packages/company-data/src/sandbox';
import { cliBundle } from '../../drills/support/cli';
import { waitFor } from '../../support/wait-for';

export const API_KEY = 'sk_live_MCPDRILL_7c6b5a4938271605';
export type Sb = Awaited<ReturnType<typeof startSandbox>>;

export const startMcpSandbox = () =>
  startSandbox({ port: 0, seed: 1, companies: 2000, keys: [{ key: API_KEY, plan: 'api' }], rateLimit: false });

/** The CLI's environment: none of the test runner's COMPANY_DATA_* settings, plus `env`. */
export function cliEnv(env: Record<string, string>): Record<string, string> {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(([k, v]) => v !== undefined && !k.startsWith('COMPANY_DATA_') && !k.startsWith('VITEST')),
  ) as Record<string, string>;
  return { ...base, ...env };
}

export interface StdioMcp {
  client: Client;
  stderr: () => string;
  close(): Promise<void>;
}

export async function connectStdio(args: string[], env: Record<string, string>): Promise<StdioMcp> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cliBundle(), 'mcp', ...args],
    env: cliEnv(env),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name: 'company-data-tests', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

/** A tool call's structured answer (the tests call tools whose answers all have one). */
export function structured(r: unknown): Record<string, unknown> & { items: Record<string, unknown>[] } {
  const res = r as CallToolResult;
  if (res.isError) throw new Error(`tool error: ${JSON.stringify(res.content)}`);
  return res.structuredContent as Record<string, unknown> & { items: Record<string, unknown>[] };
}

export const errorText = (r: unknown): string => {
  const res = r as CallToolResult;
  if (!res.isError) throw new Error(`expected a tool error, got ${JSON.stringify(res.structuredContent).slice(0, 300)}`);
  return res.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
};

export interface HttpMcp {
  /** http://127.0.0.1:<port>/mcp */
  url: string;
  pid: number;
  stderr: () => string;
  close(): Promise<void>;
}

/** `company-data mcp --http --port 0` as its own process, serving `sb` with the token. */
export async function spawnMcpHttp(sb: Sb, token: string): Promise<HttpMcp> {
  const child = spawn(process.execPath, [cliBundle(), 'mcp', '--http', '--port', '0', '--base-url', sb.url], {
    env: cliEnv({ COMPANY_DATA_API_KEY: API_KEY, COMPANY_DATA_MCP_TOKEN: token }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const listening = /MCP server listening on (\S+)/;
  await waitFor(() => listening.test(stderr) || child.exitCode !== null, 20_000, 'the listening line');
  if (child.exitCode !== null) throw new Error(`mcp --http exited ${child.exitCode}: ${stderr}`);
  return {
    url: listening.exec(stderr)![1]!,
    pid: child.pid!,
    stderr: () => stderr,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/**
 * A sandbox and `mcp --http` serving it with the token, for the tests of one file: started before them,
 * stopped after. Read its fields inside tests (they are set once beforeAll has run).
 */
export function mcpHttpFixture(token: string): { readonly sb: Sb; readonly server: HttpMcp } {
  const f = {} as { sb: Sb; server: HttpMcp };
  beforeAll(async () => {
    f.sb = await startMcpSandbox();
    f.server = await spawnMcpHttp(f.sb, token);
  });
  afterAll(async () => {
    await f.server?.close();
    await f.sb?.close();
  });
  return f;
}

/** The official SDK client over Streamable HTTP with the bearer token. */
export async function connectHttp(url: string, token: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: 'company-data-tests', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
  await client.connect(transport);
  return { client, transport };
}

export interface RawAnswer {
  status: number;
  headers: Record<string, unknown>;
  text: string;
}

/** A raw request, so the test controls every header (Host and Origin included) and the body byte for byte. */
export function rawRequest(url: string, method: string, headers: Record<string, string>, body?: string | Buffer): Promise<RawAnswer> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path: u.pathname, method, headers }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
    });
    req.on('error', reject);
    // A large body the server refused by its size: once the answer is in and the request let go of its socket,
    // the rest of the body fails to write (EPIPE). The server's right, and no listener would make it uncaught.
    req.on('socket', (socket) => socket.on('error', () => undefined));
    req.end(body);
  });
}

/** Headers of a POST the Streamable HTTP transport accepts. */
export const mcpHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** An initialize request at `protocolVersion`. */
export const initializeMessage = (protocolVersion = '2025-06-18', id: number | string = 1) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});
