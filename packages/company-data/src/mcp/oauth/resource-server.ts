/**
 * `company-data mcp --http --oauth-issuer URL`: an OAuth 2.0 resource server, as the MCP
 * authorization spec (2025-06-18, 2025-11-25) asks of a server that supports authorization:
 * - it publishes Protected Resource Metadata (RFC 9728) naming the team's authorization server, at
 *   /.well-known/oauth-protected-resource/mcp (and the bare path), so an assistant finds where to sign in;
 * - it accepts only JWT access tokens signed by that server's keys, from that issuer, not expired, and
 *   issued for this server: "aud" holds the public URL of /mcp (RFC 8707 resource indicator);
 * - its 401s name the metadata in WWW-Authenticate, with error="invalid_token" for a bad token.
 * Scopes are not checked (see docs/assumptions.md): the audience is the gate.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errors, jwtVerify } from 'jose';
import type { Issuer } from './issuer';
import { bearerChallenge, bearerToken, type Denial, type McpAuthFactory } from './strategy';

/** Signature algorithms of public keys only: a key set never holds the shared secret HS256 needs. */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];
/** Clocks of this machine and of the authorization server may differ this much (seconds). */
export const CLOCK_TOLERANCE_S = 60;
const WELL_KNOWN = '/.well-known/oauth-protected-resource';

export interface ResourceServerOptions {
  /**
   * Another audience that names this server, for an authorization server that cannot put the URL in
   * "aud" (Entra ID puts the API's application id there). Tokens for the URL are accepted as well.
   */
  audience?: string;
  log?: (line: string) => void;
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

export function oauthResourceServer(iss: Issuer, opts: ResourceServerOptions = {}): McpAuthFactory {
  return (mcpUrl) => {
    const resource = mcpUrl.href;
    const audiences = opts.audience ? [resource, opts.audience] : [resource];
    // RFC 9728 §3.1: the well-known segment goes before the resource's path.
    const metadataPath = `${WELL_KNOWN}${mcpUrl.pathname}`;
    const metadataUrl = new URL(metadataPath, mcpUrl.origin).href;
    const document = JSON.stringify({
      resource,
      authorization_servers: [iss.issuer],
      bearer_methods_supported: ['header'],
      resource_name: 'Company Data: Estonian company data',
    });
    // The proxy may pass the public path through or map it to /mcp: both are served, and the bare path.
    const documentPaths = new Set([WELL_KNOWN, `${WELL_KNOWN}/mcp`, metadataPath]);
    const challenge = { resource_metadata: metadataUrl };
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

    const authenticate = async (req: IncomingMessage): Promise<Denial | undefined> => {
      const token = bearerToken(req, challenge);
      if (typeof token !== 'string') return token;
      if (!token) return unauthorized(`Unauthorized: sign in with ${iss.issuer}; this server's OAuth metadata is at ${metadataUrl}`);
      try {
        await jwtVerify(token, iss.keys, {
          issuer: iss.issuer,
          audience: audiences,
          algorithms: ALGORITHMS,
          clockTolerance: CLOCK_TOLERANCE_S,
          requiredClaims: ['exp'],
        });
        return undefined;
      } catch (err) {
        const problem = tokenProblem(err, audiences.join(' or '), iss.issuer);
        if (problem === undefined) {
          // Not the token's fault: the keys could not be fetched again. A 401 would send the assistant
          // through sign-in for nothing.
          opts.log?.(`token not checked: the signing keys at ${iss.jwksUri} could not be read`);
          return {
            status: 503,
            message: 'Service unavailable: the sign-in server cannot be reached to check the token; retry shortly',
            headers: { 'retry-after': '30' },
          };
        }
        const aud =
          err instanceof errors.JWTClaimValidationFailed && err.claim === 'aud' ? ` (its aud: ${JSON.stringify(err.payload.aud)})` : '';
        opts.log?.(`token refused: ${problem}${aud}`);
        return unauthorized(`Unauthorized: ${problem}`, problem);
      }
    };

    return { serve, authenticate };
  };
}
