/**
 * `company-data mcp` over stdio with the official SDK client, against the sandbox over real HTTP:
 * the tools generated from the operation table, read calls in compact and full shape, paging, the
 * billed bulk lookup with its cap and reuse, errors as tool errors, resources, prompts, the offline
 * mode, and the API key in no output.
 */
import { spawn } from 'node:child_process';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompanyDataClient } from '../../../packages/company-data/src/index';
import { tools } from '../../../packages/company-data/src/mcp/tools';
import { operations } from '@company-data/core/operations';
import { cliBundle } from '../../drills/support/cli';
import { waitFor } from '../../support/wait-for';
import { API_KEY, cliEnv, connectStdio, errorText, startMcpSandbox, structured, type Sb, type StdioMcp } from './support';

let sb: Sb;
let mcp: StdioMcp;
let direct: CompanyDataClient;
/** Every answer the server gave, for the key check at the end. */
const answers: unknown[] = [];

async function call(name: string, args: Record<string, unknown>) {
  const r = await mcp.client.callTool({ name, arguments: args });
  answers.push(r);
  return r;
}

beforeAll(async () => {
  sb = await startMcpSandbox();
  direct = new CompanyDataClient({ baseUrl: sb.url, apiKey: API_KEY, lang: 'en' });
  mcp = await connectStdio(['--base-url', sb.url], { COMPANY_DATA_API_KEY: API_KEY });
});

afterAll(async () => {
  await mcp?.close();
  await direct?.close();
  await sb?.close();
});

describe('tools/list', () => {
  it('offers one tool per operation of the table, but those it marks notATool', async () => {
    const { tools: listed } = await mcp.client.listTools();
    answers.push(listed);
    const names = listed.map((t) => t.name);
    // One tool per operation, plus the one-call due diligence (due-diligence.test.ts).
    expect(names).toEqual([...tools.map((t) => t.name), 'company_due_diligence']);
    expect(names.length).toBe(operations.filter((o) => !o.notATool).length + 1);
    expect(names).toEqual(
      expect.arrayContaining([
        'companies_search',
        'companies_get',
        'companies_lookup',
        'companies_by_vat',
        'people_beneficial_owners',
        'risk_credit_score',
        'monitoring_create_list',
        'monitoring_delete_list',
        'searches_create',
        'reference_emtak',
      ]),
    );
    expect(names).not.toContain('webhook_set');
    expect(names).not.toContain('reference_openapi');
    expect(new Set(names).size).toBe(names.length);
    for (const t of listed) {
      expect(t.name).toMatch(/^[a-z][a-z0-9_]{2,63}$/);
      expect(t.description!.length).toBeGreaterThan(60);
      expect(t.inputSchema.type).toBe('object');
      if (t.name !== 'company_due_diligence') expect(t.outputSchema?.required).toEqual(['items', 'count']);
    }
  });

  it('says what a tool returns, costs and needs, with schemas from the operation rules', async () => {
    const { tools: listed } = await mcp.client.listTools();
    const byName = new Map(listed.map((t) => [t.name, t]));
    const get = byName.get('companies_get')!;
    expect(get.inputSchema.required).toEqual(['registry_code']);
    expect((get.inputSchema.properties as Record<string, Record<string, unknown>>).registry_code!.pattern).toBe('^[1789]\\d{7}$');
    expect(get.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true });
    const lookup = byName.get('companies_lookup')!;
    expect(lookup.description).toMatch(/billed per distinct query/i);
    expect(lookup.description).toMatch(/max_billed_queries \(default 25\)/);
    expect(Object.keys(lookup.inputSchema.properties!)).toEqual(expect.arrayContaining(['queries', 'max_billed_queries', 'full']));
    expect(byName.get('risk_court_cases')!.description).toMatch(
      /registry_code is a 8-digit registry code: when you only have a name, find it with companies_search/,
    );
    expect(byName.get('companies_search')!.description).toMatch(/more_available.*next_page/);
    expect(byName.get('monitoring_lists')!.description).toMatch(/API plan/);
    expect(byName.get('monitoring_delete_list')!.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
    });
    expect(byName.get('monitoring_create_list')!.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
    });
    expect(byName.get('monitoring_add_companies')!.annotations).toMatchObject({ destructiveHint: true });
  });
});

