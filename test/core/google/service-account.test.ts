/**
 * The core's service-account sign-in without node:crypto or Buffer inside: its base64url against Node's,
 * the assertion verified with the key's public half, the key's checks, and the token exchange over a
 * scripted Transport (Google's answers, retries with a sleep, no answer, one shared exchange).
 * The CLI and the n8n node run it over real HTTP against the stand-in (test/company-data/sheets/google-auth.test.ts,
 * test/n8n/google-sheets/credentials.test.ts).
 */
import { createSign, createVerify, generateKeyPairSync } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { base64url, base64urlText, utf8Bytes } from '@company-data/core/google/base64url';
import {
  parseServiceAccountKey,
  requestServiceAccountToken,
  serviceAccountAssertion,
  ServiceAccountError,
  ServiceAccountTokens,
  type RsaSha256Signer,
  type ServiceAccountWords,
} from '@company-data/core/google/service-account';
import { TransportError } from '@company-data/core/transport';
import { ScriptedTransport } from '../../support/scripted-transport';

const words: ServiceAccountWords = { key: 'the key', machine: 'this box', newKey: 'use it', signedInUser: 'sign in instead' };
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
const nodeSign: RsaSha256Signer = (data, key) => createSign('RSA-SHA256').update(data).sign(key);
const key = parseServiceAccountKey(
  {
    type: 'service_account',
    client_email: 'bot@p.iam.gserviceaccount.com',
    private_key: pem,
    private_key_id: 'k1',
    token_uri: 'https://t.example/token',
  },
  words,
);
const json = (status: number, body: unknown) => ({ status, headers: {}, body: JSON.stringify(body) });

/** What a refused promise or call threw. */
async function thrown(f: () => unknown): Promise<ServiceAccountError> {
  try {
    await f();
  } catch (e) {
    expect(e).toBeInstanceOf(ServiceAccountError);
    return e as ServiceAccountError;
  }
  throw new Error('expected a refusal');
}

describe('base64url in plain code', () => {
  it('matches Buffer for any text and any bytes, and reads signed bytes (Apps Script) alike', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        expect(utf8Bytes(s)).toEqual([...Buffer.from(s, 'utf8')]);
        expect(base64urlText(s)).toBe(Buffer.from(s, 'utf8').toString('base64url'));
      }),
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 70 }), (bytes) => {
        const b64 = Buffer.from(bytes).toString('base64url');
        expect(base64url(bytes)).toBe(b64);
        expect(base64url([...bytes].map((b) => (b > 127 ? b - 256 : b)))).toBe(b64);
      }),
    );
    // A lone surrogate is U+FFFD, as Buffer and TextEncoder make it.
    expect(base64urlText('a\ud800b')).toBe(Buffer.from('a\ud800b', 'utf8').toString('base64url'));
  });
});

describe('the assertion', () => {
  it('is an RS256 JWT the key’s public half verifies, with kid, iss, scope, aud and an hour of life', () => {
    const jwt = serviceAccountAssertion(key, 1_700_000_000_500, nodeSign, words);
    const [h, c, s] = jwt.split('.');
    expect(JSON.parse(Buffer.from(h!, 'base64url').toString())).toEqual({ alg: 'RS256', typ: 'JWT', kid: 'k1' });
    expect(JSON.parse(Buffer.from(c!, 'base64url').toString())).toEqual({
      iss: 'bot@p.iam.gserviceaccount.com',
      scope: 'https://www.googleapis.com/auth/spreadsheets',
      aud: 'https://t.example/token',
      iat: 1_700_000_000,
      exp: 1_700_003_600,
    });
    const ok = createVerify('RSA-SHA256').update(`${h}.${c}`).verify(publicKey, Buffer.from(s!, 'base64url'));
    expect(ok).toBe(true);
  });

  it('a key the signer refuses is named, never quoted', async () => {
    const bad = { ...key, private_key: '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n' };
    const e = await thrown(() => serviceAccountAssertion(bad, 0, nodeSign, words));
    expect([e.problem, e.message, e.hint]).toEqual([
      'not-rsa',
      'the key: its private_key is not a valid RSA key',
      'Create a new JSON key for the service account (Cloud console → IAM → Service accounts → Keys → Add key → JSON) and use it.',
    ]);
    expect(e.message + e.advice).not.toContain('AAAA');
  });
});

