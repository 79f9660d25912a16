import { describe, expect, it } from 'vitest';
import {
  layeredDedupe,
  MemoryDedupeStore,
  newIds,
  SignatureVerificationError,
  signWebhook,
  verifyWebhook,
  computeSignature,
} from '@company-data/core/webhooks';

/*
 * Vectors computed outside our code with OpenSSL, e.g.:
 *   printf '%s' "1741068750.$BODY" | openssl dgst -sha256 -hmac 'whsec_test_secret_1'
 * BODY is the exact string below (UTF-8, it contains "OÜ").
 */
const TS = 1741068750;
const NOW = TS * 1000;
const SECRET = 'whsec_test_secret_1';
const ROTATED = 'whsec_rotated_2';
const BODY =
  '{"id":"evt_1001","type":"monitoring.change","created_at":"2025-03-04T06:12:30.123Z","data":{"company":{"registry_code":"12417834","name":"Bolt Technology OÜ"},"lists":[{"id":"lst_a1","name":"Clients","external_ref":"crm-7"}],"category":"tax","kind":"tax_debt","tone":"bad","details":{"old":0,"new":1520.5},"detected_at":"2025-03-04T06:10:00Z"}}';
const SIG = 'f78e8245e45a536fa48d08f281b9655b7071992c74e4f5dd86801f688cec43b1';
const SIG_ROTATED = '234dc9e91581076b38e4a947b68cd259fedd4601a416e78cc9917c7dab7cc574';
const TEST_BODY = '{"id":"evt_9","type":"webhook.test","created_at":"2025-03-04T06:12:30.000Z"}';
const TEST_SIG = '8845a6e7efd833ccf6713dc1cc037e824030cabaf4374a9bba41a2e73202fc53';
const UNKNOWN_BODY = '{"id":"evt_10","type":"billing.something_new","created_at":"2025-03-04T06:12:30.000Z","data":{"x":1}}';
const UNKNOWN_SIG = '2365c64d193cb61760fde9cd711369991972efc8d9fe0656dc954bc581939c17';

const headers = (sig = SIG, ts: string | number = TS) => ({
  'X-Service-Timestamp': String(ts),
  'X-Service-Signature': `v1=${sig}`,
  'X-Service-Event-Id': 'evt_1001',
});

function reason(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    if (e instanceof SignatureVerificationError) return e.reason;
    throw e;
  }
  return 'accepted';
}

describe('signWebhook / computeSignature', () => {
  it('matches the OpenSSL vectors', () => {
    expect(computeSignature(SECRET, TS, BODY)).toBe(SIG);
    expect(computeSignature(SECRET, TS, Buffer.from(BODY, 'utf8'))).toBe(SIG);
    expect(signWebhook({ secret: SECRET, body: BODY, timestamp: TS, eventId: 'evt_1001' })).toEqual(headers());
  });
  it('omits the event id header when no id is given', () => {
    expect(Object.keys(signWebhook({ secret: SECRET, body: '{}', timestamp: TS }))).toEqual(['X-Service-Timestamp', 'X-Service-Signature']);
  });
});