describe('read tools', () => {
  it('companies_get gives the compact profile of the company the service has', async () => {
    const expected = await direct.companies.get({ registry_code: '13545698' });
    const s = structured(await call('companies_get', { registry_code: '13545698' }));
    expect(s.count).toBe(1);
    expect(s.items[0]).toMatchObject({ registry_code: '13545698', name: expected.data.name, status: expected.data.status.code });
    // Compact: flat plain values, none empty; English labels by default (the service's default is Estonian).
    for (const v of Object.values(s.items[0]!)) expect(v !== null && typeof v !== 'object').toBe(true);
    expect(s.items[0]).toMatchObject({ legal_form: 'Private limited company', status_label: 'Registered' });
    const et = structured(await call('companies_get', { registry_code: '13545698', lang: 'et' }));
    expect(et.items[0]).toMatchObject({ legal_form: 'Osaühing', status_label: 'Registrisse kantud' });
    expect(s.request_id).toMatch(/\S/);
  });

  it("full=true gives the service's whole object", async () => {
    const s = structured(await call('companies_get', { registry_code: '13545698', include: ['credit_score'], full: true }));
    expect(s.items[0]).toMatchObject({ registry_code: '13545698', status: { code: expect.any(String) }, credit_score: expect.any(Object) });
  });

  it('a paged list says how to get more, and the next page follows on', async () => {
    const first = structured(await call('companies_search', { q: 'ehitus' }));
    expect(first).toMatchObject({ page: 1, limit: 10, count: 10, more_available: true, next_page: 2 });
    expect(first.how_to_get_more).toMatch(/page=2/);
    const second = structured(await call('companies_search', { q: 'ehitus', page: 2 }));
    expect(second.page).toBe(2);
    const codes = (s: typeof first) => s.items.map((i) => i.registry_code);
    expect(codes(second).filter((c) => codes(first).includes(c))).toEqual([]);
  });

  it('a wrong check digit is a tool error that says so and names the field', async () => {
    const text = errorText(await call('companies_get', { registry_code: '13545699' }));
    expect(text).toMatch(/registry_code/);
    expect(text).toMatch(/check digit/);
    expect(text).toMatch(/What to do:/);
  });

  it('a registry code sent as a number is read as its digits (models and the Inspector send numbers)', async () => {
    const s = structured(await call('companies_get', { registry_code: 13545698 }));
    expect(s.items[0]!.registry_code).toBe('13545698');
    const l = structured(await call('companies_lookup', { queries: [13922184] }));
    expect(l.items[0]).toMatchObject({ query: '13922184', status: 'matched' });
    expect(errorText(await call('companies_get', { registry_code: 1.5 }))).toMatch(/registry_code must be text/);
  });

  it('an unknown argument and a missing one are tool errors naming them', async () => {
    expect(errorText(await call('companies_get', { registry_code: '13545698', registrycode: '1' }))).toMatch(
      /registrycode is not a parameter/,
    );
    expect(errorText(await call('companies_get', {}))).toMatch(/registry_code is required/);
  });

  it('a 404 of the service comes back with its code and request id', async () => {
    const text = errorText(await call('companies_get', { registry_code: '19999992' }));
    expect(text).toMatch(/code: not_found, status: 404, request id: \S+/);
  });

  it('a 429 waits for Retry-After, as the client does, and then answers', async () => {
    const res = await fetch(`${sb.url}/sandbox/faults`, {
      method: 'POST',
      headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'rate_limited', count: 1, retry_after: 1 }),
    });
    expect(res.status).toBe(201);
    const started = Date.now();
    const s = structured(await call('risk_credit_score', { registry_code: '13545698' }));
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(s.items[0]).toMatchObject({ rated: expect.any(Boolean) });
  });

  it('an unknown tool is a protocol error', async () => {
    await expect(mcp.client.callTool({ name: 'companies_steal', arguments: {} })).rejects.toThrow(/Unknown tool companies_steal/);
  });
});

