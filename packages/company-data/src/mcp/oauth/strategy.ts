/**
 * Who may call `company-data mcp --http`: the one hook the HTTP server asks before the SDK sees a
 * request. Two strategies: one shared static token (one machine, `COMPANY_DATA_MCP_TOKEN`), or an
 * OAuth 2.0 resource server that accepts the access tokens of the team's own authorization server
 * (`--oauth-issuer`, ./resource-server.ts).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Why a request is refused: the HTTP status, a message for people and the headers (WWW-Authenticate). */
export interface Denial {
  status: 400 | 401 | 403 | 503;
  message: string;
  headers: Record<string, string>;
}

/** Who a request comes from, when it may go on. */
export interface Caller {
  /**
   * The signed-in user (the token's "sub"): sessions belong to it. Undefined for the static token, which
   * everybody holding it shares.
   */
  subject: string | undefined;
}

export const isDenial = (a: Caller | Denial): a is Denial => 'status' in a;

export interface McpAuth {
  /** Answers the public requests it owns (the RFC 9728 metadata documents); true when it did. */
  serve?(req: IncomingMessage, res: ServerResponse): boolean;
  /** The caller when the request may go on; otherwise the answer to send. */
  authenticate(req: IncomingMessage): Promise<Caller | Denial>;
}

/** Made once the server listens, with the URL of /mcp that clients use (the public one behind a proxy). */
export type McpAuthFactory = (mcpUrl: URL) => McpAuth;

/** RFC 6750 §3 challenge parameters, quoted (no value we put here holds a quote or a backslash, but be safe). */
export function bearerChallenge(params: Record<string, string | undefined>): string {
  const parts = Object.entries(params)
    .filter((e): e is [string, string] => e[1] !== undefined)
    .map(([k, v]) => `${k}="${v.replace(/["\\]/g, '')}"`);
  return parts.length ? `Bearer ${parts.join(', ')}` : 'Bearer';
}

/**
 * The bearer token of a request, from the Authorization header only. A token in the query string
 * (RFC 6750 §2.3) is refused: URLs end up in proxy and server logs, and the MCP authorization spec
 * forbids it.
 */
export function bearerToken(req: IncomingMessage, challenge: Record<string, string | undefined>): string | Denial {
  const query = new URLSearchParams((req.url ?? '').split('?')[1] ?? '');
  if (query.has('access_token'))
    return {
      status: 400,
      message: 'Bad request: send the token in the "Authorization: Bearer <token>" header, never in the URL (URLs are logged)',
      headers: { 'www-authenticate': bearerChallenge({ ...challenge, error: 'invalid_request' }) },
    };
  const m = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '');
  return m ? m[1]!.trim() : '';
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/** One shared secret, compared in constant time (of its digest, so the length does not leak either). */
export function staticToken(token: string): McpAuthFactory {
  if (!token) throw new Error('mcp-token: set COMPANY_DATA_MCP_TOKEN to the token clients must send as "Authorization: Bearer <token>"');
  const tokenDigest = digest(token);
  const challenge = { realm: 'company-data-mcp' };
  return () => ({
    authenticate: async (req) => {
      const sent = bearerToken(req, challenge);
      if (typeof sent !== 'string') return sent;
      if (sent && timingSafeEqual(digest(sent), tokenDigest)) return { subject: undefined };
      return {
        status: 401,
        message: 'Unauthorized: send "Authorization: Bearer <token>" with the token of COMPANY_DATA_MCP_TOKEN',
        headers: { 'www-authenticate': bearerChallenge(challenge) },
      };
    },
  });
}