describe('verifyWebhook', () => {
  it('returns the typed event for a valid string body', () => {
    const e = verifyWebhook({ rawBody: BODY, headers: headers(), secret: SECRET, now: NOW });
    expect(e.type).toBe('monitoring.change');
    if (e.type === 'monitoring.change') expect(e.data.company.name).toBe('Bolt Technology OÜ');
  });
  it('accepts a Buffer body (bytes as received)', () => {
    expect(verifyWebhook({ rawBody: Buffer.from(BODY, 'utf8'), headers: headers(), secret: SECRET, now: NOW }).id).toBe('evt_1001');
  });
  it('accepts webhook.test events', () => {
    expect(verifyWebhook({ rawBody: TEST_BODY, headers: headers(TEST_SIG), secret: SECRET, now: NOW }).type).toBe('webhook.test');
  });
  it('returns a correctly signed event of an unknown type and reports the mismatch', () => {
    const seen: unknown[] = [];
    const e = verifyWebhook({
      rawBody: UNKNOWN_BODY,
      headers: headers(UNKNOWN_SIG),
      secret: SECRET,
      now: NOW,
      onSchemaMismatch: (i) => seen.push(i),
    });
    expect(e.id).toBe('evt_10');
    expect(e.type as string).toBe('billing.something_new');
    expect(seen).toHaveLength(1);
  });
  it('accepts any of several secrets (rotation)', () => {
    expect(reason(() => verifyWebhook({ rawBody: BODY, headers: headers(SIG_ROTATED), secrets: [SECRET, ROTATED], now: NOW }))).toBe(
      'accepted',
    );
    expect(reason(() => verifyWebhook({ rawBody: BODY, headers: headers(SIG), secrets: [ROTATED], secret: SECRET, now: NOW }))).toBe(
      'accepted',
    );
    expect(reason(() => verifyWebhook({ rawBody: BODY, headers: headers(SIG_ROTATED), secret: SECRET, now: NOW }))).toBe('bad_signature');
  });
  it('rejects a changed body or a wrong secret', () => {
    expect(reason(() => verifyWebhook({ rawBody: BODY.replace('1520.5', '1520.6'), headers: headers(), secret: SECRET, now: NOW }))).toBe(
      'bad_signature',
    );
    expect(reason(() => verifyWebhook({ rawBody: BODY + '\n', headers: headers(), secret: SECRET, now: NOW }))).toBe('bad_signature');
    expect(reason(() => verifyWebhook({ rawBody: BODY, headers: headers(), secret: 'whsec_other', now: NOW }))).toBe('bad_signature');
  });
  it('rejects a signature made for another timestamp', () => {
    expect(reason(() => verifyWebhook({ rawBody: BODY, headers: headers(SIG, TS + 1), secret: SECRET, now: NOW }))).toBe('bad_signature');
  });
  it('enforces a two-sided window of 300 s by default', () => {
    const at = (deltaS: number) =>
      reason(() => verifyWebhook({ rawBody: BODY, headers: headers(), secret: SECRET, now: NOW + deltaS * 1000 }));
    expect(at(300)).toBe('accepted');
    expect(at(301)).toBe('timestamp_too_old');
    expect(at(-300)).toBe('accepted');
    expect(at(-301)).toBe('timestamp_too_new');
    expect(
      reason(() => verifyWebhook({ rawBody: BODY, headers: headers(), secret: SECRET, now: NOW + 20_000, toleranceSeconds: 10 })),
    ).toBe('timestamp_too_old');
    expect(reason(() => verifyWebhook({ rawBody: BODY, headers: headers(), secret: SECRET, now: new Date(NOW) }))).toBe('accepted');
  });
  it('reports the timestamp only for authentic requests', () => {
    expect(reason(() => verifyWebhook({ rawBody: BODY, headers: headers('0'.repeat(64)), secret: SECRET, now: NOW + 10_000_000 }))).toBe(
      'bad_signature',
    );
  });
  it('rejects missing headers', () => {
    expect(reason(() => verifyWebhook({ rawBody: BODY, headers: { 'X-Service-Timestamp': String(TS) }, secret: SECRET, now: NOW }))).toBe(
      'missing_header',
    );
    expect(reason(() => verifyWebhook({ rawBody: BODY, headers: { 'X-Service-Signature': `v1=${SIG}` }, secret: SECRET, now: NOW }))).toBe(
      'missing_header',
    );
    expect(
      reason(() =>
        verifyWebhook({
          rawBody: BODY,
          headers: { 'x-service-timestamp': '', 'x-service-signature': `v1=${SIG}` },
          secret: SECRET,
          now: NOW,
        }),
      ),
    ).toBe('missing_header');
  });
  it('rejects malformed headers: uppercase hex, other scheme, wrong length, non-digit timestamp', () => {
    const bad = (sig: string, ts = String(TS)) =>
      reason(() =>
        verifyWebhook({ rawBody: BODY, headers: { 'x-service-timestamp': ts, 'x-service-signature': sig }, secret: SECRET, now: NOW }),
      );
    expect(bad(`v1=${SIG.toUpperCase()}`)).toBe('malformed_header');
    expect(bad(`v0=${SIG}`)).toBe('malformed_header');
    expect(bad(`v1=${SIG.slice(1)}`)).toBe('malformed_header');
    expect(bad(SIG)).toBe('malformed_header');
    expect(bad(`v1=${SIG}`, '1741068750.0')).toBe('malformed_header');
    expect(bad(`v1=${SIG}`, '-1741068750')).toBe('malformed_header');
  });
  it('reads headers in any case and from Headers, arrays of pairs and raw lists', () => {
    const ok = (h: Parameters<typeof verifyWebhook>[0]['headers']) =>
      reason(() => verifyWebhook({ rawBody: BODY, headers: h, secret: SECRET, now: NOW }));
    expect(ok({ 'x-service-timestamp': String(TS), 'X-SERVICE-SIGNATURE': `v1=${SIG}` })).toBe('accepted');
    expect(ok(new Headers(headers()))).toBe('accepted');
    expect(
      ok([
        ['X-Service-Timestamp', String(TS)],
        ['x-service-signature', `v1=${SIG}`],
      ]),
    ).toBe('accepted');
    expect(ok(['X-Service-Timestamp', String(TS), 'X-Service-Signature', `v1=${SIG}`])).toBe('accepted');
    expect(ok({ 'x-service-timestamp': [String(TS)], 'x-service-signature': [`v1=${SIG}`] })).toBe('accepted');
  });
  it('rejects a duplicated header in every header form', () => {
    const dup = (h: Parameters<typeof verifyWebhook>[0]['headers']) =>
      reason(() => verifyWebhook({ rawBody: BODY, headers: h, secret: SECRET, now: NOW }));
    const sig = `v1=${SIG}`;
    const other = `v1=${'0'.repeat(64)}`;
    expect(dup({ 'x-service-timestamp': String(TS), 'x-service-signature': [sig, other] })).toBe('duplicate_header');
    expect(dup({ 'x-service-timestamp': String(TS), 'x-service-signature': sig, 'X-Service-Signature': sig })).toBe('duplicate_header');
    const h = new Headers(headers());
    h.append('X-Service-Signature', other);
    expect(dup(h)).toBe('duplicate_header');
    expect(dup({ 'x-service-timestamp': String(TS), 'x-service-signature': `${sig}, ${other}` })).toBe('duplicate_header');
    expect(dup(['X-Service-Timestamp', String(TS), 'X-Service-Timestamp', String(TS), 'X-Service-Signature', sig])).toBe(
      'duplicate_header',
    );
  });
  it('accepts only raw bodies', () => {
    const parsed = JSON.parse(BODY) as unknown;
    expect(reason(() => verifyWebhook({ rawBody: parsed as string, headers: headers(), secret: SECRET, now: NOW }))).toBe('body_not_raw');
    expect(reason(() => verifyWebhook({ rawBody: undefined as unknown as string, headers: headers(), secret: SECRET, now: NOW }))).toBe(
      'body_not_raw',
    );
  });
  it('rejects a correctly signed body that is not a JSON object', () => {
    const body = 'not json';
    const h = signWebhook({ secret: SECRET, body, timestamp: TS });
    expect(reason(() => verifyWebhook({ rawBody: body, headers: h, secret: SECRET, now: NOW }))).toBe('invalid_json');
    const arr = '[1,2]';
    expect(
      reason(() =>
        verifyWebhook({ rawBody: arr, headers: signWebhook({ secret: SECRET, body: arr, timestamp: TS }), secret: SECRET, now: NOW }),
      ),
    ).toBe('invalid_json');
  });
  it('needs a secret, and never puts it in the error', () => {
    expect(() => verifyWebhook({ rawBody: BODY, headers: headers(), now: NOW })).toThrow(TypeError);
    let err: unknown;
    try {
      verifyWebhook({ rawBody: BODY, headers: headers(), secret: 'whsec_do_not_leak', now: NOW });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SignatureVerificationError);
    expect(JSON.stringify({ m: (err as Error).message, s: (err as Error).stack, ...(err as object) })).not.toContain('whsec_do_not_leak');
    expect((err as SignatureVerificationError).hint).toMatch(/secret/);
  });
});