describe('companies_lookup: billed per query, capped per call', () => {
  it('dedupes, bills what it sends, says so, and reuses what it already paid for', async () => {
    const before = sb.usage(API_KEY).billed_lookup_queries;
    const queries = ['13545698', '13545698', 'EE102224658', ' 13545698 ', 'x', '12345679', '19999992'];
    const s = structured(await call('companies_lookup', { queries }));
    const billed = sb.usage(API_KEY).billed_lookup_queries - before;
    expect(s.billed_queries).toBe(billed);
    expect(billed).toBe(3); // 13545698, EE102224658, 19999992: copies, a too-short name and a wrong check digit are free
    expect(s.items.map((i) => i.status)).toEqual(['matched', 'matched', 'matched', 'matched', 'skipped', 'invalid', 'no_match']);
    expect(s.items[0]).toMatchObject({
      query: '13545698',
      status: 'matched',
      match_count: 1,
      match: { registry_code: '13545698', name: expect.any(String), status: 'R' },
    });
    expect(s.summary).toMatch(/^Billed 3 queries in 1 request: 7 given/);

    const again = structured(await call('companies_lookup', { queries: ['13545698', 'EE102224658'] }));
    expect(again.billed_queries).toBe(0);
    expect(again.items.every((i) => i.from_earlier_call === true)).toBe(true);
    expect(sb.usage(API_KEY).billed_lookup_queries - before).toBe(3);
  });

  it('refuses to bill more than max_billed_queries, sending nothing', async () => {
    const before = sb.usage(API_KEY).billed_lookup_queries;
    const codes = sb.dataset.companies.slice(100, 140).map((c) => c.code);
    const text = errorText(await call('companies_lookup', { queries: codes }));
    expect(text).toMatch(/max_billed_queries is 25, but this run would bill 40 unique queries/);
    expect(text).toMatch(/Nothing was sent/);
    expect(sb.usage(API_KEY).billed_lookup_queries).toBe(before);
    const s = structured(await call('companies_lookup', { queries: codes, max_billed_queries: 40 }));
    expect(s.billed_queries).toBe(40);
    expect(sb.usage(API_KEY).billed_lookup_queries - before).toBe(40);
  });

  it('checks its arguments before billing', async () => {
    const before = sb.usage(API_KEY).billed_lookup_queries;
    expect(errorText(await call('companies_lookup', { queries: ['13545698'], limit: 50 }))).toMatch(/limit must be from 1 to 10/);
    expect(errorText(await call('companies_lookup', { queries: ['13545698'], max_billed_queries: 0 }))).toMatch(
      /max_billed_queries must be a whole number from 1 to 1000/,
    );
    expect(sb.usage(API_KEY).billed_lookup_queries).toBe(before);
  });
});

describe('resources and prompts', () => {
  it('reads the OpenAPI description and a classifier list', async () => {
    const { resources } = await mcp.client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(
      expect.arrayContaining(['company-data://openapi.json', 'company-data://classifiers/roles', 'company-data://classifiers/legal_forms']),
    );
    const doc = await mcp.client.readResource({ uri: 'company-data://openapi.json' });
    expect(JSON.parse((doc.contents[0] as { text: string }).text).openapi).toMatch(/^3\.1/);
    const roles = await mcp.client.readResource({ uri: 'company-data://classifiers/roles' });
    const rows = JSON.parse((roles.contents[0] as { text: string }).text) as { code: string }[];
    expect(rows.length).toBeGreaterThan(3);
    await expect(mcp.client.readResource({ uri: 'company-data://nothing' })).rejects.toThrow(/not a resource of this server/);
  });

  it('the due-diligence prompt has the one-call tool do the check', async () => {
    const { prompts } = await mcp.client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['company_due_diligence', 'who_is_behind']);
    const p = await mcp.client.getPrompt({ name: 'company_due_diligence', arguments: { registry_code: '13545698' } });
    const text = (p.messages[0]!.content as { text: string }).text;
    expect(text).toContain('Call company_due_diligence with company set to "13545698"');
    expect(text).toMatch(/not_checked/);
    expect(text).not.toMatch(/several companies match/);
    const byName = await mcp.client.getPrompt({ name: 'company_due_diligence', arguments: { registry_code: 'Lõunaranna Tarkvara' } });
    expect((byName.messages[0]!.content as { text: string }).text).toMatch(/several companies match, ask which one is meant/);
  });
});

