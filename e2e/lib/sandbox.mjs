// Runs the sandbox the way a user does (`company-data sandbox`, from the built packages/company-data/dist/cli/main.js)
// in a child process, plus a small client for its API and /sandbox/ controls.
import { startCli } from './child-process.mjs';

/**
 * Sandbox answers the checks read (the service's JSON, the fields used).
 * @typedef {{ id: string, event_id: string, status: string, retry_of?: string | null, log: { duplicate: boolean, status_code: number }[] }} SandboxDelivery
 * @typedef {{ id: string, data?: { company?: { name?: string } } }} SandboxEvent
 */

/**
 * Starts `node packages/company-data/dist/cli/main.js sandbox` and resolves when it prints its address.
 * Returns { url, apiKey, call(method, path, body), stop(), logs }.
 * @param {{ repoDir: string, port?: number, host?: string, apiKey: string, companies?: number, dataDir?: string, readyTimeoutMs?: number }} opts
 */
export async function startSandboxCli({
  repoDir,
  port = 0,
  host = '127.0.0.1',
  apiKey,
  companies = 2000,
  dataDir,
  readyTimeoutMs = 60_000,
}) {
  const args = ['sandbox', '--host', host, '--port', String(port), '--companies', String(companies), '--key', apiKey];
  if (dataDir) args.push('--data-dir', dataDir);
  const {
    address: url,
    logs,
    pid,
    exited,
    stop,
  } = await startCli({ repoDir, args, secrets: [apiKey], ready: /Sandbox on (http:\/\/\S+)/, name: 'sandbox', readyTimeoutMs });

  /**
   * @param {string} method
   * @param {string} p path with query, from the root
   * @param {unknown} [body] sent as JSON
   * @returns {Promise<any>} the answer's data (any: the service's JSON; callers read the fields they check)
   */
  const call = async (method, p, body) => {
    const res = await fetch(`${url}${p}`, {
      method,
      headers: { 'x-api-key': apiKey, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    const json = text ? JSON.parse(text) : undefined;
    if (!res.ok) throw new Error(`sandbox ${method} ${p}: HTTP ${res.status} ${text.slice(0, 300)}`);
    return json?.data ?? json;
  };

  return { url, apiKey, call, stop, logs, pid, exited };
}
