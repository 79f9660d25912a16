/**
 * An authorization-server stand-in, as a resource server sees one: its metadata (RFC 8414 at
 * /.well-known/oauth-authorization-server, or OpenID discovery, at the address a real server of that
 * kind uses), its key set (JWKS), and access tokens signed with jose as the server would sign them.
 * Keys rotate as real ones do: a new key is published beside the old and signs from then on.
 * Sign-in itself, as far as an assistant drives it: the authorization code grant with PKCE (S256) and the
 * resource indicator (RFC 8707), consent given at once for user-1. Like oidc-provider with a resource
 * server configured, it refuses an authorization request that asks for no scope or one it does not know,
 * and issues a token for the resource with the scopes asked for.
 */
import { createHash, randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';
import type { ServerResponse } from 'node:http';
import { json, startTestServer, type TestServer } from './http-server';

/**
 * Where the metadata is served, for an issuer with a path (`/realms/team`):
 * - `oauth`: RFC 8414, the well-known segment inserted before the path (/.well-known/oauth-authorization-server/realms/team);
 * - `oidc-inserted`: OpenID discovery at the RFC 8414 place (/.well-known/openid-configuration/realms/team);
 * - `oidc`: OpenID discovery appended, as Keycloak and Entra ID serve it (/realms/team/.well-known/openid-configuration).
 */
export type Discovery = 'oauth' | 'oidc-inserted' | 'oidc';

interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

export interface StandInOptions {
  path?: string;
  discovery?: Discovery;
  /** The scopes it knows (default openid and mcp). */
  scopes?: string[];
}

export interface AuthServerStandIn {
  /** The issuer identifier (origin + path), as tokens' "iss" carries it. */
  issuer: string;
  server: TestServer;
  /** Requests for the key set so far. */
  jwksFetches(): number;
  /** An access token signed with the current key; `claims` override the defaults (iss, sub, iat, exp in 5 min). */
  sign(claims: JWTPayload, opts?: { key?: SigningKey; kid?: string }): Promise<string>;
  /** The id (kid) of the key that signs now. */
  currentKid(): string;
  /** A new key, published beside the old ones, signs from now on. */
  rotate(): Promise<void>;
  /** A key pair the server never publishes (a forger's). */
  foreignKey(): Promise<SigningKey>;
  /** The key set answers 503 while true. */
  setKeysDown(down: boolean): void;
  /** The metadata names this issuer instead of the real one (a document that must not be trusted). */
  setClaimedIssuer(issuer: string | undefined): void;
  close(): Promise<void>;
}

/** ES256: as any signature algorithm would do here, and its keys are made at once on a loaded machine (RSA's are not). */
async function newKey(): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const kid = randomUUID();
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' } };
}

/** An error answer at the authorization endpoint: back to the client's redirect URI (RFC 6749 §4.1.2.1). */
function redirectWith(res: ServerResponse, redirectUri: string, params: Record<string, string>): void {
  const to = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) to.searchParams.set(k, v);
  res.writeHead(302, { location: to.href }).end();
}

interface Grant {
  redirectUri: string;
  challenge: string;
  resource: string;
  scope: string;
}

/** The authorization code grant: /authorize gives a code at once, /token trades it (with the PKCE verifier) for a token. */
function codeGrant(issuer: string, known: Set<string>, sign: AuthServerStandIn['sign']) {
  const grants = new Map<string, Grant>();
  const authorize = (url: URL, res: ServerResponse) => {
    const q = url.searchParams;
    const redirectUri = q.get('redirect_uri');
    if (!redirectUri || q.get('response_type') !== 'code') return json(res, 400, { error: 'invalid_request' });
    const scope = q.get('scope');
    const state = q.get('state') ?? '';
    if (!scope)
      return redirectWith(res, redirectUri, { error: 'invalid_request', error_description: "missing required parameter 'scope'", state });
    const unknown = scope.split(' ').filter((s) => !known.has(s));
    if (unknown.length)
      return redirectWith(res, redirectUri, { error: 'invalid_scope', error_description: `unknown scope ${unknown.join(' ')}`, state });
    if (q.get('code_challenge_method') !== 'S256' || !q.get('resource'))
      return redirectWith(res, redirectUri, {
        error: 'invalid_request',
        error_description: 'PKCE S256 and a resource are required',
        state,
      });
    const code = randomUUID();
    grants.set(code, { redirectUri, challenge: q.get('code_challenge')!, resource: q.get('resource')!, scope });
    return redirectWith(res, redirectUri, { code, state, iss: issuer });
  };
  const token = async (body: string, res: ServerResponse) => {
    const q = new URLSearchParams(body);
    const grant = grants.get(q.get('code') ?? '');
    grants.delete(q.get('code') ?? '');
    const verifier = createHash('sha256')
      .update(q.get('code_verifier') ?? '')
      .digest('base64url');
    if (
      q.get('grant_type') !== 'authorization_code' ||
      !grant ||
      grant.challenge !== verifier ||
      grant.redirectUri !== q.get('redirect_uri')
    )
      return json(res, 400, { error: 'invalid_grant' });
    const accessToken = await sign({ aud: grant.resource, scope: grant.scope });
    return json(res, 200, { access_token: accessToken, token_type: 'Bearer', expires_in: 300, scope: grant.scope });
  };
  return { authorize, token };
}

export async function startAuthServerStandIn(opts: StandInOptions = {}): Promise<AuthServerStandIn> {
  const path = opts.path ?? '';
  const discovery = opts.discovery ?? 'oauth';
  const server = await startTestServer();
  const issuer = `${server.url}${path}`;
  const keys = [await newKey()];
  let jwksFetches = 0;
  let keysDown = false;
  let claimedIssuer: string | undefined;
  const metadataPath = {
    oauth: `/.well-known/oauth-authorization-server${path}`,
    'oidc-inserted': `/.well-known/openid-configuration${path}`,
    oidc: `${path}/.well-known/openid-configuration`,
  }[discovery];

  const sign: AuthServerStandIn['sign'] = (claims, o = {}) => {
    const key = o.key ?? keys[keys.length - 1]!;
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ iss: issuer, sub: 'user-1', iat: now, exp: now + 300, scope: 'openid', ...claims })
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: o.kid ?? key.kid })
      .sign(key.privateKey);
  };
  const known = new Set(opts.scopes ?? ['openid', 'mcp']);
  const grant = codeGrant(issuer, known, sign);

  server.setHandler((req, res, body) => {
    const url = new URL(req.url ?? '/', server.url);
    const p = url.pathname;
    if (p === metadataPath)
      return json(res, 200, {
        issuer: claimedIssuer ?? issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/keys`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['none'],
        scopes_supported: [...known],
        ...(discovery === 'oauth' ? {} : { subject_types_supported: ['public'], id_token_signing_alg_values_supported: ['ES256'] }),
      });
    if (p === `${path}/keys`) {
      jwksFetches++;
      return keysDown ? json(res, 503, { error: 'unavailable' }) : json(res, 200, { keys: keys.map((k) => k.jwk) });
    }
    if (p === `${path}/authorize`) return grant.authorize(url, res);
    if (p === `${path}/token` && req.method === 'POST') return grant.token(body, res);
    return json(res, 404, { error: 'not_found' });
  });

  return {
    issuer,
    server,
    jwksFetches: () => jwksFetches,
    sign,
    currentKid: () => keys[keys.length - 1]!.kid,
    rotate: async () => void keys.push(await newKey()),
    foreignKey: newKey,
    setKeysDown: (down) => void (keysDown = down),
    setClaimedIssuer: (i) => void (claimedIssuer = i),
    close: () => server.close(),
  };
}