describe('completions and logging', () => {
  const prompt = { type: 'ref/prompt' as const, name: 'company_due_diligence' };

  it('declares both capabilities', () => {
    expect(mcp.client.getServerCapabilities()).toMatchObject({ completions: {}, logging: {} });
  });

  it("completes a prompt's registry code from a prefix of digits, and a name from words of it", async () => {
    const byCode = await mcp.client.complete({ ref: prompt, argument: { name: 'registry_code', value: '1354' } });
    answers.push(byCode);
    expect(byCode.completion.values).toContain('13545698');
    for (const v of byCode.completion.values) expect(v).toMatch(/^1354\d{4}$/);
    const search = await direct.companies.search({ q: '1354', limit: 1 });
    expect(byCode.completion.total).toBe(search.meta.pagination!.total);
    const byName = await mcp.client.complete({ ref: prompt, argument: { name: 'registry_code', value: 'Lõunaranna' } });
    expect(byName.completion.values).toContain('Lõunaranna Tarkvara OÜ');
    // Too little to search (fewer than 3 digits, no word of 3 letters): nothing is asked of the service.
    const before = sb.usage(API_KEY).requests;
    for (const value of ['13', 'ab', ''])
      expect((await mcp.client.complete({ ref: prompt, argument: { name: 'registry_code', value } })).completion.values).toEqual([]);
    expect(sb.usage(API_KEY).requests).toBe(before);
  });

  it("completes the classifier template's type from the operation table, and answers an empty list for anything else", async () => {
    const ref = { type: 'ref/resource' as const, uri: 'company-data://classifiers/{type}' };
    const le = await mcp.client.complete({ ref, argument: { name: 'type', value: 'le' } });
    expect(le.completion.values).toEqual(['legal_forms']);
    const all = await mcp.client.complete({ ref, argument: { name: 'type', value: '' } });
    const { resources } = await mcp.client.listResources();
    expect(all.completion.values).toEqual(
      resources
        .filter((r) => r.uri.startsWith('company-data://classifiers/'))
        .map((r) => r.uri.slice('company-data://classifiers/'.length)),
    );
    const other = await mcp.client.complete({ ref: { type: 'ref/prompt', name: 'no_such_prompt' }, argument: { name: 'x', value: 'abc' } });
    expect(other.completion.values).toEqual([]);
  });

  it('sends what it does as log messages at the level set, never the key', async () => {
    const seen: { level: string; data: unknown }[] = [];
    mcp.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void seen.push(n.params));
    await mcp.client.setLoggingLevel('debug');
    await call('company_due_diligence', { company: '13545698' });
    await waitFor(() => seen.some((m) => /company_due_diligence: ok/.test(String(m.data))), 10_000, 'the tool call log line');
    expect(seen.filter((m) => m.level === 'debug').map((m) => String(m.data))).toEqual(
      expect.arrayContaining([expect.stringMatching(/company_due_diligence: tax_debt read, \d+ ms/)]),
    );
    await call('companies_get', { registry_code: '13545699' });
    await waitFor(
      () => seen.some((m) => m.level === 'error' && /companies_get: error invalid_parameter/.test(String(m.data))),
      10_000,
      'the error line',
    );
    // At "error", a call that goes well says nothing.
    await mcp.client.setLoggingLevel('error');
    const count = seen.length;
    await call('companies_get', { registry_code: '13545698' });
    await mcp.client.ping();
    expect(seen.length).toBe(count);
    await mcp.client.setLoggingLevel('info');
    expect(JSON.stringify(seen)).not.toContain(API_KEY);
  });
});

describe('stdin closed', () => {
  it('answers the calls it was sent before the assistant closed its stdin, then exits', async () => {
    const child = spawn(process.execPath, [cliBundle(), 'mcp', '--base-url', sb.url], {
      env: cliEnv({ COMPANY_DATA_API_KEY: API_KEY }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    const lines = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'pipe', version: '1' } },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'companies_lookup', arguments: { queries: ['13175528'] } } },
    ];
    child.stdin!.end(lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const code = await new Promise((r) => child.on('exit', r));
    expect(code).toBe(0);
    const answers = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id?: number; result?: { structuredContent?: { items: { status: string }[] } } })
      // Answers only; log notifications (no id) may come between them.
      .filter((m) => m.id !== undefined);
    expect(answers.map((a) => a.id)).toEqual([1, 2]);
    expect(answers[1]!.result!.structuredContent!.items[0]!.status).toBe('matched');
  });
});

describe('offline and secrets', () => {
  it('with no service settings it serves the in-process sandbox and says so', async () => {
    const offline = await connectStdio([], {});
    try {
      expect(offline.client.getInstructions()).toMatch(/OFFLINE SANDBOX/);
      const s = structured(await offline.client.callTool({ name: 'companies_get', arguments: { registry_code: '13545698' } }));
      expect(s.items[0]!.registry_code).toBe('13545698');
      expect(offline.stderr()).toMatch(/using the offline sandbox/);
    } finally {
      await offline.close();
    }
  });

  it('the API key is in no answer, error or log line', () => {
    expect(answers.length).toBeGreaterThan(12);
    const all = `${JSON.stringify(answers)}\n${mcp.stderr()}\n${mcp.client.getInstructions() ?? ''}`;
    expect(all).not.toContain(API_KEY);
    expect(all).not.toContain(Buffer.from(API_KEY).toString('base64'));
  });
});
