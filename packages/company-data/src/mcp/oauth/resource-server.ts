/**
 * `company-data mcp --http --oauth-issuer URL`: an OAuth 2.0 resource server, as the MCP
 * authorization spec (2025-06-18, 2025-11-25) asks of a server that supports authorization:
 * - it publishes Protected Resource Metadata (RFC 9728) naming the team's authorization server, at
 *   /.well-known/oauth-protected-resource/mcp (and the bare path), so an assistant finds where to sign in;
 * - it accepts only JWT access tokens signed by that server's keys, from that issuer, not expired, and
 *   issued for this server: "aud" holds the public URL of /mcp (RFC 8707 resource indicator);
 * - it names the scope clients ask for (--oauth-scope, default "mcp") in the metadata's scopes_supported
 *   and in every challenge, so a client that follows the spec's scope selection asks for it and an
 *   authorization server that wants a scope for the resource (oidc-provider) issues the token;
 * - its 401s name the metadata in WWW-Authenticate, with error="invalid_token" for a bad token;
 * - a token's "sub" is the caller: sessions belong to it (../sessions.ts).
 * The scope is asked for, not checked in tokens: the audience is the gate (docs/decisions/mcp.md, "MCP sign-in: the scope is named, asked for, not checked").
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errors, jwtVerify } from 'jose';
import type { Issuer } from './issuer';
import { bearerChallenge, bearerToken, type Caller, type Denial, type McpAuthFactory } from './strategy';

/** Signature algorithms of public keys only: a key set never holds the shared secret HS256 needs. */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];
/** Clocks of this machine and of the authorization server may differ this much (seconds). */
export const CLOCK_TOLERANCE_S = 60;
const WELL_KNOWN = '/.well-known/oauth-protected-resource';
/** The scope clients ask for unless --oauth-scope names another. */
export const DEFAULT_SCOPE = 'mcp';

export interface ResourceServerOptions {
  /**
   * Another audience that names this server, for an authorization server that cannot put the URL in
   * "aud" (Entra ID puts the API's application id there). Tokens for the URL are accepted as well.
   */
  audience?: string;
  /** The scope clients ask for (advertised, RFC 9728 scopes_supported and RFC 6750 scope). Default "mcp". */
  scope?: string;
  log?: (line: string) => void;
}

/** A scope token (RFC 6749 §3.3): printable ASCII without space, quote or backslash; `what` names the flag. */
export function scopeName(value: string, what: string): string {
  const scope = value.trim();
  if (!/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(scope))
    throw new Error(
      `${what}: "${value}" is not one scope name; give the name your sign-in server knows (letters, digits and : / . _ - , no spaces)`,
    );
  return scope;
}

/** What went wrong with a token, in words for the person whose assistant sent it (no quotes: it goes in a header too). */
function tokenProblem(err: unknown, audience: string, issuer: string): string | undefined {
  if (err instanceof errors.JWTExpired) return 'the access token has expired; sign in again';
  if (err instanceof errors.JWTClaimValidationFailed) {
    const missing = err.reason === 'missing';
    if (err.claim === 'aud')
      return missing
        ? `the access token names no audience (aud); the authorization server must issue it for ${audience}`
        : `the access token was issued for another service; its audience (aud) must be ${audience}`;
    if (err.claim === 'iss') return `the access token was issued by another authorization server; this server accepts ${issuer}`;
    if (err.claim === 'nbf') return 'the access token is not valid yet';
    return missing ? `the access token has no ${err.claim} claim` : `the access token's ${err.claim} claim is not acceptable`;
  }
  if (err instanceof errors.JWSSignatureVerificationFailed) return "the access token's signature does not verify";
  if (err instanceof errors.JWKSNoMatchingKey || err instanceof errors.JWKSMultipleMatchingKeys)
    return 'the access token was signed with a key the authorization server does not publish';
  if (err instanceof errors.JOSEAlgNotAllowed) return 'the access token is signed with an algorithm this server does not accept';
  if (err instanceof errors.JWSInvalid || err instanceof errors.JWTInvalid || err instanceof errors.JOSENotSupported)
    return 'the access token is not a signed JWT this server can read';
  return undefined;
}

/** The public URL of /mcp clients use: --public-url as given, or with /mcp added when it is an origin only. */
export function mcpPublicUrl(publicUrl: URL): URL {
  const u = new URL(publicUrl.href);
  if (u.pathname === '/') u.pathname = '/mcp';
  return u;
}

/** The RFC 9728 document: where to sign in, and the scope to ask for. */
function metadataDocument(resource: string, issuer: string, scope: string): string {
  return JSON.stringify({
    resource,
    authorization_servers: [issuer],
    scopes_supported: [scope],
    bearer_methods_supported: ['header'],
    resource_name: 'Company Data: Estonian company data',
  });
}

