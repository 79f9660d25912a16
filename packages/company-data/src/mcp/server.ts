/**
 * The MCP server of `company-data mcp`: tools from the operation table, resources and prompts, over
 * one client. A server object serves one connection (the SDK's rule); the HTTP mode makes one per
 * session over the same McpContext, so sessions share the client, its rate limit and the answers
 * already paid for.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { LookupCache } from '@company-data/core/bulk-lookup';
import type { CoreClient } from '@company-data/core/client';
import { CompanyDataError, redact } from '@company-data/core/errors';
import { operationGroups } from '@company-data/core/operations';
import type { LookupResult } from '@company-data/core/schemas/company';
import { errorResult, runTool, toolResult } from './call';
import { cleanErrors, noCursor } from './jsonrpc-errors';
import { getPrompt, promptList, readResource, resourceList, resourceTemplates } from './resources';
import { toolByName, toolName, tools } from './tools';

export interface McpContextOptions {
  client: CoreClient;
  /** Answers come from the in-process sandbox (synthetic data): the instructions say so. */
  offline: boolean;
  /** Language of labels when a call does not set one. */
  lang: string;
  /** Strings that must never appear in an answer (the API key, the HTTP token). */
  secrets: readonly string[];
  /** One line per call, for the operator's log (stderr); never the arguments or the answer. */
  log?: (line: string) => void;
  version: string;
}

/** Distinct lookup answers kept for reuse by later calls; the oldest go first past this. */
const LOOKUP_MEMORY = 10_000;

export interface McpContext extends McpContextOptions {
  lookupCache(limit: number, lang: string): LookupCache;
  /** Resolves once no tool call is running (at once when none is): a server told to stop first answers what it took. */
  idle(): Promise<void>;
  track<T>(work: Promise<T>): Promise<T>;
}

export function mcpContext(opts: McpContextOptions): McpContext {
  const answers = new Map<string, LookupResult>();
  const running = new Set<Promise<unknown>>();
  return {
    ...opts,
    track: (work) => {
      running.add(work);
      void work.finally(() => running.delete(work)).catch(() => undefined);
      return work;
    },
    idle: async () => {
      while (running.size) await Promise.allSettled([...running]);
    },
    lookupCache: (limit, lang) => ({
      get: (key) => answers.get(`${limit}|${lang}|${key}`),
      set: (key, result) => {
        answers.set(`${limit}|${lang}|${key}`, result);
        if (answers.size > LOOKUP_MEMORY) answers.delete(answers.keys().next().value!);
      },
    }),
  };
}

function instructions(ctx: McpContext): string {
  return [
    'Estonian company data: registry profiles, people and ownership, annual reports and taxes, credit scores, court and enforcement records, assets, monitoring lists and saved searches.',
    ctx.offline
      ? 'OFFLINE SANDBOX: no API key is configured, so every answer comes from a built-in sandbox with synthetic companies, not real ones. Say so when you answer.'
      : 'Answers come from the live service.',
    `Find a company with ${toolName(operationGroups.companies.search)} (by name) or ${toolName(operationGroups.companies.lookup)} (many codes, VAT numbers or names at once, billed per query); most other tools take its 8-digit registry_code.`,
    'Answers are compact by default; pass full=true for the whole object. Lists come a page at a time: follow how_to_get_more when you need more.',
    `Labels are in ${ctx.lang === 'et' ? 'Estonian' : ctx.lang === 'ru' ? 'Russian' : 'English'} unless a call sets lang.`,
  ].join(' ');
}

/** A protocol error for a request this server cannot serve (unknown tool, resource or prompt). */
function protocolError(err: unknown, secrets: readonly string[]): McpError {
  if (err instanceof McpError) return err;
  if (err instanceof CompanyDataError)
    return new McpError(
      err.code === 'invalid_parameter' ? ErrorCode.InvalidParams : ErrorCode.InternalError,
      redact(`${err.message}. ${err.hint}`, secrets),
    );
  return new McpError(ErrorCode.InternalError, redact(err instanceof Error ? err.message : String(err), secrets));
}

export function createMcpServer(ctx: McpContext): Server {
  const server = new Server(
    { name: 'company-data', title: 'Company Data (Estonia)', version: ctx.version },
    { capabilities: { tools: {}, resources: {}, prompts: {} }, instructions: instructions(ctx) },
  );
  cleanErrors(server);

  server.setRequestHandler(ListToolsRequestSchema, (req) => {
    noCursor(req.params, 'tools');
    return { tools: tools.map((t) => t.definition) };
  });

  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const tool = toolByName.get(req.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool ${req.params.name}: list the tools to see their names`);
    const started = Date.now();
    try {
      const structured = await ctx.track(
        runTool({ client: ctx.client, lookupCache: ctx.lookupCache, signal: extra.signal }, tool, req.params.arguments ?? {}),
      );
      ctx.log?.(`${tool.name}: ok, ${structured.count} rows, ${Date.now() - started} ms`);
      return toolResult(structured);
    } catch (err) {
      const result = errorResult(err, ctx.secrets);
      ctx.log?.(`${tool.name}: error${err instanceof CompanyDataError ? ` ${err.code}` : ''}, ${Date.now() - started} ms`);
      return result;
    }
  });

  server.setRequestHandler(ListResourcesRequestSchema, (req) => {
    noCursor(req.params, 'resources');
    return { resources: resourceList };
  });
  server.setRequestHandler(ListResourceTemplatesRequestSchema, (req) => {
    noCursor(req.params, 'resource templates');
    return { resourceTemplates };
  });
  server.setRequestHandler(ReadResourceRequestSchema, async (req) => {
    try {
      return await readResource(ctx.client, req.params.uri);
    } catch (err) {
      throw protocolError(err, ctx.secrets);
    }
  });

  server.setRequestHandler(ListPromptsRequestSchema, (req) => {
    noCursor(req.params, 'prompts');
    return { prompts: promptList };
  });
  server.setRequestHandler(GetPromptRequestSchema, (req) => {
    try {
      return getPrompt(req.params.name, req.params.arguments);
    } catch (err) {
      throw protocolError(err, ctx.secrets);
    }
  });

  return server;
}