describe('MemoryDedupeStore', () => {
  it('reports new ids once', async () => {
    const s = new MemoryDedupeStore();
    expect(await s.checkAndAdd('evt_1')).toBe(true);
    expect(await s.checkAndAdd('evt_1')).toBe(false);
    expect(await s.has('evt_2')).toBe(false);
    await s.add('evt_2');
    expect(await s.has('evt_2')).toBe(true);
  });
  it('forgets ids after the TTL', async () => {
    let now = 0;
    const s = new MemoryDedupeStore({ ttlMs: 1000, clock: { now: () => now } });
    await s.add('evt_1');
    now = 999;
    expect(await s.has('evt_1')).toBe(true);
    now = 1000;
    expect(await s.has('evt_1')).toBe(false);
    expect(await s.checkAndAdd('evt_1')).toBe(true);
  });
  it('keeps at most maxEntries, dropping the oldest', async () => {
    let now = 0;
    const s = new MemoryDedupeStore({ maxEntries: 3, clock: { now: () => now++ } });
    for (const id of ['a', 'b', 'c', 'd']) await s.add(id);
    expect(s.size).toBe(3);
    expect(await s.has('a')).toBe(false);
    expect(await s.has('d')).toBe(true);
  });
});

describe('one shape of event-id dedupe', () => {
  it('newIds: an id seen before and a second copy within the batch are duplicates, with or without checkAndAddMany', async () => {
    const memory = new MemoryDedupeStore();
    await memory.add('evt_1');
    expect([...(await newIds(memory, ['evt_1', 'evt_2', 'evt_2', 'evt_3']))]).toEqual(['evt_2', 'evt_3']);
    const plain = new MemoryDedupeStore();
    const onlyOne = { checkAndAdd: (id: string) => plain.checkAndAdd(id) };
    await plain.add('evt_1');
    expect([...(await newIds(onlyOne, ['evt_1', 'evt_2', 'evt_2', 'evt_3']))]).toEqual(['evt_2', 'evt_3']);
    expect((await newIds(memory, [])).size).toBe(0);
  });

  it('layeredDedupe: new only when every layer finds it new; a layer that knows it stops the check', async () => {
    const near = new MemoryDedupeStore();
    const far = new MemoryDedupeStore();
    await far.add('evt_far');
    const both = layeredDedupe([near, far]);
    expect(await both.checkAndAdd('evt_far')).toBe(false);
    expect(await near.has('evt_far')).toBe(true); // the near layer recorded it before the far one answered
    expect(await both.checkAndAdd('evt_new')).toBe(true);
    expect(await both.checkAndAdd('evt_new')).toBe(false);
    await near.add('evt_near');
    expect(await both.checkAndAdd('evt_near')).toBe(false);
    expect(await far.has('evt_near')).toBe(false);
  });

  it('MemoryDedupeStore keeps its ids, oldest first, and takes them back bounded', async () => {
    const s = new MemoryDedupeStore({ maxEntries: 2, ttlMs: Infinity, ids: ['a', 'b', 'c'] });
    expect(s.ids()).toEqual(['b', 'c']);
    expect(await s.checkAndAdd('b')).toBe(false);
    expect(s.checkAndAddNow('d')).toBe(true);
    expect(s.ids()).toEqual(['c', 'd']);
  });
});
