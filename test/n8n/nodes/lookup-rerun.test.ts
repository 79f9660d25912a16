import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startSandbox, type Sandbox } from '../../../packages/company-data/src/sandbox';
import { CompanyDataCompanies } from '../../../nodes/CompanyDataCompanies/CompanyDataCompanies.node';
import { executeContext, jsonOf } from '../../support/n8n-context';
import { runWorkflow } from '../../support/n8n-engine';
import { listedCodes } from '../../support/sandbox-codes';

/*
 * Google Sheets (read) → Companies: Lookup → Google Sheets (update), run twice: the second read brings
 * back the rows with the lookup's output columns. Here the second execution gets the first one's output
 * items, as that round trip would, and the sandbox's usage counter says what was billed.
 */

let sb: Sandbox;
let codes: string[];
beforeAll(async () => {
  sb = await startSandbox({ port: 0, seed: 1, companies: 2000 });
  codes = await listedCodes(sb, 300);
});
afterAll(async () => {
  await sb?.close();
});

const companies = new CompanyDataCompanies();
const creds = () => ({ apiKey: sb.apiKey, baseUrl: sb.url });
const billed = () => sb.usage(sb.apiKey).billed_lookup_queries;
const lookupParams = { operation: 'lookup', querySource: 'field', queryField: 'code' };

/** One execute() of the Lookup; returns its output items, what it billed and the lookup requests sent. */
async function execute(items: INodeExecutionData[], params: Record<string, unknown> = lookupParams, continueOnFail = false) {
  const before = billed();
  const { ctx, requests } = executeContext({ params, items, credentials: creds(), continueOnFail });
  const out = (await companies.execute.call(ctx))[0]!;
  return {
    out,
    json: jsonOf([out]),
    billed: billed() - before,
    lookups: requests.filter((r) => r.url.endsWith('/companies/lookup')).length,
  };
}

/** What a sheet read gives back: the output rows as new items (no pairing, no shared objects). */
const readBack = (out: INodeExecutionData[]) => out.map((o) => ({ json: structuredClone(o.json) }));

