/** Error mapping, auth and retries of CompanyDataClient against the running sandbox (real HTTP). */
import { z } from 'zod/v4';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  ConnectionError,
  NotFoundError,
  PlanRequiredError,
  RateLimitError,
  ServerError,
  UndiciTransport,
  ValidationError,
  operationGroups,
  type RetryInfo,
  type Transport,
} from '../../../packages/company-data/src/index';
import { defineOperation } from '@company-data/core/operation';
import { FX, startClientRig, type ClientRig } from './support';

let rig: ClientRig;
beforeAll(async () => {
  rig = await startClientRig();
});
afterAll(() => rig.close());
afterEach(async () => {
  expect(rig.mismatches).toEqual([]);
  await rig.control('DELETE', '/sandbox/faults');
});

/** A transport that changes headers on the way out (a proxy dropping the key, or a recorder). */
function headerTransport(edit: (h: Record<string, string>) => void): Transport {
  const inner = new UndiciTransport();
  return {
    request: (req) => {
      const headers = { ...req.headers };
      edit(headers);
      return inner.request({ ...req, headers });
    },
  };
}

describe('authentication', () => {
  it('401 api_key_required: refused before sending without a key, and the service answer maps the same', async () => {
    const sent: string[] = [];
    const keyless = rig.newClient({ apiKey: undefined, onRequest: (i) => sent.push(i.url) });
    const local = await keyless.companies.get({ registry_code: FX.active.code }).catch((e) => e);
    expect(local).toBeInstanceOf(AuthenticationError);
    expect(local).toMatchObject({ code: 'api_key_required' });
    expect(sent).toEqual([]);
    const dropped = rig.newClient({ transport: headerTransport((h) => delete h['x-api-key']) });
    const remote = await dropped.companies.get({ registry_code: FX.active.code }).catch((e) => e);
    expect(remote).toBeInstanceOf(AuthenticationError);
    expect(remote).toMatchObject({ status: 401, code: 'api_key_required', requestId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
  });

  it('401 invalid_api_key, and the key never shows in the error', async () => {
    const key = 'sk_api_0123456789abcdef0123456789abcdef01234567';
    const e = await rig
      .newClient({ apiKey: key })
      .companies.get({ registry_code: FX.active.code })
      .catch((x) => x);
    expect(e).toBeInstanceOf(AuthenticationError);
    expect(e).toMatchObject({ status: 401, code: 'invalid_api_key' });
    expect(JSON.stringify(e) + e.message + e.stack).not.toContain(key);
  });

  it('Bearer auth sends Authorization: Bearer and no X-API-Key', async () => {
    const seen: Record<string, string>[] = [];
    const bearer = rig.newClient({ auth: 'bearer', transport: headerTransport((h) => seen.push({ ...h })) });
    const r = await bearer.companies.get({ registry_code: FX.active.code });
    expect(r.data.name).toBe(FX.active.name);
    expect(seen[0]!.authorization).toBe(`Bearer ${rig.sb.apiKey}`);
    expect(seen[0]).not.toHaveProperty('x-api-key');
  });

  it('403 plan_required with the basic key on monitoring, saved searches and webhook; reads work', async () => {
    const basic = rig.newClient({ apiKey: rig.sb.basicKey });
    expect((await basic.companies.get({ registry_code: FX.active.code })).data.registry_code).toBe(FX.active.code);
    for (const call of [
      () => basic.monitoring.lists(),
      () => basic.searches.list(),
      () => basic.webhook.get(),
      () => basic.monitoring.events(),
    ]) {
      const e = await call().catch((x) => x);
      expect(e).toBeInstanceOf(PlanRequiredError);
      expect(e).toMatchObject({ status: 403, code: 'plan_required' });
    }
    expect((await basic.reference.usage()).data.plan).toBe('basic');
  });
});

describe('not found and invalid parameters', () => {
  it('404 not_found for an unknown company, person, report year, list', async () => {
    const calls = [
      () => rig.client.companies.get({ registry_code: FX.unknown_code }),
      () => rig.client.companies.byVat({ vat_number: FX.unknown_vat }),
      () => rig.client.people.getPerson({ id: 99_999_999 }),
      () => rig.client.financials.annualReport({ registry_code: FX.active.code, year: 1995 }),
      () => rig.client.monitoring.getList({ list_id: 'lst_nothere' }),
    ];
    for (const call of calls) {
      const e = await call().catch((x) => x);
      expect(e).toBeInstanceOf(NotFoundError);
      expect(e).toMatchObject({ status: 404, code: 'not_found' });
    }
  });

  it('client-side ValidationError names the field and sends nothing; a 400 of the service names its field too', async () => {
    const sent: string[] = [];
    const client = rig.newClient({ onRequest: (i) => sent.push(i.operation) });
    const cases: [() => Promise<unknown>, string][] = [
      [() => client.companies.search({ limit: 500 }), 'limit'],
      [() => client.companies.get({ registry_code: '13545699' }), 'registry_code'],
      [() => client.companies.lookup({ queries: [] }), 'queries'],
      [() => client.people.searchPersons({ q: 'ab' }), 'q'],
      // Two characters, though three UTF-16 units: lengths are counted in characters, as the OpenAPI's minLength.
      [() => client.people.searchPersons({ q: '😀A' }), 'q'],
      [() => client.reference.classifiers({ type: 'no_such_type' as never }), 'type'],
      [() => client.companies.search({ registered_from: '2024-13-01' }), 'registered_from'],
      [() => client.companies.get({ registry_code: FX.active.code, colour: 'red' } as never), 'colour'],
    ];
    for (const [call, field] of cases) {
      const e = (await call().catch((x) => x)) as ValidationError;
      expect(e).toBeInstanceOf(ValidationError);
      expect(e.field).toBe(field);
      expect(e.status).toBeUndefined();
    }
    expect(sent).toEqual([]);

    // An operation whose local rules are looser than the service's: the service's 400 names the parameter.
    const loose = defineOperation({
      ...operationGroups.companies.search,
      params: {
        ...operationGroups.companies.search.params,
        limit: { ...operationGroups.companies.search.params.limit, schema: z.number().optional() },
      },
    });
    const e = await client.call(loose, { limit: 500 }).catch((x) => x);
    expect(e).toBeInstanceOf(ValidationError);
    expect(e).toMatchObject({ status: 400, code: 'invalid_parameter', field: 'limit', requestId: expect.any(String) });
    expect(e.message).toContain('limit');
  });
});

describe('rate limit and faults (sandbox fault injection)', () => {
  it('429 with Retry-After pauses and retries; the call succeeds once the service answers', async () => {
    const retries: RetryInfo[] = [];
    const client = rig.newClient({ onRetry: (i) => retries.push(i) });
    await rig.control('POST', '/sandbox/faults', { kind: 'rate_limited', count: 1, retry_after: 1 });
    const t0 = Date.now();
    const r = await client.companies.get({ registry_code: FX.active.code });
    expect(r.data.registry_code).toBe(FX.active.code);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(950);
    expect(retries).toEqual([expect.objectContaining({ operation: 'companies.get', reason: 'rate_limited', delayMs: 1000 })]);
  });

  it('a Retry-After longer than the client waits gives RateLimitError with retryAfterMs', async () => {
    await rig.control('POST', '/sandbox/faults', { kind: 'rate_limited', count: 1, retry_after: 120 });
    const e = await rig.client.companies.get({ registry_code: FX.active.code }).catch((x) => x);
    expect(e).toBeInstanceOf(RateLimitError);
    expect(e).toMatchObject({ status: 429, code: 'rate_limited', retryAfterMs: 120_000 });
  });

  it('5xx and a dropped connection: a read is retried, the billed lookup is not', async () => {
    const client = rig.newClient({ retry: { baseDelayMs: 10, maxDelayMs: 20 } });
    await rig.control('POST', '/sandbox/faults', { kind: 'server_error', count: 1, status: 502 });
    await rig.control('POST', '/sandbox/faults', { kind: 'reset', count: 1 });
    expect((await client.companies.get({ registry_code: FX.active.code })).data.name).toBe(FX.active.name);

    const billed = rig.sb.usage(rig.sb.apiKey).billed_lookup_queries;
    await rig.control('POST', '/sandbox/faults', { kind: 'server_error', count: 1, status: 503 });
    const e = await client.companies.lookup({ queries: [FX.active.code] }).catch((x) => x);
    expect(e).toBeInstanceOf(ServerError);
    expect(e.status).toBe(503);
    await rig.control('POST', '/sandbox/faults', { kind: 'reset', count: 1 });
    expect(await client.companies.lookup({ queries: [FX.active.code] }).catch((x) => x)).toBeInstanceOf(ConnectionError);
    // Neither failed lookup reached the handler, so nothing was billed.
    expect(rig.sb.usage(rig.sb.apiKey).billed_lookup_queries).toBe(billed);
  });
});
