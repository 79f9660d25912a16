/**
 * An MCP client of the official SDK talking to `company-data mcp` run as its own process (the CLI
 * bundled as users run it), against a sandbox server over real HTTP.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startSandbox } from '../../../packages/company-data/src/sandbox';
import { cliBundle } from '../../drills/support/cli';

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
