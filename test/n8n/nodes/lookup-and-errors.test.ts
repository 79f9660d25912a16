import type { IDataObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startSandbox, type Sandbox } from '../../../packages/company-data/src/sandbox';
import { CompanyDataCompanies } from '../../../nodes/CompanyDataCompanies/CompanyDataCompanies.node';
import { CompanyDataMonitoring } from '../../../nodes/CompanyDataMonitoring/CompanyDataMonitoring.node';
import { CompanyDataRisk } from '../../../nodes/CompanyDataRisk/CompanyDataRisk.node';
import { CompanyDataSavedSearches } from '../../../nodes/CompanyDataSavedSearches/CompanyDataSavedSearches.node';
import { executeContext, jsonOf } from '../../support/n8n-context';
import { listedCodes } from '../../support/sandbox-codes';

let sb: Sandbox;
let codes: string[];
beforeAll(async () => {
  sb = await startSandbox({ port: 0, seed: 1, companies: 2000 });
  // 200 real registry codes, read the plain way (not through the node under test).
  codes = await listedCodes(sb, 200);
});
afterAll(async () => {
  await sb?.close();
});

const companies = new CompanyDataCompanies();
const creds = () => ({ apiKey: sb.apiKey, baseUrl: sb.url, authStyle: 'bearer' });

describe('Companies → Lookup over input items', () => {
  test('250 items, 180 distinct queries: 2 requests, 180 billed, every answer back on its item in order', async () => {
    const distinct = codes.slice(0, 180);
    const items = Array.from({ length: 250 }, (_, i) => ({ json: { row: i + 2, code: distinct[i % 180] } as IDataObject }));
    const before = sb.usage(sb.apiKey);
    const { ctx, requests } = executeContext({
      params: { operation: 'lookup', querySource: 'field', queryField: 'code' },
      items,
      credentials: creds(),
    });
    const out = jsonOf(await companies.execute.call(ctx));
    const after = sb.usage(sb.apiKey);

    const lookups = requests.filter((r) => r.url.endsWith('/companies/lookup'));
    expect(lookups).toHaveLength(2);
    expect(lookups.map((r) => (JSON.parse(r.body!) as { queries: string[] }).queries.length)).toEqual([100, 80]);
    expect(after.billed_lookup_queries - before.billed_lookup_queries).toBe(180);
    expect(lookups[0]!.headers.Authorization).toBe(`Bearer ${sb.apiKey}`);

    expect(out).toHaveLength(250);
    out.forEach((json, i) => {
      expect(json.row).toBe(i + 2);
      expect(json.company_data_status).toBe('matched');
      expect((json.company_data_match as IDataObject).registry_code).toBe(items[i]!.json.code);
    });
  });

  test('skipped, invalid, missing-field, no match and VAT group answers are visible per item', async () => {
    const group = Object.values(sb.fixtures.vat_groups)[0]!;
    const items = [
      { json: { q: sb.fixtures.queries.too_short!.q } },
      { json: { q: codes[0]!.slice(0, 7) + String((Number(codes[0]![7]) + 1) % 10) } },
      { json: { other: 'x' } },
      { json: { q: sb.fixtures.unknown_vat_number } },
      { json: { q: group.vat_number } },
      { json: { q: sb.fixtures.queries.exact_name!.q } },
    ];
    const { ctx } = executeContext({
      params: { operation: 'lookup', querySource: 'field', queryField: 'q', options: { limit: 5 } },
      items,
      credentials: creds(),
    });
    const out = jsonOf(await companies.execute.call(ctx));
    expect(out.map((j) => j.company_data_status)).toEqual(['skipped', 'invalid', 'invalid', 'no_match', 'vat_group', 'matched']);
    expect(out[1]!.company_data_reason).toMatch(/check digit/);
    expect(out[4]!.company_data_reason).toBe(`${group.members.length} holders`);
    expect(out[2]!.company_data_reason).toBe('the item has no field "q"');
    expect(out[4]!.company_data_vat_holders).toBe(group.members.length);
    expect((out[4]!.company_data_matches as IDataObject[]).map((m) => m.registry_code).sort()).toEqual([...group.members].sort());
    expect((out[5]!.company_data_match as IDataObject).registry_code).toBe(sb.fixtures.companies.active!.registry_code);
  });
});

