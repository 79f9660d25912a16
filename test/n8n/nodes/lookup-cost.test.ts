/**
 * Companies → Lookup and what it costs: Max Billed Queries stops a run before anything is sent, the
 * execution hint says what was billed and what was free, and against a distant service (the sandbox's
 * latency model) several lookups are in flight at once through n8n's own HTTP helper.
 */
import type { IDataObject, IExecuteFunctions, IHttpRequestOptions } from 'n8n-workflow';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startSandbox, type Sandbox } from '../../../packages/company-data/src/sandbox';
import { CompanyDataCompanies } from '../../../nodes/CompanyDataCompanies/CompanyDataCompanies.node';
import { executeContext, jsonOf } from '../../support/n8n-context';

let sb: Sandbox;
let codes: string[];
beforeAll(async () => {
  sb = await startSandbox({ port: 0, seed: 1, companies: 3000 });
  codes = sb.dataset.companies.slice(0, 2000).map((c) => c.code);
});
afterAll(async () => {
  await sb?.close();
});

const companies = new CompanyDataCompanies();
const creds = () => ({ apiKey: sb.apiKey, baseUrl: sb.url });
const billed = () => sb.usage(sb.apiKey).billed_lookup_queries;
/** 250 items: 180 distinct codes, 60 repeats written with spaces, 10 with a wrong check digit. */
const mixed = () =>
  Array.from({ length: 250 }, (_, i) => {
    if (i >= 240) return { json: { code: codes[i]!.slice(0, 7) + String((Number(codes[i]![7]) + 1) % 10) } as IDataObject };
    return { json: { code: i < 180 ? codes[i] : ` ${codes[i - 180]} ` } as IDataObject };
  });

describe('Companies → Lookup: cost', () => {
  test('Max Billed Queries below the unique queries: fails before sending anything, saying how many it would bill', async () => {
    const { ctx, requests } = executeContext({
      params: { operation: 'lookup', querySource: 'field', queryField: 'code', options: { maxBilledQueries: 100 } },
      items: mixed(),
      credentials: creds(),
    });
    const b0 = billed();
    await expect(companies.execute.call(ctx)).rejects.toThrow(/Max Billed Queries: is 100, but this run would bill 180 unique queries/);
    expect(requests).toHaveLength(0);
    expect(billed()).toBe(b0);
  });

  test('at or above the cap the run goes ahead; the hint says billed, duplicates and invalid items', async () => {
    const { ctx } = executeContext({
      params: { operation: 'lookup', querySource: 'field', queryField: 'code', options: { maxBilledQueries: 180 } },
      items: mixed(),
      credentials: creds(),
    });
    const b0 = billed();
    const out = jsonOf(await companies.execute.call(ctx));
    expect(billed() - b0).toBe(180);
    expect(out.filter((j) => j.company_data_status === 'matched')).toHaveLength(240);
    expect(ctx.addExecutionHints).toHaveBeenCalledWith({
      message: 'Billed 180 unique queries in 2 requests; 60 duplicate items not billed again; 10 invalid or too short items not sent.',
      type: 'info',
      location: 'outputPane',
    });
  });

  test('a negative cap is an error naming the field', async () => {
    const { ctx } = executeContext({
      params: { operation: 'lookup', querySource: 'field', queryField: 'code', options: { maxBilledQueries: -1 } },
      items: mixed(),
      credentials: creds(),
    });
    await expect(companies.execute.call(ctx)).rejects.toThrow(/Max Billed Queries: must be a whole number of 0 or more/);
  });

  test('without addExecutionHints (older n8n) the run still works', async () => {
    const { ctx } = executeContext({
      params: { operation: 'lookup', querySource: 'field', queryField: 'code' },
      items: mixed().slice(0, 20),
      credentials: creds(),
    });
    (ctx as Partial<IExecuteFunctions>).addExecutionHints = undefined;
    expect(jsonOf(await companies.execute.call(ctx))).toHaveLength(20);
  });

  test("against a distant service, several lookups are in flight at once through n8n's helper, results in item order", async () => {
    sb.latency.update({ latency_ms: 300, per_query_ms: 1, jitter: 1 });
    try {
      const items = codes.map((code) => ({ json: { code } as IDataObject }));
      const { ctx } = executeContext({
        params: { operation: 'lookup', querySource: 'field', queryField: 'code' },
        items,
        credentials: creds(),
      });
      const helper = ctx.helpers.httpRequestWithAuthentication as unknown as {
        getMockImplementation(): (t: string, o: IHttpRequestOptions) => Promise<unknown>;
        mockImplementation(f: unknown): void;
      };
      const forward = helper.getMockImplementation();
      let inFlight = 0;
      let most = 0;
      helper.mockImplementation(async (t: string, o: IHttpRequestOptions) => {
        most = Math.max(most, ++inFlight);
        try {
          return await forward(t, o);
        } finally {
          inFlight--;
        }
      });
      const out = jsonOf(await companies.execute.call(ctx));
      expect(most).toBeGreaterThan(1);
      out.forEach((json, i) => expect((json.company_data_match as IDataObject).registry_code).toBe(codes[i]));
    } finally {
      sb.latency.update({ latency_ms: 0, per_query_ms: 0, jitter: 0 });
    }
  });
});
