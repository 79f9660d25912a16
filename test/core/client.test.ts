import { describe, expect, it } from 'vitest';
import { CoreClient, type CoreClientOptions } from '@company-data/core/client';
import { operationGroups, operations } from '@company-data/core/operations';
import {
  AuthenticationError,
  ConnectionError,
  NotFoundError,
  RateLimitError,
  SchemaError,
  ServerError,
  TimeoutError,
  ValidationError,
} from '@company-data/core/errors';
import { TransportError } from '@company-data/core/transport';
import { AutoClock, FakeClock } from '../support/fake-clock';
import { ScriptedTransport, fail, ok, type SeenRequest } from '../support/scripted-transport';
import type { TransportResponse } from '@company-data/core/transport';

const KEY = 'sk_test_9fQ2mZ7rW1xY4bN8';
const BASE = 'https://api.example.test/base/';

function setup(
  answer: (req: SeenRequest, n: number) => TransportResponse | Promise<TransportResponse> = () => ok({}),
  over: Partial<CoreClientOptions> = {},
) {
  const clock = new AutoClock();
  const transport = new ScriptedTransport(answer, () => clock.now());
  const client = new CoreClient({ apiKey: KEY, baseUrl: BASE, transport, clock, retry: { random: () => 0.5 }, ...over });
  return { client, transport, clock };
}

async function caught(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a rejection');
}

describe('namespaces', () => {
  it('has one method per operation of the table', () => {
    const { client } = setup();
    for (const [group, ops] of Object.entries(operationGroups)) {
      const ns = (client as unknown as Record<string, Record<string, unknown>>)[group]!;
      expect(Object.keys(ns).sort()).toEqual(Object.keys(ops).sort());
      for (const name of Object.keys(ops)) expect(typeof ns[name]).toBe('function');
    }
    expect(client.ops).toBe(operationGroups);
    expect(operations.length).toBeGreaterThan(40);
  });
});

describe('input validation (before any request)', () => {
  it('names the field and the rule', async () => {
    const { client, transport } = setup();
    const e = (await caught(client.companies.get({ registry_code: '12417835' }))) as ValidationError;
    expect(e).toBeInstanceOf(ValidationError);
    expect(e.field).toBe('registry_code');
    expect(e.rule).toBe('has a wrong check digit (last digit)');
    expect(e.message).toBe('registry_code has a wrong check digit (last digit)');

    const limit = (await caught(client.people.shareholders({ registry_code: '12417834', limit: 101 }))) as ValidationError;
    expect([limit.field, limit.rule]).toEqual(['limit', 'must be from 1 to 100']);

    const q = (await caught(client.people.searchPersons({ q: 'ab' }))) as ValidationError;
    expect([q.field, q.rule]).toEqual(['q', 'must be at least 3 characters']);

    const many = (await caught(client.companies.lookup({ queries: Array(101).fill('12417834') }))) as ValidationError;
    expect([many.field, many.rule]).toEqual(['queries', 'needs 1 to 100 queries']);

    const nested = (await caught(client.companies.lookup({ queries: ['12417834', 5 as unknown as string] }))) as ValidationError;
    expect([nested.field, nested.rule]).toEqual(['queries.1', 'each query must be text']);

    const date = (await caught(client.companies.search({ registered_from: '2024-02-30' }))) as ValidationError;
    expect([date.field, date.rule]).toEqual(['registered_from', 'must be a real date written YYYY-MM-DD']);
    expect(transport.seen).toHaveLength(0);
  });

  it('says when a required parameter is missing or an unknown one is given', async () => {
    const { client, transport } = setup();
    const missing = (await caught(client.companies.get({} as never))) as ValidationError;
    expect([missing.field, missing.rule]).toEqual(['registry_code', 'is required']);
    const typo = (await caught(client.companies.get({ registry_code: '12417834', inclde: ['all'] } as never))) as ValidationError;
    expect([typo.field, typo.rule]).toEqual(['inclde', 'is not a parameter of this operation']);
    expect(transport.seen).toHaveLength(0);
  });

  it('puts a wrong type in plain words', async () => {
    const { client, transport } = setup();
    const year = (await caught(
      client.financials.annualReport({ registry_code: '12417834', year: '2024' as unknown as number }),
    )) as ValidationError;
    expect([year.field, year.rule]).toEqual(['year', 'must be a number']);
    const history = (await caught(
      client.people.shareholders({ registry_code: '12417834', history: 'yes' as unknown as boolean }),
    )) as ValidationError;
    expect([history.field, history.rule]).toEqual(['history', 'must be true or false']);
    const queries = (await caught(client.companies.lookup({ queries: '12417834' as unknown as string[] }))) as ValidationError;
    expect([queries.field, queries.rule]).toEqual(['queries', 'must be a list']);
    expect(transport.seen).toHaveLength(0);
  });

  it('refuses to send a keyed request without a key', async () => {
    const { client, transport } = setup(undefined, { apiKey: undefined });
    const e = await caught(client.companies.get({ registry_code: '12417834' }));
    expect(e).toBeInstanceOf(AuthenticationError);
    expect((e as AuthenticationError).code).toBe('api_key_required');
    expect(transport.seen).toHaveLength(0);
  });
});

