import { describe, expect, it } from 'vitest';
import { CoreClient } from '@company-data/core/client';
import { lookupKey } from '@company-data/core/lookup';
import { AuthenticationError, ServerError } from '@company-data/core/errors';
import type { LookupResult } from '@company-data/core/schemas/company';
import { withRegistryCheckDigit } from '@company-data/core/validation';
import { AutoClock } from '../support/fake-clock';
import { ScriptedTransport, fail, ok, type SeenRequest } from '../support/scripted-transport';
import type { TransportResponse } from '@company-data/core/transport';

const summary = (code: string, name: string) => ({
  registry_code: code,
  name,
  legal_form: { name: 'osaühing', label: 'OÜ' },
  status: { code: 'R', label: 'Registered' },
  registered_on: '2013-09-10',
  deleted_on: null,
  vat_number: null,
  address: { full: 'Tallinn', postal_code: '10111' },
  url: 'https://x',
});

/** Answers like the service: one entry per query in order, query echoed verbatim. */
function lookupService(req: SeenRequest): TransportResponse {
  const { queries } = JSON.parse(req.body!) as { queries: string[] };
  const data = queries.map((q) => {
    if (/^\d{8}$/.test(q)) return { query: q, type: 'registry_code', matches: q.endsWith('4') ? [summary(q, `Company ${q}`)] : [] };
    if (/^EE\d{9}$/.test(q)) return { query: q, type: 'vat_number', matches: [summary('10421629', 'Vat Holder AS')], vat_holders: 1 };
    return { query: q, type: 'name', matches: /bolt/i.test(q) ? [summary('14532901', 'Bolt Operations OÜ')] : [] };
  });
  return ok(data, { queries: queries.length, matched: data.filter((d) => d.matches.length).length });
}

function setup(answer: (r: SeenRequest, n: number) => TransportResponse = lookupService) {
  const clock = new AutoClock();
  const transport = new ScriptedTransport(answer, () => clock.now());
  const client = new CoreClient({ apiKey: 'k_1234567890', baseUrl: 'http://x.test', transport, clock, lang: 'en' });
  const sent = () => transport.seen.map((s) => (JSON.parse(s.body!) as { queries: string[] }).queries);
  return { client, transport, sent };
}

/** n distinct valid registry codes. */
const codes = (n: number, from = 1000000) => Array.from({ length: n }, (_, i) => withRegistryCheckDigit(String(from + i)));

describe('lookupKey', () => {
  it('normalises per kind', () => {
    expect(lookupKey(' 12417834 ')).toMatchObject({ key: 'registry_code:12417834', send: '12417834' });
    expect(lookupKey('ee102090374')).toMatchObject({ key: 'vat_number:EE102090374', send: 'EE102090374' });
    expect(lookupKey('102090374').key).toBe(lookupKey('EE102090374').key);
    expect(lookupKey('  Bolt   Technology  OÜ ')).toMatchObject({ key: 'name:bolt technology oü', send: 'Bolt Technology OÜ' });
    expect(lookupKey('BOLT technology oü').key).toBe(lookupKey('Bolt Technology OÜ').key);
    expect(lookupKey('AS').skipped).toBe('query_too_short');
  });
});

