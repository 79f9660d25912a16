/**
 * The team's authorization server, as a resource server needs it: its issuer identifier and its
 * signing keys. Read once at start from its metadata (RFC 8414, or OpenID Connect Discovery), so a
 * wrong or unreachable issuer stops the server before it serves anyone, with the addresses tried.
 */
import { buildDiscoveryUrls } from '@modelcontextprotocol/sdk/client/auth.js';
import { createRemoteJWKSet, type RemoteJWKSet } from 'jose';
import { isJsonObject } from '@company-data/core/json';
import { isLoopback } from '../http';

export interface Issuer {
  /** The issuer identifier exactly as the metadata spells it: tokens' "iss" must equal it. */
  issuer: string;
  /** Where the metadata was found. */
  metadataUrl: string;
  jwksUri: string;
  /** The signing keys, cached; a token signed by a key not seen yet fetches them again (after the cooldown). */
  keys: RemoteJWKSet;
  /** Time after a read of the keys before a token of an unknown key reads them again. */
  keysCooldownMs: number;
}

export interface IssuerOptions {
  /** Time after a fetch of the keys before an unknown key may fetch them again. Default 30 s. */
  keysCooldownMs?: number;
  /** How long fetched keys are trusted before they are fetched again. Default 10 min. */
  keysMaxAgeMs?: number;
  /** Per request to the authorization server. Default 10 s. */
  timeoutMs?: number;
}

/**
 * An absolute https URL (http only on a loopback host, for a server on the same machine), without
 * query or fragment; `what` names the flag in the error.
 */
export function secureUrl(value: string, what: string): URL {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw new Error(`${what}: "${value}" is not a URL; give an absolute https:// address`);
  }
  if (u.protocol !== 'https:' && !(u.protocol === 'http:' && isLoopback(u.hostname)))
    throw new Error(`${what}: must be an https:// address (plain http only on localhost), got ${u.protocol}//${u.host}`);
  if (u.search || u.hash) throw new Error(`${what}: must not have a query (?) or fragment (#)`);
  if (u.username || u.password) throw new Error(`${what}: must not carry a user name or password`);
  return u;
}

/** Why a fetch failed, in a few words (undici hides the socket's error in `cause`). */
function reason(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  if ((err as Error).name === 'TimeoutError') return 'no answer in time';
  return cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
}

const sameIssuer = (a: string, b: string) => a.replace(/\/$/, '') === b.replace(/\/$/, '');

async function readMetadata(issuer: URL, timeoutMs: number): Promise<{ url: string; body: Record<string, unknown> }> {
  const tried: string[] = [];
  // RFC 8414 §3.1 inserts the well-known segment before the issuer's path (Keycloak's realms, Entra's
  // tenants); OpenID Connect appends it. The SDK's list has both, in the order the MCP spec gives.
  for (const { url } of buildDiscoveryUrls(issuer)) {
    let res: Response;
    try {
      res = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(timeoutMs) });
    } catch (err) {
      tried.push(`${url.href} (${reason(err)})`);
      continue;
    }
    const text = await res.text().catch(() => '');
    if (!res.ok) {
      tried.push(`${url.href} (HTTP ${res.status})`);
      continue;
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      tried.push(`${url.href} (not JSON)`);
      continue;
    }
    if (isJsonObject(body)) return { url: url.href, body };
    tried.push(`${url.href} (not a JSON object)`);
  }
  throw new Error(
    `--oauth-issuer: no authorization server metadata (RFC 8414 or OpenID discovery) could be read for ${issuer.href}; tried ${tried.join(', ')}. Check the issuer URL (for Keycloak https://HOST/realms/REALM) and that this machine reaches it.`,
  );
}

/** Reads the issuer's metadata and its keys; throws a clear error naming --oauth-issuer when it cannot. */
export async function discoverIssuer(issuerUrl: string, opts: IssuerOptions = {}): Promise<Issuer> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const configured = secureUrl(issuerUrl, '--oauth-issuer');
  const { url, body } = await readMetadata(configured, timeoutMs);
  const issuer = body.issuer;
  // RFC 8414 §3.3 / OIDC Discovery §4.3: the metadata must name the issuer it was asked for, or an
  // attacker's document could redirect trust. A trailing slash is the only difference forgiven
  // (Auth0's issuer has one, people often leave it off).
  if (typeof issuer !== 'string' || !sameIssuer(issuer, configured.href))
    throw new Error(`--oauth-issuer: the metadata at ${url} names the issuer ${JSON.stringify(issuer)}, not ${configured.href}`);
  if (typeof body.jwks_uri !== 'string')
    throw new Error(
      `--oauth-issuer: the metadata at ${url} has no jwks_uri: this server checks signed (JWT) access tokens with the issuer's keys`,
    );
  const jwksUri = secureUrl(body.jwks_uri, `--oauth-issuer: jwks_uri of ${url}`);
  const keysCooldownMs = opts.keysCooldownMs ?? 30_000;
  const keys = createRemoteJWKSet(jwksUri, {
    cooldownDuration: keysCooldownMs,
    cacheMaxAge: opts.keysMaxAgeMs ?? 600_000,
    timeoutDuration: timeoutMs,
  });
  try {
    await keys.reload();
  } catch (err) {
    throw new Error(`--oauth-issuer: the signing keys at ${jwksUri.href} could not be read (${reason(err)})`);
  }
  return { issuer, metadataUrl: url, jwksUri: jwksUri.href, keys, keysCooldownMs };
}