/**
 * A token whose key was not among the keys read less than the cooldown ago, so they were not read again:
 * most likely the authorization server rotated its keys since. Not a 401: signing in again would give a
 * token of the same key, refused the same way until the keys are read again.
 */
function keyNotReadYet(iss: Issuer): Denial {
  const s = String(Math.ceil(iss.keysCooldownMs / 1000));
  return {
    status: 503,
    message: `Service unavailable: the access token was signed with a key that was not among the sign-in server's keys when this server last read them, less than ${s} s ago; if the sign-in server has just rotated its keys, retry in ${s} s, when they are read again`,
    headers: { 'retry-after': s },
  };
}

/** Not the token's fault: the keys could not be fetched again. A 401 would send the assistant through sign-in for nothing. */
const keysUnreachable: Denial = {
  status: 503,
  message: 'Service unavailable: the sign-in server cannot be reached to check the token; retry shortly',
  headers: { 'retry-after': '30' },
};

export function oauthResourceServer(iss: Issuer, opts: ResourceServerOptions = {}): McpAuthFactory {
  const scope = opts.scope ?? DEFAULT_SCOPE;
  return (mcpUrl) => {
    const resource = mcpUrl.href;
    const audiences = opts.audience ? [resource, opts.audience] : [resource];
    // RFC 9728 §3.1: the well-known segment goes before the resource's path.
    const metadataPath = `${WELL_KNOWN}${mcpUrl.pathname}`;
    const metadataUrl = new URL(metadataPath, mcpUrl.origin).href;
    const document = metadataDocument(resource, iss.issuer, scope);
    // The proxy may pass the public path through or map it to /mcp: both are served, and the bare path.
    const documentPaths = new Set([WELL_KNOWN, `${WELL_KNOWN}/mcp`, metadataPath]);
    // MCP 2025-11-25 "Scope Selection Strategy": the challenge's scope is what a client asks for.
    const challenge = { resource_metadata: metadataUrl, scope };
    const unauthorized = (message: string, problem?: string): Denial => ({
      status: 401,
      message,
      headers: {
        'www-authenticate': bearerChallenge({ ...challenge, ...(problem && { error: 'invalid_token', error_description: problem }) }),
      },
    });

    const serve = (req: IncomingMessage, res: ServerResponse): boolean => {
      if (!documentPaths.has((req.url ?? '/').split('?')[0]!)) return false;
      // A public document: browser-based clients (the MCP Inspector) read it from another origin.
      const cors = { 'access-control-allow-origin': '*', 'access-control-allow-methods': 'GET, OPTIONS' };
      if (req.method === 'OPTIONS') res.writeHead(204, cors).end();
      else if (req.method !== 'GET' && req.method !== 'HEAD') res.writeHead(405, { ...cors, allow: 'GET, OPTIONS' }).end();
      else
        res
          .writeHead(200, { ...cors, 'content-type': 'application/json', 'cache-control': 'max-age=300' })
          .end(req.method === 'HEAD' ? undefined : document);
      return true;
    };

    const refusal = (err: unknown, keysWereCoolingDown: boolean): Denial => {
      const problem = tokenProblem(err, audiences.join(' or '), iss.issuer);
      if (problem === undefined) {
        opts.log?.(`token not checked: the signing keys at ${iss.jwksUri} could not be read`);
        return keysUnreachable;
      }
      // jose reads the keys again for an unknown key only once the cooldown since the last read is over.
      if (err instanceof errors.JWKSNoMatchingKey && keysWereCoolingDown) {
        opts.log?.(`token not checked yet: its signing key was not among the keys read less than ${iss.keysCooldownMs / 1000} s ago`);
        return keyNotReadYet(iss);
      }
      const aud =
        err instanceof errors.JWTClaimValidationFailed && err.claim === 'aud' ? ` (its aud: ${JSON.stringify(err.payload.aud)})` : '';
      opts.log?.(`token refused: ${problem}${aud}`);
      return unauthorized(`Unauthorized: ${problem}`, problem);
    };

    const authenticate = async (req: IncomingMessage): Promise<Caller | Denial> => {
      const token = bearerToken(req, challenge);
      if (typeof token !== 'string') return token;
      if (!token) return unauthorized(`Unauthorized: sign in with ${iss.issuer}; this server's OAuth metadata is at ${metadataUrl}`);
      const keysWereCoolingDown = iss.keys.coolingDown;
      try {
        const { payload } = await jwtVerify(token, iss.keys, {
          issuer: iss.issuer,
          audience: audiences,
          algorithms: ALGORITHMS,
          clockTolerance: CLOCK_TOLERANCE_S,
          requiredClaims: ['exp', 'sub'],
        });
        return { subject: payload.sub! };
      } catch (err) {
        return refusal(err, keysWereCoolingDown);
      }
    };

    return { serve, authenticate };
  };
}
