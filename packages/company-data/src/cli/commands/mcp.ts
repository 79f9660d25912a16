import { Command, InvalidArgumentError, Option } from 'commander';
import type { Lang } from '@company-data/core/schemas/common';
import { langSchema } from '@company-data/core/vocabulary';
import { addApiOptions, apiTarget, openClient, type ApiFlags } from '../config';
import { version } from '../../../package.json';

interface McpFlags extends ApiFlags {
  http?: boolean;
  port: number;
  host: string;
  lang: Lang;
}

const port = (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('port must be a whole number from 0 to 65535');
  return n;
};
const lang = (v: string) => {
  const read = langSchema.safeParse(v);
  if (!read.success) throw new InvalidArgumentError(`lang ${read.error.issues[0]!.message}`);
  return read.data;
};

/**
 * `company-data mcp`: the data as tools for AI assistants (Model Context Protocol). stdio by default
 * (a desktop assistant starts it); --http serves Streamable HTTP for clients that connect to a URL.
 * stdout belongs to the protocol in stdio mode: everything for people goes to stderr.
 */
export function mcpCommand(): Command {
  const cmd = new Command('mcp')
    .description('Serve company data to AI assistants over the Model Context Protocol (stdio, or --http)')
    .option('--http', 'serve Streamable HTTP at /mcp instead of stdio; needs COMPANY_DATA_MCP_TOKEN')
    .option('--port <port>', 'HTTP port (0: any free one)', port, 3333)
    .option('--host <host>', 'HTTP address to listen on', '127.0.0.1')
    .addOption(new Option('--lang <lang>', 'language of labels when a call does not set one').argParser(lang).default('en'));
  addApiOptions(cmd);
  cmd.action(async (flags: McpFlags) => {
    const say = (line: string) => process.stderr.write(`${line}\n`);
    const token = process.env.COMPANY_DATA_MCP_TOKEN?.trim() ?? '';
    // Checked before the sandbox starts, so a mistake costs nothing and says what to set.
    if (flags.http && !token)
      throw new Error(
        'COMPANY_DATA_MCP_TOKEN: is required with --http; set it to a long random secret that clients send as "Authorization: Bearer <token>"',
      );
    if (flags.http && token.length < 16) throw new Error('COMPANY_DATA_MCP_TOKEN: must be at least 16 characters');
    apiTarget(flags);

    const [{ createMcpServer, mcpContext }, opened] = await Promise.all([
      import('../../mcp/server'),
      openClient(flags, say, { lang: flags.lang }),
    ]);
    const ctx = mcpContext({
      client: opened.client,
      offline: opened.offline,
      lang: flags.lang,
      secrets: [flags.apiKey ?? '', token],
      log: flags.http ? say : undefined,
      version,
    });
    let close: () => Promise<void>;
    if (flags.http) {
      const { startMcpHttp, isLoopback } = await import('../../mcp/http');
      const http = await startMcpHttp({ host: flags.host, port: flags.port, token, newServer: () => createMcpServer(ctx), log: say });
      if (!isLoopback(flags.host))
        say(
          `Warning: listening on ${flags.host}, reachable from other machines; put TLS in front of it (the token travels in every request).`,
        );
      say(`MCP server listening on ${http.url}`);
      close = http.close;
    } else {
      const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
      const server = createMcpServer(ctx);
      const transport = new StdioServerTransport();
      await server.connect(transport);
      close = () => server.close();
      // The assistant ends the server by closing its stdin; calls it already sent are answered first.
      // (A pause first: the calls in the last chunk of input start on the ticks after 'end' is emitted.)
      process.stdin.once('end', () => void new Promise((r) => setTimeout(r, 100)).then(ctx.idle).then(stop));
    }
    let stopping = false;
    const stop = async () => {
      if (stopping) return;
      stopping = true;
      await close().catch(() => undefined);
      await opened.close().catch(() => undefined);
      process.exit(0);
    };
    process.once('SIGINT', () => void stop());
    process.once('SIGTERM', () => void stop());
  });
  return cmd;
}
