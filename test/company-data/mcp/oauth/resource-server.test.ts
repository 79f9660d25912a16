/**
 * The OAuth resource server against an authorization-server stand-in over real HTTP: issuer discovery
 * at the addresses each kind of server uses (RFC 8414 path insertion, OpenID discovery appended as
 * Keycloak does), the errors of a wrong or unreachable issuer, and the signing keys: a token of a key
 * rotated in after the last fetch fetches them again, at most once per cooldown, and meanwhile is
 * answered with words that say so.
 */
import type { IncomingMessage } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { discoverIssuer } from '../../../../packages/company-data/src/mcp/oauth/issuer';
import { oauthResourceServer } from '../../../../packages/company-data/src/mcp/oauth/resource-server';
import { isDenial, type Caller, type Denial } from '../../../../packages/company-data/src/mcp/oauth/strategy';
import { startAuthServerStandIn, type AuthServerStandIn, type Discovery } from '../../../support/oauth-issuer';
import { startTestServer } from '../../../support/http-server';

const RESOURCE = new URL('https://mcp.example.test/mcp');
const servers: AuthServerStandIn[] = [];

afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function standIn(opts: { path?: string; discovery?: Discovery } = {}) {
  const s = await startAuthServerStandIn(opts);
  servers.push(s);
  return s;
}

/** The refusal, or undefined when the request may go on (as user-1, the stand-in's subject). */
function denial(verdict: Caller | Denial): Denial | undefined {
  if (isDenial(verdict)) return verdict;
  expect(verdict).toEqual({ subject: 'user-1' });
  return undefined;
}

/** A request as node:http hands it over, with this bearer token. */
const request = (token?: string, url = '/mcp') =>
  ({ url, method: 'POST', headers: token ? { authorization: `Bearer ${token}` } : {} }) as IncomingMessage;

describe('issuer discovery', () => {
  it.each<[string, string, Discovery]>([
    ['RFC 8414 at the root', '', 'oauth'],
    ['OpenID discovery at the root', '', 'oidc'],
    ['RFC 8414 with the path inserted (a tenant)', '/tenant-1', 'oauth'],
    ['OpenID discovery with the path inserted', '/tenant-1', 'oidc-inserted'],
    ['OpenID discovery appended to the path (Keycloak realm)', '/realms/team', 'oidc'],
  ])('finds %s', async (_name, path, discovery) => {
    const as = await standIn({ path, discovery });
    const issuer = await discoverIssuer(as.issuer);
    expect(issuer.issuer).toBe(as.issuer);
    expect(issuer.jwksUri).toBe(`${as.issuer}/keys`);
    expect(as.jwksFetches()).toBe(1);
  });

  it('forgives a trailing slash on the issuer given, and keeps the one the metadata spells', async () => {
    const as = await standIn({ path: '/realms/team', discovery: 'oidc' });
    expect((await discoverIssuer(`${as.issuer}/`)).issuer).toBe(as.issuer);
  });

  it('refuses metadata that names another issuer', async () => {
    const as = await standIn();
    as.setClaimedIssuer('https://evil.example.test');
    await expect(discoverIssuer(as.issuer)).rejects.toThrow(
      /--oauth-issuer: the metadata at .* names the issuer "https:\/\/evil\.example\.test"/,
    );
  });

  it('says which addresses it tried when nothing answers', async () => {
    const gone = await startTestServer();
    await gone.close();
    const err = await discoverIssuer(`${gone.url}/realms/team`).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    const msg = (err as Error).message;
    expect(msg).toMatch(/^--oauth-issuer: no authorization server metadata/);
    expect(msg).toContain(`${gone.url}/.well-known/oauth-authorization-server/realms/team (ECONNREFUSED)`);
    expect(msg).toContain(`${gone.url}/realms/team/.well-known/openid-configuration (ECONNREFUSED)`);
  });

  it('says so when the metadata is there but the keys are not', async () => {
    const as = await standIn();
    as.setKeysDown(true);
    await expect(discoverIssuer(as.issuer)).rejects.toThrow(/--oauth-issuer: the signing keys at .*\/keys could not be read/);
  });

  it('refuses a plain-http issuer on another machine, and a URL with a query', async () => {
    await expect(discoverIssuer('http://sso.example.test/realms/team')).rejects.toThrow(/--oauth-issuer: must be an https:\/\/ address/);
    await expect(discoverIssuer('https://sso.example.test/?x=1')).rejects.toThrow(/must not have a query/);
    await expect(discoverIssuer('not a url')).rejects.toThrow(/is not a URL/);
  });
});