describe('the key’s checks', () => {
  it.each([
    ['not JSON', '{"client_email": ', 'not-json'],
    ['a JSON list', '[1]', 'not-json'],
    ['a signed-in person’s file', '{"type":"authorized_user","refresh_token":"r"}', 'signed-in-user'],
    ['no private_key', '{"client_email":"a@b"}', 'incomplete'],
  ])('%s is refused as %s', async (_, text, problem) => {
    const e = await thrown(() => parseServiceAccountKey(text, words));
    expect(e.problem).toBe(problem);
    expect(e.message.startsWith('the key: ')).toBe(true);
  });

  it('a key pasted with its newlines as "\\n" text, and without token_uri, is the same key at Google’s endpoint', () => {
    const k = parseServiceAccountKey(JSON.stringify({ client_email: ' a@b ', private_key: 'x\\ny' }), words);
    expect(k).toEqual({ client_email: 'a@b', private_key: 'x\ny', token_uri: 'https://oauth2.googleapis.com/token' });
  });
});

describe('the token exchange', () => {
  const exchange = (t: ScriptedTransport, over: object = {}) => ({ transport: t, sign: nodeSign, now: () => 1_000_000, words, ...over });

  it('posts the grant to the key’s token_uri and counts the expiry from when it was sent', async () => {
    const t = new ScriptedTransport(() => json(200, { access_token: 'tok', expires_in: 100 }));
    expect(await requestServiceAccountToken(key, exchange(t))).toEqual({ token: 'tok', expiresAt: 1_100_000 });
    const sent = t.seen[0]!;
    expect([sent.method, sent.url, sent.headers['content-type']]).toEqual(['POST', key.token_uri, 'application/x-www-form-urlencoded']);
    const form = new URLSearchParams(sent.body);
    expect(form.get('grant_type')).toBe('urn:ietf:params:oauth:grant-type:jwt-bearer');
    expect(form.get('assertion')!.split('.')).toHaveLength(3);
  });

  it('Google’s refusals in its words, with why and what to do', async () => {
    const refused = async (body: unknown, status = 400) =>
      await thrown(() => requestServiceAccountToken(key, exchange(new ScriptedTransport(() => json(status, body)))));
    const sig = await refused({ error: 'invalid_grant', error_description: 'Invalid JWT Signature.' });
    expect([sig.problem, sig.oauthError]).toEqual(['refused', 'invalid_grant']);
    expect(sig.message).toBe(
      'the key (service account bot@p.iam.gserviceaccount.com) was refused by the token endpoint https://t.example/token (invalid_grant: Invalid JWT Signature.): the key was deleted or replaced in the Cloud console, or its JSON was changed',
    );
    const clock = await refused({
      error: 'invalid_grant',
      error_description: 'Token must be a short-lived token (60 minutes) and in a reasonable timeframe.',
    });
    expect(`${clock.message}: ${clock.advice}`).toMatch(
      /: this box's clock is off by more than a few minutes: set it right \(automatic time\) and run again$/,
    );
    expect((await refused({ error: 'invalid_scope' })).message).toMatch(/\(invalid_scope\): the token endpoint refused the Sheets scope$/);
    expect((await refused({ token_type: 'Bearer' }, 200)).problem).toBe('no-token');
  });

  it('with a sleep, no answer and a 503 are sent again (a new assertion each time); without one, once', async () => {
    const script = (n: number) => {
      if (n === 1) throw new TransportError('refused', 'connect ECONNREFUSED', 'ECONNREFUSED');
      return n === 2 ? json(503, {}) : json(200, { access_token: 'third' });
    };
    const waits: number[] = [];
    const t = new ScriptedTransport((_, n) => script(n));
    const sleep = async (ms: number) => void waits.push(ms);
    let signed = 0;
    const sign: RsaSha256Signer = (data, k) => (signed++, nodeSign(data, k));
    expect((await requestServiceAccountToken(key, exchange(t, { sleep, sign }))).token).toBe('third');
    expect([waits.length, t.seen.length, signed]).toEqual([2, 3, 3]);
    const once = new ScriptedTransport((_, n) => script(n));
    const e = await thrown(() => requestServiceAccountToken(key, exchange(once)));
    expect([e.problem, e.message]).toEqual([
      'no-answer',
      'the key: the token endpoint https://t.example/token did not answer (ECONNREFUSED)',
    ]);
    expect(once.seen).toHaveLength(1);
  });

  it('tokens: kept until five minutes before expiry, one exchange for requests at once, a refused one dropped', async () => {
    let now = 0;
    let n = 0;
    const t = new ScriptedTransport(() => json(200, { access_token: `t${++n}`, expires_in: 3600 }));
    const tokens = new ServiceAccountTokens(key, { ...exchange(t), now: () => now });
    expect(await Promise.all([tokens.token(), tokens.token()])).toEqual(['t1', 't1']);
    now = 3600_000 - 5 * 60_000 - 1;
    expect(await tokens.token()).toBe('t1');
    now += 1;
    expect(await tokens.token()).toBe('t2');
    tokens.refused('t1');
    expect(await tokens.token()).toBe('t2');
    tokens.refused('t2');
    expect(await tokens.token()).toBe('t3');
    expect(tokens.fetched).toBe(3);
  });
});
