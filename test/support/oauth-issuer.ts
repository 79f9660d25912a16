/**
 * An authorization-server stand-in, as a resource server sees one: its metadata (RFC 8414 at
 * /.well-known/oauth-authorization-server, or OpenID discovery, at the address a real server of that
 * kind uses), its key set (JWKS), and access tokens signed with jose as the server would sign them.
 * Keys rotate as real ones do: a new key is published beside the old and signs from then on.
 */
import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';
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

export async function startAuthServerStandIn(opts: { path?: string; discovery?: Discovery } = {}): Promise<AuthServerStandIn> {
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

  server.setHandler((req, res) => {
    const p = (req.url ?? '/').split('?')[0];
    if (p === metadataPath)
      return json(res, 200, {
        issuer: claimedIssuer ?? issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/keys`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        code_challenge_methods_supported: ['S256'],
        ...(discovery === 'oauth' ? {} : { subject_types_supported: ['public'], id_token_signing_alg_values_supported: ['ES256'] }),
      });
    if (p === `${path}/keys`) {
      jwksFetches++;
      return keysDown ? json(res, 503, { error: 'unavailable' }) : json(res, 200, { keys: keys.map((k) => k.jwk) });
    }
    return json(res, 404, { error: 'not_found' });
  });

  return {
    issuer,
    server,
    jwksFetches: () => jwksFetches,
    sign: (claims, o = {}) => {
      const key = o.key ?? keys[keys.length - 1]!;
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ iss: issuer, sub: 'user-1', iat: now, exp: now + 300, scope: 'openid', ...claims })
        .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: o.kid ?? key.kid })
        .sign(key.privateKey);
    },
    currentKid: () => keys[keys.length - 1]!.kid,
    rotate: async () => void keys.push(await newKey()),
    foreignKey: newKey,
    setKeysDown: (down) => void (keysDown = down),
    setClaimedIssuer: (i) => void (claimedIssuer = i),
    close: () => server.close(),
  };
}