describe('bulkLookup', () => {
  it('marks invalid and too-short queries without sending them, dedupes, maps back to every position', async () => {
    const { client, sent } = setup();
    const input = [
      '12417834',
      'bolt  technology',
      '12417835',
      ' 12417834',
      'Bolt Technology',
      'AS',
      '',
      'EE102090374',
      '102090374',
      'nothing here',
      '12345670',
    ];
    const { results, counters } = await client.bulkLookup(input);
    expect(sent()).toEqual([['12417834', 'bolt technology', 'EE102090374', 'nothing here']]);
    expect(results.map((r) => r.status)).toEqual([
      'matched',
      'matched',
      'invalid',
      'matched',
      'matched',
      'skipped',
      'invalid',
      'matched',
      'matched',
      'no_match',
      'invalid',
    ]);
    expect(results.map((r) => r.query)).toEqual(input);
    expect(results[2]!.reason).toBe('registry code has a wrong check digit (last digit)');
    expect(results[6]!.reason).toBe('is empty');
    expect(results[3]!.result).toBe(results[0]!.result);
    expect(results[7]!.result!.vat_holders).toBe(1);
    expect(counters).toEqual({ requests: 1, billedQueries: 4, uniqueQueries: 4, invalid: 3, skipped: 1, fromCache: 0, failed: 0 });
  });

  it('sends 100 per request in input order', async () => {
    const { client, sent, transport } = setup();
    const input = codes(250);
    const progress: number[] = [];
    const { results, counters } = await client.bulkLookup([...input, ...input.slice(0, 50)], {
      limit: 3,
      onProgress: (p) => progress.push(p.done),
    });
    expect(sent().map((b) => b.length)).toEqual([100, 100, 50]);
    expect(sent().flat()).toEqual(input);
    expect(JSON.parse(transport.seen[0]!.body!).limit).toBe(3);
    expect(transport.seen[0]!.u.searchParams.get('lang')).toBe('en');
    expect(results).toHaveLength(300);
    results.forEach((r, i) => expect(r.result?.query).toBe(input[i % 250]));
    expect(counters).toMatchObject({ requests: 3, billedQueries: 250, uniqueQueries: 250 });
    expect(progress).toEqual([100, 200, 250]);
  });

  it('marks only the queries of a failed request as error, and does not retry the billed call on 5xx', async () => {
    const { client, transport } = setup((r, n) => (n === 2 ? fail(500, 'internal') : lookupService(r)));
    const input = codes(250);
    const { results, counters } = await client.bulkLookup(input);
    expect(transport.seen).toHaveLength(3);
    expect(results.slice(0, 100).every((r) => r.status !== 'error')).toBe(true);
    expect(results.slice(100, 200).every((r) => r.status === 'error' && r.error instanceof ServerError)).toBe(true);
    expect(results.slice(200).every((r) => r.status !== 'error')).toBe(true);
    expect(counters).toMatchObject({ requests: 3, billedQueries: 150, failed: 100 });
  });

  it('stops sending after an authentication failure (requests already in flight still answer)', async () => {
    const { client, transport } = setup(() => fail(401, 'invalid_api_key'));
    const { results, counters } = await client.bulkLookup(codes(2500));
    // The first window of the rate limit may already be out; nothing starts after the 401 arrived.
    expect(transport.seen.length).toBeGreaterThanOrEqual(1);
    expect(transport.seen.length).toBeLessThanOrEqual(10);
    expect(results.every((r) => r.status === 'error' && r.error instanceof AuthenticationError)).toBe(true);
    expect(counters).toMatchObject({ requests: transport.seen.length, billedQueries: 0, failed: 2500 });
  });

  it('resumes from a cache: only missing keys are sent, new answers are stored', async () => {
    const cache = new Map<string, LookupResult>();
    const first = setup((r, n) => (n === 2 ? fail(503, 'down') : lookupService(r)));
    const input = codes(200);
    await first.client.bulkLookup(input, { cache });
    expect(cache.size).toBe(100);

    const second = setup();
    const { results, counters } = await second.client.bulkLookup(input, { cache });
    expect(second.sent()).toEqual([input.slice(100)]);
    expect(results.every((r) => r.status === 'matched' || r.status === 'no_match')).toBe(true);
    expect(results[0]!.cached).toBe(true);
    expect(results[150]!.cached).toBeUndefined();
    expect(counters).toMatchObject({ requests: 1, billedQueries: 100, fromCache: 100, uniqueQueries: 200 });
    expect(cache.size).toBe(200);
  });

  it('makes no request when nothing is sendable', async () => {
    const { client, transport } = setup();
    const { results } = await client.bulkLookup(['', 'OÜ', '12345679']);
    expect(transport.seen).toHaveLength(0);
    expect(results.map((r) => r.status)).toEqual(['invalid', 'skipped', 'invalid']);
  });

  it('falls back to the query echo when an answer is missing', async () => {
    const { client } = setup((r) => {
      const res = JSON.parse(lookupService(r).body) as { data: unknown[] };
      return ok(res.data.slice(1));
    });
    const { results } = await client.bulkLookup(['12417834', 'bolt']);
    expect(results[0]!.status).toBe('error');
    expect(results[0]!.error!.code).toBe('missing_answer');
    expect(results[1]!.status).toBe('matched');
  });

  it('throws a bad option at once instead of marking every query', async () => {
    const { client, transport } = setup();
    await expect(client.bulkLookup(['12417834'], { limit: 11 })).rejects.toMatchObject({ field: 'limit', rule: 'must be from 1 to 10' });
    expect(transport.seen).toHaveLength(0);
  });
});
