/**
 * Sign-in as the official SDK client does it, over real HTTP, against `mcp --http`'s server with the OAuth
 * resource server in front and an authorization server that, like oidc-provider, refuses a request that
 * asks for no scope: the scope it should ask for comes from the server's challenge and metadata; sessions
 * belong to the signed-in user and are capped per user; a token of a key rotated in since the keys were
 * last read is answered with words that say so, and passes once they are read again.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformation, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startMcpHttp, type McpHttpServer } from '../../../../packages/company-data/src/mcp/http';
import { discoverIssuer } from '../../../../packages/company-data/src/mcp/oauth/issuer';
import { oauthResourceServer } from '../../../../packages/company-data/src/mcp/oauth/resource-server';
import { startAuthServerStandIn, type AuthServerStandIn, type StandInOptions } from '../../../support/oauth-issuer';
import { initializeMessage, mcpHeaders, rawRequest } from '../support';

const REDIRECT = 'http://127.0.0.1:9/callback';
const closing: (() => Promise<unknown>)[] = [];

afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(closing.splice(0).map((close) => close()));
});

/** The authorization server and `mcp --http` (a bare SDK server per session) accepting its tokens. */
async function signInSetup(opts: StandInOptions & { scope?: string } = {}): Promise<{ as: AuthServerStandIn; http: McpHttpServer }> {
  const as = await startAuthServerStandIn({ path: '/realms/team', discovery: 'oidc', ...opts });
  closing.push(() => as.close());
  const http = await startMcpHttp({
    host: '127.0.0.1',
    port: 0,
    auth: oauthResourceServer(await discoverIssuer(as.issuer), { scope: opts.scope }),
    newServer: () => new Server({ name: 'sign-in', version: '1' }, { capabilities: {} }),
  });
  closing.push(() => http.close());
  return { as, http };
}

/**
 * An assistant left to the SDK's defaults: pre-registered, no scope of its own in its metadata. The
 * browser step is the test's: it follows the authorization URL the SDK hands over.
 */
class Assistant implements OAuthClientProvider {
  authorizationUrl?: URL;
  private saved?: OAuthTokens;
  private verifier = '';
  constructor(token?: string) {
    if (token) this.saved = { access_token: token, token_type: 'Bearer' };
  }
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata() {
    return { client_name: 'company-data tests', redirect_uris: [REDIRECT] };
  }
  clientInformation(): OAuthClientInformation {
    return { client_id: 'company-data-tests' };
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

async function connect(url: string, assistant: Assistant) {
  const client = new Client({ name: 'company-data-tests', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: assistant });
  await client.connect(transport);
  closing.push(() => client.close());
  return { client, transport };
}

/** What connecting ends with when it fails (settled here, so no rejection waits for a handler). */
const failure = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e as Error,
  );

/** The browser's part: the authorization server answers the authorization URL with a redirect back. */
async function visit(url: URL): Promise<URLSearchParams> {
  const res = await fetch(url, { redirect: 'manual' });
  expect(res.status).toBe(302);
  const back = new URL(res.headers.get('location')!);
  expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
  return back.searchParams;
}

/** Signs in as the SDK does: 401, the challenge's scope, the browser, the code traded for a token. */
async function signIn(url: string): Promise<{ assistant: Assistant; scope: string | null }> {
  const assistant = new Assistant();
  const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: assistant });
  const first = new Client({ name: 'company-data-tests', version: '1.0.0' });
  expect(await failure(first.connect(transport))).toBeInstanceOf(UnauthorizedError);
  const to = assistant.authorizationUrl!;
  expect(to, 'the SDK did not start a sign-in').toBeDefined();
  const back = await visit(to);
  expect(back.get('error_description')).toBeNull();
  await transport.finishAuth(back.get('code')!);
  return { assistant, scope: to.searchParams.get('scope') };
}

