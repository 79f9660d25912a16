import { Command, InvalidArgumentError, Option } from 'commander';
import type { Lang } from '@company-data/core/schemas/common';
import { langSchema } from '@company-data/core/vocabulary';
import { addApiOptions, apiTarget, openClient, type ApiFlags } from '../config';
import { version } from '../../../package.json';
import type { McpAuthFactory } from '../../mcp/oauth/strategy';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';

interface McpFlags extends ApiFlags {
  http?: boolean;
  port: number;
  host: string;
  lang: Lang;
  oauthIssuer?: string;
  oauthAudience?: string;
  oauthScope?: string;
  publicUrl?: string;
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
  const cmd = mcpOptions(
    new Command('mcp').description('Serve company data to AI assistants over the Model Context Protocol (stdio, or --http)'),
  );
  addApiOptions(cmd);
  cmd.action((flags: McpFlags) => runMcp(flags));
  return cmd;
}

function mcpOptions(cmd: Command): Command {
  return cmd
    .option('--http', 'serve Streamable HTTP at /mcp instead of stdio; needs COMPANY_DATA_MCP_TOKEN or --oauth-issuer')
    .option('--port <port>', 'HTTP port (0: any free one)', port, 3333)
    .option('--host <host>', 'HTTP address to listen on', '127.0.0.1')
    .addOption(
      new Option(
        '--oauth-issuer <url>',
        "accept OAuth access tokens of this authorization server (your team's sign-in) instead of a static token",
      ).env('COMPANY_DATA_MCP_OAUTH_ISSUER'),
    )
    .addOption(
      new Option(
        '--oauth-audience <aud>',
        'also accept tokens whose audience is this (when the sign-in server cannot use the URL, e.g. an Entra ID application id)',
      ).env('COMPANY_DATA_MCP_OAUTH_AUDIENCE'),
    )
    .addOption(
      new Option('--oauth-scope <scope>', 'the scope assistants ask your sign-in server for, which it must know (default: mcp)').env(
        'COMPANY_DATA_MCP_OAUTH_SCOPE',
      ),
    )
    .addOption(
      new Option('--public-url <url>', "the https address clients use to reach /mcp (behind a reverse proxy); the tokens' audience").env(
        'COMPANY_DATA_MCP_PUBLIC_URL',
      ),
    )
    .addOption(new Option('--lang <lang>', 'language of labels when a call does not set one').argParser(lang).default('en'));
}

type Say = (line: string) => void;

async function runMcp(flags: McpFlags): Promise<void> {
  const say: Say = (line) => process.stderr.write(`${line}\n`);
  const token = process.env.COMPANY_DATA_MCP_TOKEN?.trim() ?? '';
  // Checked before the sandbox starts, so a mistake costs nothing and says what to set.
  const access = flags.http ? await httpAccess(flags, token, say) : undefined;
  if (!flags.http && (flags.oauthIssuer || flags.publicUrl)) say('Note: --oauth-issuer and --public-url apply to --http only.');
  if (flags.http && !flags.oauthIssuer && flags.oauthScope) say('Note: --oauth-scope applies with --oauth-issuer only.');
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
  let close: () => Promise<void> = async () => undefined;
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await close().catch(() => undefined);
    await opened.close().catch(() => undefined);
    process.exit(0);
  };
  close = access
    ? await serveHttp(flags, access, () => createMcpServer(ctx), say)
    : await serveStdio(createMcpServer(ctx), () => void ctx.idle().then(stop));
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}

/** Streamable HTTP at /mcp; returns how to close it. */
async function serveHttp(
  flags: McpFlags,
  access: Awaited<ReturnType<typeof httpAccess>>,
  newServer: () => Server,
  say: Say,
): Promise<() => Promise<void>> {
  const { startMcpHttp, isLoopback } = await import('../../mcp/http');
  const http = await startMcpHttp({ host: flags.host, port: flags.port, ...access, newServer, log: say });
  if (!isLoopback(flags.host))
    say(`Warning: listening on ${flags.host}, reachable from other machines; put TLS in front of it (the token travels in every request).`);
  say(`MCP server listening on ${http.url}`);
  if (http.mcpUrl !== http.url) say(`Clients connect to ${http.mcpUrl}`);
  return http.close;
}

/** The protocol over stdin/stdout; `ended` runs once the assistant closes stdin. Returns how to close it. */
async function serveStdio(server: Server, ended: () => void): Promise<() => Promise<void>> {
  const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
  await server.connect(new StdioServerTransport());
  // The assistant ends the server by closing its stdin; calls it already sent are answered first.
  // (A pause first: the calls in the last chunk of input start on the ticks after 'end' is emitted.)
  process.stdin.once('end', () => void new Promise((r) => setTimeout(r, 100)).then(ended));
  return () => server.close();
}

/**
 * Who may call the HTTP server: OAuth access tokens of --oauth-issuer, or the static token. The
 * issuer's metadata and keys are read here, so a wrong address stops the command before anything starts.
 */
async function httpAccess(flags: McpFlags, token: string, say: (line: string) => void): Promise<{ auth: McpAuthFactory; publicUrl?: URL }> {
  // Loaded here, as the server is: the other commands do not pay for the MCP SDK and jose.
  const [{ isLoopback }, { discoverIssuer, secureUrl }, { DEFAULT_SCOPE, mcpPublicUrl, oauthResourceServer, scopeName }, { staticToken }] =
    await Promise.all([
      import('../../mcp/http'),
      import('../../mcp/oauth/issuer'),
      import('../../mcp/oauth/resource-server'),
      import('../../mcp/oauth/strategy'),
    ]);
  const publicUrl = flags.publicUrl ? mcpPublicUrl(secureUrl(flags.publicUrl, '--public-url')) : undefined;
  if (flags.oauthIssuer) {
    if (!publicUrl && !isLoopback(flags.host))
      throw new Error(
        `--public-url: is required with --oauth-issuer on ${flags.host}: the https address clients use for /mcp, which tokens must be issued for`,
      );
    if (token) say('Note: COMPANY_DATA_MCP_TOKEN is not accepted with --oauth-issuer; clients sign in instead.');
    const scope = flags.oauthScope === undefined ? DEFAULT_SCOPE : scopeName(flags.oauthScope, '--oauth-scope');
    const issuer = await discoverIssuer(flags.oauthIssuer);
    say(`OAuth: accepting access tokens of ${issuer.issuer} (metadata ${issuer.metadataUrl}); clients ask for the scope "${scope}"`);
    const audience = flags.oauthAudience?.trim() || undefined;
    return { auth: oauthResourceServer(issuer, { audience, scope, log: say }), publicUrl };
  }
  if (!token)
    throw new Error(
      'COMPANY_DATA_MCP_TOKEN: is required with --http (or sign-in with --oauth-issuer); set it to a long random secret that clients send as "Authorization: Bearer <token>"',
    );
  if (token.length < 16) throw new Error('COMPANY_DATA_MCP_TOKEN: must be at least 16 characters');
  return { auth: staticToken(token), publicUrl };
}
