/**
 * `company-data mcp --http --oauth-issuer URL` as its own process, signing users in through the team's
 * authorization server (a stand-in shaped like a Keycloak realm: OpenID discovery under
 * /realms/team): the official SDK client with an auth provider passing the access token, the RFC 9728
 * metadata and the WWW-Authenticate that point an assistant to the sign-in, and every token the server
 * must refuse: another audience, expired, forged, without audience, of another issuer, in the URL.
 */
import { request } from 'node:http';
import { spawn, type ChildProcess } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliBundle } from '../../drills/support/cli';
import { waitFor } from '../../support/wait-for';
import { startAuthServerStandIn, type AuthServerStandIn } from '../../support/oauth-issuer';
import { startTestServer } from '../../support/http-server';
import { API_KEY, cliEnv, startMcpSandbox, structured, type Sb } from './support';

let sb: Sb;
let as: AuthServerStandIn;
const children: ChildProcess[] = [];
/** What each server printed so far. */
const printed: (() => string)[] = [];
/** Everything the servers printed and answered, to look for tokens in. */
const seen: string[] = [];
const tokens: string[] = [];

interface Running {
  url: string;
  stderr: () => string;
}

/** Starts `company-data mcp` with these arguments; resolves on the listening line, or rejects with its stderr when it exits. */
function startCli(args: string[], env: Record<string, string>): Promise<Running> {
  const child = spawn(process.execPath, [cliBundle(), 'mcp', ...args, '--base-url', sb.url], {
    env: cliEnv({ COMPANY_DATA_API_KEY: API_KEY, ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  children.push(child);
  printed.push(() => stderr);
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(Object.assign(new Error(`exited ${code}: ${stderr}`), { code, stderr })));
    void waitFor(() => /MCP server listening on (\S+)/.exec(stderr), 20_000, 'the listening line').then(
      (m) => resolve({ url: m![1]!, stderr: () => stderr }),
      reject,
    );
  });
}

/** A start that must fail: its exit code and stderr. */
async function failedStart(args: string[], env: Record<string, string> = {}): Promise<{ code: unknown; stderr: string }> {
  const err = (await startCli(['--http', '--port', '0', ...args], env).then(
    () => undefined,
    (e: unknown) => e,
  )) as { code: unknown; stderr: string };
  expect(err, 'the server started').toBeDefined();
  return err;
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** A raw request, so the test sets every header (Host included). */
function raw(url: string, method: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path: `${u.pathname}${u.search}`, method, headers }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => {
        seen.push(JSON.stringify(res.headers), text);
        resolve({ status: res.statusCode!, headers: res.headers, text });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});
const mcpHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const withToken = (token: string) => ({ ...mcpHeaders, authorization: `Bearer ${token}` });

/**
 * What an assistant holds after its user signed in: the access token, handed to the SDK through its
 * auth provider interface. Sign-in itself (a browser) is not driven: the provider records where the
 * SDK would send the user.
 */
class SignedIn implements OAuthClientProvider {
  authorizationUrl?: URL;
  constructor(private readonly token: string) {}
  get redirectUrl() {
    return 'http://127.0.0.1:9/callback';
  }
  get clientMetadata() {
    return { client_name: 'company-data tests', redirect_uris: ['http://127.0.0.1:9/callback'] };
  }
  clientInformation() {
    return { client_id: 'company-data-tests' };
  }
  tokens() {
    return { access_token: this.token, token_type: 'Bearer' };
  }
  saveTokens() {}
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier() {}
  codeVerifier() {
    return 'verifier';
  }
}

async function connect(url: string, token: string) {
  const provider = new SignedIn(token);
  const client = new Client({ name: 'company-data-tests', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
  const connected = client.connect(transport).then(() => client);
  return { provider, connected };
}

/** An access token the stand-in signs, kept to check that none is ever printed. */
async function token(claims: Parameters<AuthServerStandIn['sign']>[0], opts?: Parameters<AuthServerStandIn['sign']>[1]) {
  const t = await as.sign(claims, opts);
  tokens.push(t);
  return t;
}

const now = () => Math.floor(Date.now() / 1000);

beforeAll(async () => {
  [sb, as] = await Promise.all([startMcpSandbox(), startAuthServerStandIn({ path: '/realms/team', discovery: 'oidc' })]);
});

afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
  await Promise.all(children.map((c) => (c.exitCode !== null ? undefined : new Promise((r) => c.once('exit', r)))));
  await Promise.all([sb?.close(), as?.close()]);
});

describe('mcp --http --oauth-issuer (on this machine)', () => {
  let srv: Running;
  let metadataUrl: string;
  beforeAll(async () => {
    srv = await startCli(['--http', '--port', '0', '--oauth-issuer', as.issuer], {});
    metadataUrl = `${new URL(srv.url).origin}/.well-known/oauth-protected-resource/mcp`;
  });

  it('reads the issuer at start and says so', () => {
    expect(srv.stderr()).toContain(
      `OAuth: accepting access tokens of ${as.issuer} (metadata ${as.issuer}/.well-known/openid-configuration); clients ask for the scope "mcp"`,
    );
  });

  it('publishes its protected resource metadata (RFC 9728) at the path-inserted and the bare address', async () => {
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const res = await raw(`${new URL(srv.url).origin}${path}`, 'GET', {});
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/json');
      expect(JSON.parse(res.text)).toEqual({
        resource: srv.url,
        authorization_servers: [as.issuer],
        scopes_supported: ['mcp'],
        bearer_methods_supported: ['header'],
        resource_name: expect.any(String),
      });
    }
  });

  it('answers 401 without a token, naming the metadata and the scope to ask for (and no error code: nothing was sent)', async () => {
    const res = await raw(srv.url, 'POST', mcpHeaders, initialize);
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe(`Bearer resource_metadata="${metadataUrl}", scope="mcp"`);
    expect(JSON.parse(res.text).error.message).toContain(as.issuer);
  });

  it('serves the SDK client signed in with a token issued for it: tools and a call', async () => {
    const good = await token({ aud: srv.url });
    const { connected } = await connect(srv.url, good);
    const client = await connected;
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('companies_get');
      const s = structured(await client.callTool({ name: 'companies_get', arguments: { registry_code: '13545698' } }));
      expect(s.items[0]!.registry_code).toBe('13545698');
    } finally {
      await client.close();
    }
  });

  it('accepts an audience list holding its URL, and a token a little past expiry (clock skew)', async () => {
    const listed = await token({ aud: ['https://other.example.test', srv.url] });
    expect((await raw(srv.url, 'POST', withToken(listed), initialize)).status).toBe(200);
    const skewed = await token({ aud: srv.url, iat: now() - 600, exp: now() - 20 });
    expect((await raw(srv.url, 'POST', withToken(skewed), initialize)).status).toBe(200);
  });

  /** Each case makes its token given this server's URL (its right audience). */
  it.each<[string, (aud: string) => Promise<string>, RegExp]>([
    [
      'issued for another service',
      () => token({ aud: 'https://other.example.test/mcp' }),
      /issued for another service; its audience \(aud\) must be http:\/\/127\.0\.0\.1:\d+\/mcp/,
    ],
    ['expired (past the minute of clock skew)', (aud) => token({ aud, iat: now() - 3600, exp: now() - 120 }), /expired/],
    ['without an audience', () => token({ aud: undefined }), /names no audience \(aud\)/],
    ['of another issuer', (aud) => token({ aud, iss: 'https://evil.example.test/realms/team' }), /issued by another authorization server/],
    ['without an expiry', (aud) => token({ aud, exp: undefined }), /no exp claim/],
    ['without a subject (sessions belong to it)', (aud) => token({ aud, sub: undefined }), /no sub claim/],
    // A key the issuer does not publish: 401 or, within 30 s of the last read of the keys, 503 (it may be
    // new): oauth/resource-server.test.ts and oauth/sign-in-http.test.ts, whose clock the test sets.
    [
      "forged: signed by another key under the real key's id",
      async (aud) => token({ aud }, { key: await as.foreignKey(), kid: as.currentKid() }),
      /signature does not verify/,
    ],
    [
      'tampered: audience changed after signing',
      async (aud) => {
        const [h, p, s] = (await token({ aud: 'https://other.example.test/mcp' })).split('.');
        const claims = { ...(JSON.parse(Buffer.from(p!, 'base64url').toString()) as object), aud };
        return `${h}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${s}`;
      },
      /signature does not verify/,
    ],
    ['not a JWT at all', async () => 'mcp_token_0a1b2c3d4e5f6a7b8c9d', /not a signed JWT/],
    [
      'signed with a shared secret (HS256) under the real key id',
      async (aud) => {
        const t = await new SignJWT({ iss: as.issuer, aud, exp: now() + 300 })
          .setProtectedHeader({ alg: 'HS256', kid: as.currentKid() })
          .sign(new TextEncoder().encode('a secret anybody could pick, 32+ bytes long'));
        tokens.push(t);
        return t;
      },
      /algorithm this server does not accept/,
    ],
    [
      'unsigned (alg none)',
      async (aud) => {
        const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
        return `${part({ alg: 'none' })}.${part({ iss: as.issuer, aud, exp: now() + 300 })}.`;
      },
      /algorithm this server does not accept|not a signed JWT/,
    ],
  ])('refuses a token %s: 401 invalid_token naming the metadata', async (_name, make, problem) => {
    const res = await raw(srv.url, 'POST', withToken(await make(srv.url)), initialize);
    expect(res.status).toBe(401);
    const challenge = res.headers['www-authenticate'] as string;
    expect(challenge).toContain(`resource_metadata="${metadataUrl}"`);
    expect(challenge).toContain('error="invalid_token"');
    expect(challenge).toMatch(problem);
    expect(JSON.parse(res.text).error.message).toMatch(problem);
  });

  it('refuses a token in the query string, even a good one (400 invalid_request)', async () => {
    const good = await token({ aud: srv.url });
    const res = await raw(`${srv.url}?access_token=${good}`, 'POST', mcpHeaders, initialize);
    expect(res.status).toBe(400);
    expect(res.headers['www-authenticate']).toContain('error="invalid_request"');
    expect(JSON.parse(res.text).error.message).toMatch(/never in the URL/);
  });

  it("sends the SDK client with a bad token to the team's sign-in, for this resource (RFC 8707)", async () => {
    const { provider, connected } = await connect(srv.url, await token({ aud: 'https://other.example.test/mcp' }));
    await expect(connected).rejects.toThrow(/Unauthorized/);
    const to = provider.authorizationUrl!;
    expect(to, 'the SDK did not start a sign-in').toBeDefined();
    expect(`${to.origin}${to.pathname}`).toBe(`${as.issuer}/authorize`);
    expect(to.searchParams.get('resource')).toBe(srv.url);
    expect(to.searchParams.get('scope')).toBe('mcp');
    expect(to.searchParams.get('client_id')).toBe('company-data-tests');
  });
});