describe('sign-in with the SDK client: the scope', () => {
  it('an assistant with no scope of its own asks for the one the server names, and an authorization server that wants one signs it in', async () => {
    const { as, http } = await signInSetup();
    const { assistant, scope } = await signIn(http.url);
    expect(scope).toBe('mcp');
    const { client } = await connect(http.url, assistant);
    await client.ping();
    expect(JSON.parse(Buffer.from(assistant.tokens()!.access_token.split('.')[1]!, 'base64url').toString())).toMatchObject({
      aud: http.url,
      scope: 'mcp',
      iss: as.issuer,
    });

    // Without the scope the same request is refused (what the SDK did while the server named none).
    const noScope = new URL(assistant.authorizationUrl!);
    noScope.searchParams.delete('scope');
    expect((await visit(noScope)).get('error')).toBe('invalid_request');
  });

  it('names the scope given (--oauth-scope) in the challenge and the metadata; the sign-in asks for it', async () => {
    const { http } = await signInSetup({ scope: 'company-data:read', scopes: ['openid', 'company-data:read'] });
    const res = await rawRequest(http.url, 'POST', mcpHeaders, JSON.stringify(initializeMessage()));
    expect(res.status).toBe(401);
    const metadataUrl = `${new URL(http.url).origin}/.well-known/oauth-protected-resource/mcp`;
    expect(res.headers['www-authenticate']).toBe(`Bearer resource_metadata="${metadataUrl}", scope="company-data:read"`);
    const doc = await rawRequest(metadataUrl, 'GET', {});
    expect(JSON.parse(doc.text)).toMatchObject({ scopes_supported: ['company-data:read'] });
    const { assistant, scope } = await signIn(http.url);
    expect(scope).toBe('company-data:read');
    await (await connect(http.url, assistant)).client.ping();
  });
});

describe('sessions of signed-in users', () => {
  it("belong to the user who opened them: one opening sessions in a loop closes only their own, and cannot use another's", async () => {
    const { as, http } = await signInSetup();
    const tokenOf = (sub: string) => as.sign({ aud: http.url, sub });
    const alice = await connect(http.url, new Assistant(await tokenOf('alice')));
    const bobToken = await tokenOf('bob');
    const bobFirst = await connect(http.url, new Assistant(bobToken));
    for (let i = 0; i < 14; i++) {
      const c = await connect(http.url, new Assistant(bobToken));
      await c.client.ping();
      await c.client.close(); // the SDK's close: no DELETE, the session stays open on the server
    }
    // Bob holds his 10 at most; Alice's session, older than all of Bob's, is still there and answers.
    expect(http.sessions()).toBe(11);
    await alice.client.ping();
    // Bob's first session was his least recently used: it went to make room for his newer ones.
    const gone = await failure(bobFirst.client.ping());
    expect(gone).toBeInstanceOf(StreamableHTTPError);
    expect((gone as StreamableHTTPError).code).toBe(404);

    // Bob's token with Alice's session id: as if it did not exist.
    const ping = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' });
    const aliceSession = { 'mcp-session-id': alice.transport.sessionId! };
    const stolen = await rawRequest(http.url, 'POST', { ...mcpHeaders, ...aliceSession, authorization: `Bearer ${bobToken}` }, ping);
    expect(stolen.status).toBe(404);
    expect(JSON.parse(stolen.text).error.code).toBe(-32001);
    await alice.client.ping();
  });
});

describe('a key rotated in since the keys were read', () => {
  it('is answered with words that say so (503, retry after the cooldown), then passes once the keys are read again', async () => {
    // Only the clock is faked (jose's cooldown and the tokens' times read it); sockets and timers are real.
    vi.useFakeTimers({ toFake: ['Date'] });
    const { as, http } = await signInSetup();
    await as.rotate();
    const token = await as.sign({ aud: http.url });
    const early = await failure(connect(http.url, new Assistant(token)));
    expect(early).toBeInstanceOf(StreamableHTTPError);
    expect((early as StreamableHTTPError).code).toBe(503);
    expect((early as Error).message).toContain(
      "the access token was signed with a key that was not among the sign-in server's keys when this server last read them, less than 30 s ago; if the sign-in server has just rotated its keys, retry in 30 s",
    );
    expect(as.jwksFetches()).toBe(1);

    vi.setSystemTime(Date.now() + 31_000);
    await (await connect(http.url, new Assistant(token))).client.ping();
    expect(as.jwksFetches()).toBe(2);
  });
});
