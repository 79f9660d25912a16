/**
 * The MCP server of `company-data mcp`: tools from the operation table, resources and prompts, over
 * one client. A server object serves one connection (the SDK's rule); the HTTP mode makes one per
 * session over the same McpContext, so sessions share the client, its rate limit and the answers
 * already paid for.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  LoggingLevelSchema,
  McpError,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
  type LoggingLevel,
  type ServerNotification,
} from '@modelcontextprotocol/sdk/types.js';
import type { LookupCache } from '@company-data/core/bulk-lookup';
import type { CoreClient } from '@company-data/core/client';
import { CompanyDataError, redact } from '@company-data/core/errors';
import { operationGroups } from '@company-data/core/operations';
import type { LookupResult } from '@company-data/core/schemas/company';
import { errorResult, runTool, toolResult } from './call';
import { cleanErrors, noCursor } from './jsonrpc-errors';
import { complete } from './completions';
import { DUE_DILIGENCE_TOOL, dueDiligenceDefinition, dueDiligenceResult, runDueDiligence } from './due-diligence';
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
    `For "is this company safe to deal with?" call ${DUE_DILIGENCE_TOOL} first: one call, red flags ranked, partial answers named.`,
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

/** Log levels, least severe first (the protocol's order). */
const levels = LoggingLevelSchema.options;
/** What a session gets before it sets a level: what went wrong (a section not checked, a failed call), no routine. */
const DEFAULT_LOG_LEVEL: LoggingLevel = 'warning';

type Send = (n: ServerNotification) => Promise<void>;
type Notify = (level: LoggingLevel, data: string, send?: Send) => void;

export function createMcpServer(ctx: McpContext): Server {
  const server = new Server(
    { name: 'company-data', title: 'Company Data (Estonia)', version: ctx.version },
    {
      capabilities: { tools: {}, resources: {}, prompts: {}, logging: {}, completions: {} },
      instructions: instructions(ctx),
    },
  );
  cleanErrors(server);
  const notify = logMessages(server, ctx);
  serveTools(server, ctx, notify);
  serveCompletions(server, ctx, notify);
  serveResourcesAndPrompts(server, ctx);
  return server;
}

/** The session's log level, and the notify that sends log messages at or above it. */
function logMessages(server: Server, ctx: McpContext): Notify {
  // One server serves one connection (one session), so the level set here is that session's.
  let logLevel: LoggingLevel = DEFAULT_LOG_LEVEL;
  server.setRequestHandler(SetLevelRequestSchema, (req) => {
    logLevel = req.params.level;
    return {};
  });
  /**
   * notifications/message to the client: what the server does (tool calls, due-diligence sections, failures), never the
   * arguments, answers or a secret. Sent on the request's own stream when there is one (HTTP clients get it
   * with the answer); a client that has gone away loses nothing else.
   */
  return (level, data, send) => {
    if (levels.indexOf(level) < levels.indexOf(logLevel)) return;
    const n: ServerNotification = {
      method: 'notifications/message',
      params: { level, logger: 'company-data', data: redact(data, ctx.secrets) },
    };
    void (send ? send(n) : server.notification(n)).catch(() => undefined);
  };
}

/** The operation tools and the due-diligence tool: each call logged (name, outcome, time), errors as tool errors. */
function serveTools(server: Server, ctx: McpContext, notify: Notify): void {
  server.setRequestHandler(ListToolsRequestSchema, (req) => {
    noCursor(req.params, 'tools');
    return { tools: [...tools.map((t) => t.definition), dueDiligenceDefinition] };
  });

  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const name = req.params.name;
    const tool = toolByName.get(name);
    if (!tool && name !== DUE_DILIGENCE_TOOL)
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool ${name}: list the tools to see their names`);
    const send: Send = (n) => extra.sendNotification(n);
    const started = Date.now();
    const call = { client: ctx.client, lookupCache: ctx.lookupCache, signal: extra.signal };
    try {
      if (!tool) {
        const report = await ctx.track(
          runDueDiligence(
            {
              ...call,
              secrets: ctx.secrets,
              onSection: (key, result, ms) =>
                result.ok
                  ? notify('debug', `${name}: ${key} read, ${ms} ms`, send)
                  : notify(
                      'warning',
                      `${name}: ${key} not checked: ${result.error.code}${result.error.status ? ` (HTTP ${result.error.status})` : ''}`,
                      send,
                    ),
            },
            req.params.arguments ?? {},
          ),
        );
        const line = `${name}: ok, risk ${report.risk_level}, ${report.red_flags.length} red flags, ${report.not_checked.length} not checked, ${Date.now() - started} ms`;
        ctx.log?.(line);
        notify(report.complete ? 'info' : 'warning', line, send);
        return dueDiligenceResult(report);
      }
      const structured = await ctx.track(runTool(call, tool, req.params.arguments ?? {}));
      const line = `${tool.name}: ok, ${structured.count} rows, ${Date.now() - started} ms`;
      ctx.log?.(line);
      notify('info', line, send);
      return toolResult(structured);
    } catch (err) {
      const result = errorResult(err, ctx.secrets);
      const line = `${name}: error${err instanceof CompanyDataError ? ` ${err.code}` : ''}, ${Date.now() - started} ms`;
      ctx.log?.(line);
      notify('error', line, send);
      return result;
    }
  });
}

function serveCompletions(server: Server, ctx: McpContext, notify: Notify): void {
  server.setRequestHandler(CompleteRequestSchema, async (req, extra) => {
    try {
      return await complete(
        ctx.client,
        req.params,
        promptList.map((p) => p.name),
        extra.signal,
      );
    } catch (err) {
      // A suggestion list that cannot be had is an empty one: the person types on.
      notify('warning', `completion: ${err instanceof CompanyDataError ? err.code : 'failed'}`, (n) => extra.sendNotification(n));
      return { completion: { values: [], hasMore: false } };
    }
  });
}

function serveResourcesAndPrompts(server: Server, ctx: McpContext): void {
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
}