async function fault(spec: Record<string, unknown>) {
  const res = await fetch(`${sb.url}/sandbox/faults`, {
    method: 'POST',
    headers: { 'x-api-key': sb.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify(spec),
  });
  expect(res.status).toBe(201);
}

describe('Companies → Lookup run again over its own output', () => {
  test('the second execution passes every item through unchanged, with no request and nothing billed', async () => {
    const bad = codes[0]!.slice(0, 7) + String((Number(codes[0]![7]) + 1) % 10);
    const items = [
      ...codes.slice(0, 120).map((code, i) => ({ json: { row: i, code } as IDataObject })),
      { json: { row: 120, code: sb.fixtures.unknown_vat_number } },
      { json: { row: 121, code: sb.fixtures.queries.too_short!.q } },
      { json: { row: 122, code: bad } },
      { json: { row: 123, other: 'no code field' } },
    ];
    const first = await execute(items);
    expect(first.billed).toBe(121);
    expect(first.json.slice(120).map((j) => j.company_data_status)).toEqual(['no_match', 'skipped', 'invalid', 'invalid']);
    for (const j of first.json) expect(Date.now() - Date.parse(j.company_data_enriched_at as string)).toBeLessThan(60_000);

    const again = readBack(first.out);
    const second = await execute(again);
    expect(second.billed).toBe(0);
    expect(second.lookups).toBe(0);
    expect(second.json).toEqual(first.json);
    second.out.forEach((o, i) => expect(o.pairedItem).toEqual({ item: i }));
  });

  test('a changed query cell is looked up again; the same query written differently is not', async () => {
    const first = await execute(codes.slice(0, 50).map((code) => ({ json: { code } as IDataObject })));
    expect(first.billed).toBe(50);
    const again = readBack(first.out);
    again[3]!.json.code = codes[200];
    again[7]!.json.code = codes[201];
    again[9]!.json.code = codes[200]; // the same new query as row 3: sent once
    again[11]!.json.code = ` ${codes[11]} `; // spaces around the same code
    again[12]!.json.code = Number(codes[12]); // a sheet may give the code back as a number
    const second = await execute(again);
    expect(second.billed).toBe(2);
    expect(second.lookups).toBe(1);
    expect(second.json.map((j) => (j.company_data_match as IDataObject).registry_code)).toEqual(
      codes.slice(0, 50).map((c, i) => (i === 3 || i === 9 ? codes[200] : i === 7 ? codes[201] : c)),
    );
    expect(second.json[3]!.company_data_query).toBe(codes[200]);
    expect(second.json[11]).toEqual(again[11]!.json);
  });

  test('error items are looked up again, and lose the error text once answered', async () => {
    const items = codes.slice(0, 150).map((code) => ({ json: { code } as IDataObject }));
    // The first of the two requests (100 queries) fails with a 503; a 5xx is not billed and not retried.
    await fault({ kind: 'server_error', count: 1, status: 503 });
    const first = await execute(items, lookupParams, true);
    expect(first.json.filter((j) => j.company_data_status === 'error')).toHaveLength(100);
    expect(first.json[0]!.error).toEqual(expect.any(String));
    expect(first.billed).toBe(50);

    const second = await execute(readBack(first.out), lookupParams, true);
    expect(second.billed).toBe(100);
    expect(second.lookups).toBe(1);
    expect(second.json.every((j) => j.company_data_status === 'matched')).toBe(true);
    expect(second.json.some((j) => 'error' in j)).toBe(false);
    const third = await execute(readBack(second.out), lookupParams, true);
    expect(third.billed).toBe(0);
  });

  test('Look Up Again After (Days): answers older than that, or without a time, are looked up again', async () => {
    const first = await execute(codes.slice(0, 30).map((code) => ({ json: { code } as IDataObject })));
    const again = readBack(first.out);
    const daysAgo = (d: number) => new Date(Date.now() - d * 86_400_000).toISOString();
    for (let i = 0; i < 10; i++) again[i]!.json.company_data_enriched_at = daysAgo(40);
    for (let i = 10; i < 20; i++) again[i]!.json.company_data_enriched_at = daysAgo(29);
    again[20]!.json.company_data_enriched_at = '';
    delete again[21]!.json.company_data_enriched_at;
    const second = await execute(again, { ...lookupParams, lookUpAgainAfterDays: 30 });
    expect(second.billed).toBe(12);
    expect(second.json.slice(0, 10).every((j) => Date.now() - Date.parse(j.company_data_enriched_at as string) < 60_000)).toBe(true);
    expect(second.json[15]!.company_data_enriched_at).toBe(again[15]!.json.company_data_enriched_at);
    // Without the option's days every answer stands however old it is.
    expect((await execute(again)).billed).toBe(0);
  });

  test('with Skip Items Already Looked Up off, every query is billed again', async () => {
    const first = await execute(codes.slice(0, 20).map((code) => ({ json: { code } as IDataObject })));
    const second = await execute(readBack(first.out), { ...lookupParams, skipLookedUp: false });
    expect(second.billed).toBe(20);
  });
});

test("in n8n-core's engine the option is on by default (a workflow saved without it skips too)", async () => {
  const items = codes.slice(0, 40).map((code, i) => ({ row: i, code }));
  const chain = [{ name: 'Lookup', type: companies, parameters: { operation: 'lookup', querySource: 'field', queryField: 'code' } }];
  const credentials = { apiKey: sb.apiKey, baseUrl: sb.url, authStyle: 'xApiKey' };
  const b0 = billed();
  const first = await runWorkflow({ items, chain, credentials });
  expect(first.run.status).toBe('success');
  expect(billed() - b0).toBe(40);
  const b1 = billed();
  const second = await runWorkflow({ items: first.output('Lookup').map((o) => structuredClone(o.json)), chain, credentials });
  expect(second.run.status).toBe('success');
  expect(billed() - b1).toBe(0);
  expect(second.output('Lookup').map((o) => o.json)).toEqual(first.output('Lookup').map((o) => o.json));
});