describe('request building', () => {
  it('builds path, query and headers', async () => {
    const { client, transport } = setup(() => ok([], { pagination: { page: 1, limit: 25, total: 0, has_more: false } }), { lang: 'en' });
    await client.companies.search({ q: 'bolt', status: ['R', 'L'], vat_number: ['ee 102090374'], limit: 25 });
    const r = transport.seen[0]!;
    expect(r.method).toBe('GET');
    expect(r.u.pathname).toBe('/base/companies');
    expect(Object.fromEntries(r.u.searchParams)).toEqual({ q: 'bolt', status: 'R,L', vat_number: 'EE102090374', limit: '25', lang: 'en' });
    expect(r.headers['x-api-key']).toBe(KEY);
    expect(r.headers.authorization).toBeUndefined();
    expect(r.headers.accept).toBe('application/json');
    expect(r.body).toBeUndefined();
  });

  it('encodes path values, writes booleans, keeps the caller lang over the default', async () => {
    const { client, transport } = setup(() => ok({ id: 1, roles: [] }), { lang: 'en' });
    await client.people.getPerson({ id: 42, history: true, lang: 'ru' });
    await client.reference.classifiers({ type: 'legal_forms' });
    await client.companies.byVat({ vat_number: 'EE102090374', include: ['credit_score', 'tax_debt'] });
    expect(transport.seen[0]!.url).toBe('https://api.example.test/base/persons/42?history=true&lang=ru');
    expect(transport.seen[1]!.url).toBe('https://api.example.test/base/classifiers/legal_forms?lang=en');
    expect(transport.seen[2]!.u.pathname).toBe('/base/companies/by-vat/EE102090374');
    expect(transport.seen[2]!.u.searchParams.get('include')).toBe('credit_score,tax_debt');
  });

  it('adds no lang to operations without one', async () => {
    const { client, transport } = setup(() => ok([]), { lang: 'en' });
    await client.monitoring.lists();
    expect(transport.seen[0]!.u.search).toBe('');
  });

  it('sends body parameters as JSON and query parameters in the query', async () => {
    const { client, transport } = setup(() => ok([]));
    await client.companies.lookup({ queries: ['12417834', 'Bolt'], limit: 3, lang: 'et' });
    const r = transport.seen[0]!;
    expect(r.method).toBe('POST');
    expect(r.u.search).toBe('?lang=et');
    expect(r.headers['content-type']).toBe('application/json');
    expect(JSON.parse(r.body!)).toEqual({ queries: ['12417834', 'Bolt'], limit: 3 });
  });

  it('sends the key as Bearer when asked, and no key to open operations', async () => {
    const { client, transport } = setup(() => ({ status: 200, headers: {}, body: '{"openapi":"3.1.0","info":{"version":"1.0"}}' }), {
      auth: 'bearer',
    });
    await client.companies.get({ registry_code: '12417834' });
    await client.reference.openapi();
    expect(transport.seen[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(transport.seen[0]!.headers['x-api-key']).toBeUndefined();
    expect(transport.seen[1]!.headers.authorization).toBeUndefined();
    expect(transport.seen[1]!.headers['x-api-key']).toBeUndefined();
  });

  it('reads asset sections through the profile include', async () => {
    const { client, transport } = setup(() => ok({ registry_code: '12417834', domains: { items: [{ domain: 'bolt.eu' }], total: 1 } }));
    const res = await client.assets.domains({ registry_code: '12417834' });
    expect(transport.seen[0]!.u.searchParams.get('include')).toBe('domains');
    expect(res.data).toEqual({ items: [{ domain: 'bolt.eu' }], total: 1 });
  });
});

describe('answers', () => {
  it('returns data, meta and the request id', async () => {
    const { client } = setup(() => ok({ rated: false, reason: 'not_covered' }, { request_id: 'r-77' }));
    const res = await client.risk.creditScore({ registry_code: '12417834' });
    expect(res).toEqual({ data: { rated: false, reason: 'not_covered' }, meta: { request_id: 'r-77' }, requestId: 'r-77' });
  });

  it('accepts a bare document without envelope, and X-Request-Id', async () => {
    const { client } = setup(() => ({ status: 200, headers: { 'x-request-id': 'h-1' }, body: '[{"code":"R","label":"Registered"}]' }));
    const res = await client.reference.classifiers({ type: 'company_statuses' });
    expect(res.data).toEqual([{ code: 'R', label: 'Registered' }]);
    expect(res.requestId).toBe('h-1');
  });

  it('normalises a section sent as a bare array, and an absent section to an empty list', async () => {
    const mismatches: string[] = [];
    const { client } = setup((r) => ok(r.u.searchParams.get('include') === 'permits' ? { permits: [{ number: 'P1' }] } : {}), {
      onSchemaMismatch: (m) => mismatches.push(`${m.operation}:${m.issues[0]!.path}`),
    });
    expect((await client.assets.permits({ registry_code: '12417834' })).data).toEqual({ items: [{ number: 'P1' }], total: 1 });
    expect((await client.assets.properties({ registry_code: '12417834' })).data).toEqual({ items: [], total: 0 });
    expect(mismatches).toEqual(['assets.properties:properties']);
  });

  it('returns raw data and reports a schema mismatch instead of failing', async () => {
    const seen: unknown[] = [];
    const odd = { snapshot_date: null, total: '12.50', claims: [], history: [], surprise: true };
    const { client } = setup(() => ok(odd), { onSchemaMismatch: (m) => seen.push(m) });
    const res = await client.risk.taxDebt({ registry_code: '12417834' });
    expect(res.data).toEqual(odd);
    expect(seen).toEqual([{ operation: 'risk.taxDebt', requestId: 'req-ok', issues: [{ path: 'total', message: expect.any(String) }] }]);
  });

  it('keeps unknown fields of matching answers', async () => {
    const { client } = setup(() => ok({ rated: true, score: 80, new_field: 'x' }));
    expect((await client.risk.creditScore({ registry_code: '12417834' })).data).toMatchObject({ new_field: 'x' });
  });

  it('fails clearly on a 200 that is not JSON', async () => {
    const { client } = setup(() => ({ status: 200, headers: {}, body: '<html>login</html>' }));
    expect(await caught(client.risk.taxDebt({ registry_code: '12417834' }))).toBeInstanceOf(SchemaError);
  });

  it('maps error answers to typed errors', async () => {
    const { client } = setup(() => fail(404, 'not_found', 'No company 12417834'));
    const e = (await caught(client.companies.get({ registry_code: '12417834' }))) as NotFoundError;
    expect(e).toBeInstanceOf(NotFoundError);
    expect(e).toMatchObject({ status: 404, requestId: 'req-404' });
  });
});

describe('retries through the client', () => {
  it('retries a GET after 503 and a reset, with backoff', async () => {
    const answers: (TransportResponse | TransportError)[] = [
      fail(503, 'unavailable'),
      new TransportError('reset', 'socket hang up', 'ECONNRESET'),
      ok({ rated: true }),
    ];
    const retries: string[] = [];
    const { client, transport, clock } = setup(
      (_r, n) => {
        const a = answers[n - 1]!;
        if (a instanceof TransportError) throw a;
        return a;
      },
      { onRetry: (i) => retries.push(i.reason) },
    );
    const res = await client.risk.creditScore({ registry_code: '12417834' });
    expect(res.data).toEqual({ rated: true });
    expect(transport.seen).toHaveLength(3);
    expect(retries).toEqual(['unavailable', 'connection_reset']);
    expect(clock.sleeps).toEqual([375, 750]);
  });

  it('does not retry the billed lookup after a 5xx or a time-out', async () => {
    const a = setup(() => fail(502, 'bad_gateway'));
    expect(await caught(a.client.companies.lookup({ queries: ['12417834'] }))).toBeInstanceOf(ServerError);
    expect(a.transport.seen).toHaveLength(1);
    const b = setup(() => {
      throw new TransportError('timeout', 'headers timeout', 'UND_ERR_HEADERS_TIMEOUT');
    });
    expect(await caught(b.client.companies.lookup({ queries: ['12417834'] }))).toBeInstanceOf(TimeoutError);
    expect(b.transport.seen).toHaveLength(1);
  });

  it('does not retry setting the webhook after a 5xx or a reset: the lost answer may have been the only one with the secret', async () => {
    const a = setup(() => fail(503, 'unavailable'));
    expect(await caught(a.client.webhook.set({ url: 'https://hooks.example.test/x', enabled: true }))).toBeInstanceOf(ServerError);
    expect(a.transport.seen).toHaveLength(1);
    const b = setup(() => {
      throw new TransportError('reset', 'socket hang up', 'ECONNRESET');
    });
    expect(await caught(b.client.webhook.set({ url: 'https://hooks.example.test/x', enabled: true }))).toBeInstanceOf(ConnectionError);
    expect(b.transport.seen).toHaveLength(1);
  });

  it('retries the lookup after a refused connection and a 429', async () => {
    const { client, transport } = setup((_r, n) => {
      if (n === 1) throw new TransportError('refused', 'connect ECONNREFUSED', 'ECONNREFUSED');
      if (n === 2) return fail(429, 'rate_limited', 'slow down', { 'retry-after': '1' });
      return ok([]);
    });
    await client.companies.lookup({ queries: ['12417834'] });
    expect(transport.seen).toHaveLength(3);
  });

  it('gives up after the retry budget with the last error', async () => {
    const { client, transport } = setup(() => {
      throw new TransportError('refused', 'connect ECONNREFUSED', 'ECONNREFUSED');
    });
    const e = await caught(client.risk.taxDebt({ registry_code: '12417834' }));
    expect(e).toBeInstanceOf(ConnectionError);
    expect((e as ConnectionError).kind).toBe('refused');
    expect(transport.seen).toHaveLength(5);
  });

  it('pauses the whole queue for a 429 Retry-After', async () => {
    const clock = new FakeClock();
    let first = true;
    const transport = new ScriptedTransport(
      (r) => {
        if (first && r.u.pathname.endsWith('credit-score')) {
          first = false;
          return fail(429, 'rate_limited', 'slow', { 'retry-after': '2' });
        }
        return ok({});
      },
      () => clock.now(),
    );
    const client = new CoreClient({ apiKey: KEY, baseUrl: BASE, transport, clock });
    const t0 = clock.now();
    const a = client.risk.creditScore({ registry_code: '12417834' });
    await clock.advance(0);
    const b = client.risk.taxDebt({ registry_code: '12417834' });
    await clock.advance(1999);
    expect(transport.seen.map((s) => s.at - t0)).toEqual([0]);
    await clock.advance(1);
    await Promise.all([a, b]);
    expect(transport.seen.map((s) => [s.u.pathname.split('/').pop(), s.at - t0])).toEqual([
      ['credit-score', 0],
      ['credit-score', 2000],
      ['tax-debt', 2000],
    ]);
  });

  it('returns RateLimitError when Retry-After is too long to wait', async () => {
    const { client } = setup(() => fail(429, 'rate_limited', 'slow', { 'retry-after': '3600' }));
    const e = (await caught(client.risk.taxDebt({ registry_code: '12417834' }))) as RateLimitError;
    expect(e).toBeInstanceOf(RateLimitError);
    expect(e.retryAfterMs).toBe(3_600_000);
  });
});

describe('secrets', () => {
  it('never shows the key when the client or its errors are logged', async () => {
    const { client } = setup(() => fail(401, 'invalid_api_key', `key ${KEY} revoked`, { 'x-request-id': KEY }));
    expect(JSON.stringify(client)).not.toContain(KEY);
    expect(Object.keys(client)).not.toContain('apiKey');
    const e = await caught(client.companies.get({ registry_code: '12417834' }));
    expect(e).toBeInstanceOf(AuthenticationError);
    expect(JSON.stringify(e) + e.message + e.stack).not.toContain(KEY);

    const t = setup(() => {
      throw new TransportError('other', `TLS failure for ${KEY}`);
    });
    const te = await caught(t.client.companies.get({ registry_code: '12417834' }));
    expect(te.message + JSON.stringify(te)).not.toContain(KEY);
  });
});

describe('call()', () => {
  it('calls any operation of the table', async () => {
    const { client, transport } = setup(() => ok({ years: [], revenue_by_activity: [] }));
    const res = await client.call(client.ops.financials.financials, { registry_code: '12417834' });
    expect(res.data.years).toEqual([]);
    expect(transport.seen[0]!.u.pathname).toBe('/base/companies/12417834/financials');
  });
});