describe('signing keys', () => {
  it('fetches the keys again for a token of a key rotated in after the last fetch, at most once per cooldown (30 s)', async () => {
    // Only the clock is faked (jose's cooldown and the tokens' times read it); sockets and timers are real.
    vi.useFakeTimers({ toFake: ['Date'] });
    const as = await standIn({ path: '/realms/team', discovery: 'oidc' });
    const issuer = await discoverIssuer(as.issuer);
    const auth = oauthResourceServer(issuer)(RESOURCE);
    const old = await as.sign({ aud: RESOURCE.href });
    expect(denial(await auth.authenticate(request(old)))).toBeUndefined();
    expect(as.jwksFetches()).toBe(1);

    // Right after a fetch, an unknown key does not make the server hammer the key set; the answer says
    // why and when to retry (503: signing in again would get a token of the same key).
    await as.rotate();
    const rotated = await as.sign({ aud: RESOURCE.href });
    const early = denial(await auth.authenticate(request(rotated)));
    expect(early?.status).toBe(503);
    expect(early?.headers['retry-after']).toBe('30');
    expect(early?.message).toBe(
      "Service unavailable: the access token was signed with a key that was not among the sign-in server's keys when this server last read them, less than 30 s ago; if the sign-in server has just rotated its keys, retry in 30 s, when they are read again",
    );
    expect(as.jwksFetches()).toBe(1);

    vi.setSystemTime(Date.now() + 20_000);
    expect(denial(await auth.authenticate(request(rotated)))?.status).toBe(503);
    expect(as.jwksFetches()).toBe(1);

    // After the cooldown, the same token fetches the keys once, and passes; the old key still works.
    vi.setSystemTime(Date.now() + 11_000);
    expect(denial(await auth.authenticate(request(rotated)))).toBeUndefined();
    expect(denial(await auth.authenticate(request(rotated)))).toBeUndefined();
    expect(as.jwksFetches()).toBe(2);
    expect(denial(await auth.authenticate(request(old)))).toBeUndefined();

    // A key the keys read just now do not hold either: refused for what it is (401).
    vi.setSystemTime(Date.now() + 31_000);
    const foreign = await as.sign({ aud: RESOURCE.href }, { key: await as.foreignKey() });
    const forged = denial(await auth.authenticate(request(foreign)));
    expect(as.jwksFetches()).toBe(3);
    expect(forged?.status).toBe(401);
    expect(forged?.message).toBe('Unauthorized: the access token was signed with a key the authorization server does not publish');
  });

  it('answers 503, not 401, when the keys cannot be fetched again', async () => {
    const as = await standIn();
    const lines: string[] = [];
    const issuer = await discoverIssuer(as.issuer, { keysCooldownMs: 0 });
    const auth = oauthResourceServer(issuer, { log: (l) => lines.push(l) })(RESOURCE);
    await as.rotate();
    as.setKeysDown(true);
    const denied = denial(await auth.authenticate(request(await as.sign({ aud: RESOURCE.href }))));
    expect(denied?.status).toBe(503);
    expect(denied?.headers['retry-after']).toBe('30');
    expect(lines.join('\n')).toMatch(/signing keys at .* could not be read/);
    as.setKeysDown(false);
    expect(denial(await auth.authenticate(request(await as.sign({ aud: RESOURCE.href }))))).toBeUndefined();
  });
});

describe('subject', () => {
  it('takes the caller from "sub", and refuses a token without one (sessions belong to it)', async () => {
    const as = await standIn();
    const auth = oauthResourceServer(await discoverIssuer(as.issuer))(RESOURCE);
    expect(await auth.authenticate(request(await as.sign({ aud: RESOURCE.href, sub: 'user-2' })))).toEqual({ subject: 'user-2' });
    const anonymous = denial(await auth.authenticate(request(await as.sign({ aud: RESOURCE.href, sub: undefined }))));
    expect(anonymous?.status).toBe(401);
    expect(anonymous?.message).toBe('Unauthorized: the access token has no sub claim');
  });
});

describe('audience', () => {
  it('accepts another audience only when told (--oauth-audience), besides the URL', async () => {
    const as = await standIn();
    const issuer = await discoverIssuer(as.issuer);
    const entraLike = await as.sign({ aud: '6f1c2a9e-0000-4000-8000-company-data' });
    const strict = denial(await oauthResourceServer(issuer)(RESOURCE).authenticate(request(entraLike)));
    expect(strict?.status).toBe(401);
    expect(strict?.message).toContain(`its audience (aud) must be ${RESOURCE.href}`);

    const told = oauthResourceServer(issuer, { audience: '6f1c2a9e-0000-4000-8000-company-data' })(RESOURCE);
    expect(denial(await told.authenticate(request(entraLike)))).toBeUndefined();
    expect(denial(await told.authenticate(request(await as.sign({ aud: RESOURCE.href }))))).toBeUndefined();
    const other = denial(await told.authenticate(request(await as.sign({ aud: 'https://other.example.test/mcp' }))));
    expect(other?.message).toContain(`must be ${RESOURCE.href} or 6f1c2a9e-0000-4000-8000-company-data`);
  });
});
