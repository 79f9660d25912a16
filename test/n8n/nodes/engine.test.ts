import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startSandbox, type Sandbox } from '../../../packages/company-data/src/sandbox';
import { CompanyDataCompanies } from '../../../nodes/CompanyDataCompanies/CompanyDataCompanies.node';
import { CompanyDataRisk } from '../../../nodes/CompanyDataRisk/CompanyDataRisk.node';
import { runWorkflow } from '../../support/n8n-engine';
import { listedCodes } from '../../support/sandbox-codes';

let sb: Sandbox;
let codes: string[];
beforeAll(async () => {
  sb = await startSandbox({ port: 0, seed: 1, companies: 2000 });
  codes = await listedCodes(sb, 100);
});
afterAll(async () => {
  await sb?.close();
});

describe("n8n-core's WorkflowExecute runs the nodes", () => {
  test('Items → Companies: Lookup over 150 items (60 distinct) with an expression for the query', async () => {
    const distinct = codes.slice(0, 60);
    const items = Array.from({ length: 150 }, (_, i) => ({ row: i, company: { code: distinct[i % 60] } }));
    const before = sb.usage(sb.apiKey);
    const { run, output } = await runWorkflow({
      items,
      chain: [
        {
          name: 'Lookup',
          type: new CompanyDataCompanies(),
          parameters: { operation: 'lookup', querySource: 'value', query: '={{ $json.company.code }}' },
        },
      ],
      credentials: { apiKey: sb.apiKey, baseUrl: sb.url, authStyle: 'xApiKey' },
    });
    const after = sb.usage(sb.apiKey);
    expect(run.status).toBe('success');
    const out = output('Lookup');
    expect(out).toHaveLength(150);
    out.forEach((item, i) => {
      expect(item.json.row).toBe(i);
      expect(item.json.company_data_status).toBe('matched');
      expect((item.json.company_data_match as { registry_code: string }).registry_code).toBe(distinct[i % 60]);
      expect(item.pairedItem).toEqual({ item: i });
    });
    expect(after.billed_lookup_queries - before.billed_lookup_queries).toBe(60);
    expect(after.requests - before.requests).toBe(1);
  });

  test('Items → Companies: Search with Return All reads every page up to the 200 cap', async () => {
    const { run, output } = await runWorkflow({
      items: [{}],
      chain: [
        {
          name: 'Search',
          type: new CompanyDataCompanies(),
          parameters: { operation: 'search', q: sb.fixtures.queries.many_hits!.q, returnAll: true, options: {} },
        },
      ],
      credentials: { apiKey: sb.apiKey, baseUrl: sb.url, authStyle: 'bearer' },
    });
    expect(run.status).toBe('success');
    const rows = output('Search');
    expect(rows.length).toBeGreaterThan(100);
    expect(rows.length).toBeLessThanOrEqual(200);
    expect(new Set(rows.map((r) => r.json.registry_code)).size).toBe(rows.length);
  });

  test('Items → Risk: Credit Score with "continue on error": the bad items carry json.error, the run succeeds', async () => {
    const { run, output } = await runWorkflow({
      items: [{ c: sb.fixtures.companies.active!.registry_code }, { c: sb.fixtures.unknown_registry_code }, { c: '123' }],
      chain: [
        {
          name: 'Score',
          type: new CompanyDataRisk(),
          parameters: { operation: 'creditScore', registryCode: '={{ $json.c }}' },
          onError: 'continueRegularOutput',
        },
      ],
      credentials: { apiKey: sb.apiKey, baseUrl: sb.url },
    });
    expect(run.status).toBe('success');
    const out = output('Score');
    expect(out).toHaveLength(3);
    expect(out[0]!.json.rated).toBe(true);
    expect(out[1]!.json.error).toEqual(expect.any(String));
    expect(out[2]!.json.error).toMatch(/^Registry Code: /);
  });

  test('without continue on error the run fails with the NodeApiError of the service', async () => {
    const { run } = await runWorkflow({
      items: [{ c: sb.fixtures.unknown_registry_code }],
      chain: [{ name: 'Score', type: new CompanyDataRisk(), parameters: { operation: 'creditScore', registryCode: '={{ $json.c }}' } }],
      credentials: { apiKey: sb.apiKey, baseUrl: sb.url },
    });
    expect(run.status).toBe('error');
    const err = run.data.resultData.error as { httpCode?: string; description?: string } | undefined;
    expect(err?.httpCode).toBe('404');
    expect(err?.description).toMatch(/Request ID/);
  });
});