test("Lookup: a missing field is named as that item's Field Name gave it (an expression may differ per item)", async () => {
  const items = [{ json: { code: codes[0] } }, { json: { vat: 'x' } }];
  const { ctx } = executeContext({
    params: (name, i) => ({ operation: 'lookup', querySource: 'field', queryField: i === 0 ? 'code' : 'registry' })[name],
    items,
    credentials: creds(),
  });
  const out = jsonOf(await companies.execute.call(ctx));
  expect(out[0]!.company_data_status).toBe('matched');
  expect(out[1]!.company_data_reason).toBe('the item has no field "registry"');
});

describe('errors', () => {
  test('a bad registry code is a NodeOperationError naming the field, sent nowhere', async () => {
    const { ctx, requests } = executeContext({ params: { operation: 'get', registryCode: '1234' }, credentials: creds() });
    const err = await companies.execute.call(ctx).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NodeOperationError);
    expect((err as Error).message).toMatch(/^Registry Code: /);
    expect(requests).toHaveLength(0);
  });

  test('404 is a NodeApiError with the code and request id', async () => {
    const { ctx } = executeContext({ params: { operation: 'get', registryCode: sb.fixtures.unknown_registry_code }, credentials: creds() });
    const err = (await companies.execute.call(ctx).catch((e: unknown) => e)) as NodeApiError;
    expect(err).toBeInstanceOf(NodeApiError);
    expect(err.httpCode).toBe('404');
    expect(err.description).toMatch(/Error code: \w+\. Request ID: [\w-]+\./);
  });

  test('a 400 from the service is a NodeApiError naming the field (local server answering like the service)', async () => {
    // The client checks every rule the sandbox checks, so a service-side 400 is served by a stand-in.
    const server = createServer((_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json', 'x-request-id': 'req-400' });
      res.end(
        JSON.stringify({
          success: false,
          error: { code: 'invalid_parameter', message: 'must be an active company', param: 'registry_code' },
          meta: { request_id: 'req-400' },
        }),
      );
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const { ctx } = executeContext({
        params: { operation: 'get', registryCode: sb.fixtures.companies.active!.registry_code },
        credentials: { apiKey: sb.apiKey, baseUrl: url },
      });
      const err = (await companies.execute.call(ctx).catch((e: unknown) => e)) as NodeApiError;
      expect(err).toBeInstanceOf(NodeApiError);
      expect(err.httpCode).toBe('400');
      expect(err.message).toBe('Registry Code: must be an active company');
      expect(err.description).toContain('Request ID: req-400.');
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  test('continueOnFail: failing items become error items, the others go on, pairedItem kept', async () => {
    const risk = new CompanyDataRisk();
    const good = sb.fixtures.companies.active!.registry_code;
    const items = [{ json: { c: good } }, { json: { c: sb.fixtures.unknown_registry_code } }, { json: { c: 'abc' } }];
    const { ctx } = executeContext({
      params: (name, i) => ({ operation: 'creditScore', registryCode: items[i]!.json.c })[name],
      items,
      credentials: creds(),
      continueOnFail: true,
    });
    const out = (await risk.execute.call(ctx))[0]!;
    expect(out.map((o) => o.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
    expect(out[0]!.json.rated).toBe(true);
    expect(out[1]!.json.error).toEqual(expect.any(String));
    expect(out[2]!.json.error).toMatch(/^Registry Code: /);
  });

  test('a basic-plan key gets a plain "needs the API plan" message on Monitoring and Saved Searches', async () => {
    for (const [node, params] of [
      [new CompanyDataMonitoring(), { resource: 'monitoring', operation: 'lists' }],
      [new CompanyDataSavedSearches(), { operation: 'list' }],
    ] as const) {
      const { ctx } = executeContext({ params, credentials: { apiKey: sb.basicKey, baseUrl: sb.url } });
      const err = (await node.execute!.call(ctx).catch((e: unknown) => e)) as NodeApiError;
      expect(err).toBeInstanceOf(NodeApiError);
      expect(err.httpCode).toBe('403');
      expect(err.message).toMatch(/needs the API plan/);
      expect(err.description).toMatch(/API plan/);
    }
  });

  test('a wrong key says what to do and never shows the key', async () => {
    const { ctx } = executeContext({
      params: { operation: 'get', registryCode: sb.fixtures.companies.active!.registry_code },
      credentials: { apiKey: 'sk_wrong_key_123456', baseUrl: sb.url },
    });
    const err = (await companies.execute.call(ctx).catch((e: unknown) => e)) as NodeApiError;
    expect(err.httpCode).toBe('401');
    expect(JSON.stringify({ m: err.message, d: err.description, c: err.context })).not.toContain('sk_wrong_key_123456');
    expect(err.description).toMatch(/API key/);
  });

  test('a base URL without http(s):// names the credential field, before any request', async () => {
    const { ctx, requests } = executeContext({
      params: { operation: 'get', registryCode: sb.fixtures.companies.active!.registry_code },
      credentials: { apiKey: sb.apiKey, baseUrl: 'api.example.com' },
    });
    const err = (await companies.execute.call(ctx).catch((e: unknown) => e)) as NodeOperationError;
    expect(err).toBeInstanceOf(NodeOperationError);
    expect(err.message).toBe('Base URL in the Company Data API credential: must be an http:// or https:// address');
    expect(err.description).toMatch(/Open the credential/);
    expect(requests).toHaveLength(0);
  });

  test('an empty API key points at the credential; no answer means no HTTP code', async () => {
    const { ctx } = executeContext({
      params: { operation: 'get', registryCode: sb.fixtures.companies.active!.registry_code },
      credentials: { apiKey: '', baseUrl: sb.url },
    });
    const err = (await companies.execute.call(ctx).catch((e: unknown) => e)) as NodeApiError;
    expect(err).toBeInstanceOf(NodeApiError);
    expect(err.httpCode).toBeNull();
    expect(err.description).toMatch(/^Open the Company Data API credential and enter your API key\. Error code: api_key_required\./);
  });

  test('a refused connection says so, with its code in the description and no HTTP code', async () => {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    await new Promise((r) => server.close(r));
    const { ctx } = executeContext({
      params: { operation: 'get', registryCode: sb.fixtures.companies.active!.registry_code },
      credentials: { apiKey: sb.apiKey, baseUrl: `http://127.0.0.1:${port}` },
    });
    const err = (await companies.execute.call(ctx).catch((e: unknown) => e)) as NodeApiError;
    expect(err).toBeInstanceOf(NodeApiError);
    expect(err.httpCode).toBeNull();
    expect(err.description).toMatch(/Check the base URL.*Error code: connection_/);
  });

  test('Limit below 1 from an expression is an error naming Limit, not an empty output', async () => {
    const { ctx, requests } = executeContext({
      params: { operation: 'search', q: 'Tarkvara', returnAll: false, limit: 0 },
      credentials: creds(),
    });
    const err = (await companies.execute.call(ctx).catch((e: unknown) => e)) as NodeOperationError;
    expect(err).toBeInstanceOf(NodeOperationError);
    expect(err.message).toBe('Limit: must be a whole number of 1 or more');
    expect(requests).toHaveLength(0);
  });

  test('Lookup with continueOnFail: a failing request marks its items, with the error', async () => {
    const items = [{ json: { q: sb.fixtures.companies.active!.registry_code } }];
    const { ctx } = executeContext({
      params: { operation: 'lookup', querySource: 'field', queryField: 'q' },
      items,
      credentials: { apiKey: 'sk_wrong_key_123456', baseUrl: sb.url },
      continueOnFail: true,
    });
    const out = jsonOf(await companies.execute.call(ctx));
    expect(out[0]).toMatchObject({ q: items[0]!.json.q, company_data_status: 'error', error: expect.any(String) });
  });
});