describe('mcp --http --oauth-issuer behind a reverse proxy (--public-url)', () => {
  const PUBLIC = 'https://mcp.example.test';
  let srv: Running;
  beforeAll(async () => {
    // Set by environment, as a service unit would.
    srv = await startCli(['--http', '--port', '0'], {
      COMPANY_DATA_MCP_OAUTH_ISSUER: as.issuer,
      COMPANY_DATA_MCP_PUBLIC_URL: PUBLIC,
      COMPANY_DATA_MCP_OAUTH_SCOPE: 'company-data',
    });
  });
  const viaProxy = (headers: Record<string, string> = {}) => ({ ...headers, host: 'mcp.example.test' });

  it('takes the public address as the resource: /mcp added to an origin, the metadata and 401s name it, with the scope set', async () => {
    // Printed just after the listening line startCli waits for: it may arrive a moment later.
    await waitFor(() => srv.stderr().includes(`Clients connect to ${PUBLIC}/mcp`), 10_000, 'the public address line');
    const doc = await raw(`${new URL(srv.url).origin}/.well-known/oauth-protected-resource/mcp`, 'GET', viaProxy());
    expect(JSON.parse(doc.text)).toMatchObject({
      resource: `${PUBLIC}/mcp`,
      authorization_servers: [as.issuer],
      scopes_supported: ['company-data'],
    });
    const res = await raw(srv.url, 'POST', viaProxy(mcpHeaders), initialize);
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe(
      `Bearer resource_metadata="${PUBLIC}/.well-known/oauth-protected-resource/mcp", scope="company-data"`,
    );
  });

  it('accepts a token issued for the public URL, with the Host the proxy passes on; refuses one for the local address', async () => {
    const ok = await raw(srv.url, 'POST', viaProxy(withToken(await token({ aud: `${PUBLIC}/mcp` }))), initialize);
    expect(ok.status).toBe(200);
    const local = await raw(srv.url, 'POST', viaProxy(withToken(await token({ aud: srv.url }))), initialize);
    expect(local.status).toBe(401);
    expect(JSON.parse(local.text).error.message).toContain(`must be ${PUBLIC}/mcp`);
    // Another host name is still refused (DNS rebinding), and so are web pages of other sites.
    const rebound = await raw(
      srv.url,
      'POST',
      { ...withToken(await token({ aud: `${PUBLIC}/mcp` })), host: 'evil.example.test' },
      initialize,
    );
    expect(rebound.status).toBe(403);
  });
});

