// Runs the MCP server the way a user does (`company-data mcp --http`, from the built
// packages/company-data/dist/cli/main.js) in a child process, for n8n's MCP Client Tool to connect to.
import { randomBytes } from 'node:crypto';
import { startCli } from './child-process.mjs';

const LISTENING = /MCP server listening on (http:\/\/\S+\/mcp)/;

/**
 * Starts `company-data mcp --http --port 0` and resolves when it prints its address.
 * baseUrl + apiKey: a running sandbox (or service) to serve; without them the CLI starts its in-process
 * sandbox. The API key and the token go through the environment, never the command line (process lists).
 * Returns { url (ending in /mcp), token, logs, pid, exited, close() }. The child is killed on every path:
 * close(), a failed start, and the exit of this process.
 * @param {{ repoDir: string, baseUrl?: string, apiKey?: string, token?: string, host?: string, port?: number, readyTimeoutMs?: number }} opts
 */
export async function startMcpServer({
  repoDir,
  baseUrl,
  apiKey,
  token = `mcp_${randomBytes(24).toString('hex')}`,
  host = '127.0.0.1',
  port = 0,
  readyTimeoutMs = 60_000,
}) {
  const args = ['mcp', '--http', '--host', host, '--port', String(port)];
  if (baseUrl) args.push('--base-url', baseUrl);
  /** @type {NodeJS.ProcessEnv} */
  const env = { ...process.env, COMPANY_DATA_MCP_TOKEN: token };
  // Without a target of its own, inherited variables must not point the server elsewhere.
  delete env.COMPANY_DATA_BASE_URL;
  delete env.COMPANY_DATA_API_KEY;
  if (apiKey) env.COMPANY_DATA_API_KEY = apiKey;
  const {
    address: url,
    logs,
    pid,
    exited,
    stop: close,
  } = await startCli({ repoDir, args, env, secrets: [token, apiKey], ready: LISTENING, name: 'company-data mcp', readyTimeoutMs });
  return { url, token, logs, pid, exited, close };
}