describe('mcp --http --oauth-issuer: what stops it at start', () => {
  it('an issuer it cannot reach: exits 1 naming the addresses tried, before serving anyone', async () => {
    const gone = await startTestServer();
    await gone.close();
    const { code, stderr } = await failedStart(['--oauth-issuer', `${gone.url}/realms/team`]);
    expect(code).toBe(1);
    expect(stderr).toMatch(
      /--oauth-issuer: no authorization server metadata .* could be read for http:\/\/127\.0\.0\.1:\d+\/realms\/team; tried /,
    );
    expect(stderr).toContain('/.well-known/oauth-authorization-server/realms/team (ECONNREFUSED)');
    expect(stderr).not.toMatch(/listening/);
  });

  it('an address reachable from other machines without --public-url (the tokens must name the address clients use)', async () => {
    const { code, stderr } = await failedStart(['--host', '0.0.0.0', '--oauth-issuer', as.issuer]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/--public-url: is required with --oauth-issuer on 0\.0\.0\.0/);
  });

  it('a scope that is not one scope name', async () => {
    const { code, stderr } = await failedStart(['--oauth-issuer', as.issuer, '--oauth-scope', 'mcp read']);
    expect(code).toBe(1);
    expect(stderr).toMatch(/--oauth-scope: "mcp read" is not one scope name/);
  });

  it('a plain-http public URL or issuer on another machine', async () => {
    expect((await failedStart(['--oauth-issuer', as.issuer, '--public-url', 'http://mcp.example.test'])).stderr).toMatch(
      /--public-url: must be an https:\/\/ address/,
    );
    expect((await failedStart(['--oauth-issuer', 'http://sso.example.test/realms/team'])).stderr).toMatch(
      /--oauth-issuer: must be an https:\/\/ address/,
    );
  });

  it('neither the API key nor any access token is in any answer or log line', () => {
    const logs = printed.map((p) => p()).join('\n');
    const all = `${seen.join('\n')}\n${logs}`;
    expect(tokens.length).toBeGreaterThan(10);
    expect(logs).toMatch(
      /token refused: the access token was issued for another service; .* \(its aud: "https:\/\/other\.example\.test\/mcp"\)/,
    );
    for (const secret of [API_KEY, ...tokens]) expect(all).not.toContain(secret);
    for (const t of tokens) expect(all).not.toContain(t.split('.')[2]!);
  });
});
