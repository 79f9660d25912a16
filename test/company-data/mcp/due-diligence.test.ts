/**
 * `company_due_diligence` through `company-data mcp` (its own process, the official SDK client over stdio)
 * against the sandbox over real HTTP: a healthy company, companies with bad news (default, bankrupt,
 * blacklisted), a company whose credit score answers 403 (plan) and whose enforcements answer 500 (a proxy
 * in front of the sandbox fails those two paths for that one company), a name, a VAT number and bad input.
 */
import { request } from 'node:http';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompanyDataClient } from '../../../packages/company-data/src/index';
import { runDueDiligence } from '../../../packages/company-data/src/mcp/due-diligence';
import { tools } from '../../../packages/company-data/src/mcp/tools';
import { json, readBody, startTestServer, type TestServer } from '../../support/http-server';
import { API_KEY, connectStdio, errorText, startMcpSandbox, type Sb, type StdioMcp } from './support';

let sb: Sb;
let proxy: TestServer;
let mcp: StdioMcp;
let direct: CompanyDataClient;
const answers: unknown[] = [];
/** The company whose two sections the proxy fails. */
let failing = '';

interface Flag {
  severity: string;
  code: string;
  text: string;
  source: string;
  date?: string;
}
interface Report {
  registry_code: string;
  company?: Record<string, unknown>;
  risk_level: string;
  complete: boolean;
  red_flags: Flag[];
  facts: Record<string, Record<string, unknown>>;
  not_checked: { section: string; source: string; code: string; status?: number; message: string }[];
  cost: { billed_queries: number; requests: number; text: string };
  as_of: string;
  notes?: string[];
}

async function dd(args: Record<string, unknown>): Promise<CallToolResult> {
  const r = (await mcp.client.callTool({ name: 'company_due_diligence', arguments: args }, undefined, {
    timeout: 120_000,
  })) as CallToolResult;
  answers.push(r);
  return r;
}
async function report(args: Record<string, unknown>): Promise<{ report: Report; text: string }> {
  const r = await dd(args);
  if (r.isError) throw new Error(`tool error: ${JSON.stringify(r.content)}`);
  return { report: r.structuredContent as unknown as Report, text: (r.content[0] as { text: string }).text };
}
const code = (key: string) => sb.fixtures.companies[key]!.registry_code;
const severities = ['critical', 'high', 'medium', 'low'];
const toolNames = new Set(tools.map((t) => t.name));

beforeAll(async () => {
  sb = await startMcpSandbox();
  failing = code('risk_records');
  const target = new URL(sb.url);
  // A service that is sometimes wrong: two sections of one company fail, everything else passes through.
  proxy = await startTestServer(async (req, res) => {
    const path = req.url ?? '/';
    if (path.startsWith(`/companies/${failing}/credit-score`))
      return json(res, 403, { success: false, error: { code: 'plan_required', message: 'Credit scores need another plan' } });
    if (path.startsWith(`/companies/${failing}/enforcements`))
      return json(res, 500, { success: false, error: { code: 'server_error', message: 'Enforcement register unavailable' } });
    const body = await readBody(req);
    const upstream = request(
      { host: target.hostname, port: target.port, path, method: req.method, headers: { ...req.headers, host: target.host } },
      (up) => {
        res.writeHead(up.statusCode!, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', () => json(res, 502, {}));
    upstream.end(body);
  });
  direct = new CompanyDataClient({ baseUrl: sb.url, apiKey: API_KEY, lang: 'en' });
  mcp = await connectStdio(['--base-url', proxy.url], { COMPANY_DATA_API_KEY: API_KEY });
});

afterAll(async () => {
  await mcp?.close();
  await direct?.close();
  await proxy?.close();
  await sb?.close();
});

function expectRanked(flags: Flag[]) {
  const ranks = flags.map((f) => severities.indexOf(f.severity));
  expect(ranks.every((r) => r >= 0)).toBe(true);
  expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
  for (const f of flags) {
    expect(toolNames.has(f.source), `${f.code}: source ${f.source} is a tool`).toBe(true);
    expect(f.text).toMatch(/\S/);
  }
}

describe('company_due_diligence', () => {
  it('is listed with its input and output schemas', async () => {
    const { tools: listed } = await mcp.client.listTools();
    const t = listed.find((x) => x.name === 'company_due_diligence')!;
    expect(t.inputSchema.required).toEqual(['company']);
    expect(t.outputSchema?.required).toEqual(expect.arrayContaining(['risk_level', 'red_flags', 'not_checked', 'cost']));
    expect(t.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(t.description).toMatch(/risk_credit_score/);
  });

  it('a healthy company: low risk, every section answered, nothing billed', async () => {
    const before = sb.usage(API_KEY);
    const { report: r, text } = await report({ company: code('active') });
    const after = sb.usage(API_KEY);
    expect(r).toMatchObject({ registry_code: code('active'), risk_level: 'low', complete: true, not_checked: [] });
    expect(r.company).toMatchObject({ name: 'Lõunaranna Tarkvara OÜ', status: 'R', legal_form: 'Private limited company' });
    expect(r.red_flags.filter((f) => f.severity !== 'low')).toEqual([]);
    const credit = (await direct.risk.creditScore({ registry_code: code('active') })).data;
    expect(r.facts.credit_score).toMatchObject({ rated: true, rating: credit.rating, score: credit.score });
    expect(r.facts.tax_debt).toMatchObject({ total: 0 });
    const reps = await direct.people.representatives({ registry_code: code('active') });
    expect(r.facts.representatives!.total).toBe(reps.meta.pagination!.total);
    expect(r.facts.beneficial_owners!.total).toBeGreaterThan(0);
    const latest = (r.facts.latest_figures as { year: number }).year;
    const reports = (await direct.financials.annualReports({ registry_code: code('active') })).data;
    expect(latest).toBe(Math.max(...reports.filter((x) => x.status === 'valid').map((x) => x.year)));
    expect(r.facts.annual_reports).toMatchObject({ latest_filed: { year: latest }, overdue: [] });
    // Eleven reads, none billed: the bulk lookup (billed per query) is not used.
    expect(r.cost).toMatchObject({ billed_queries: 0, requests: 11 });
    expect(r.cost.text).toMatch(/Billed: nothing/);
    expect(after.billed_lookup_queries).toBe(before.billed_lookup_queries);
    expect(after.requests - before.requests).toBe(11);
    expect(text).toMatch(/^Due diligence: Lõunaranna Tarkvara OÜ \(13545698\)/);
    expect(text).toMatch(/Risk: LOW/);
    expect(text).toMatch(/Cost: Billed: nothing/);
    // Compact: a model reads it, so it stays small.
    expect(JSON.stringify(r).length).toBeLessThan(6000);
  });

  it('a company in default: critical credit flag first, then tax debt with its snapshot date and the enforcements', async () => {
    const c = code('rule_in_default');
    const { report: r, text } = await report({ company: c });
    expect(r.risk_level).toBe('high');
    expect(r.complete).toBe(true);
    expectRanked(r.red_flags);
    expect(r.red_flags[0]).toMatchObject({ severity: 'critical', code: 'credit_score', source: 'risk_credit_score' });
    expect(r.red_flags[0]!.text).toMatch(/rating D.*in_default/);
    const debt = (await direct.risk.taxDebt({ registry_code: c })).data;
    expect(debt.total).toBeGreaterThan(0);
    const tax = r.red_flags.find((f) => f.code === 'tax_debt')!;
    expect(tax).toMatchObject({ source: 'risk_tax_debt', date: debt.snapshot_date });
    expect(tax.text).toContain(debt.total.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 }));
    expect(['high', 'medium']).toContain(tax.severity);
    const enf = await direct.risk.enforcements({ registry_code: c, limit: 1 });
    const flag = r.red_flags.find((f) => f.code === 'enforcements')!;
    expect(flag).toMatchObject({ source: 'risk_enforcements', date: enf.data[0]!.date });
    expect(flag.text).toMatch(new RegExp(`^${enf.meta.pagination!.total} enforcement proceedings`));
    expect(r.facts.enforcements).toMatchObject({ total: enf.meta.pagination!.total });
    expect(text).toMatch(/Risk: HIGH/);
    expect(text).toMatch(/1\. \[critical\] Credit score/);
  });

  it('a bankrupt company: the status leads, then its tax debt and the overdue annual report', async () => {
    const c = code('status_bankrupt');
    const { report: r } = await report({ company: c });
    expectRanked(r.red_flags);
    expect(r.red_flags[0]).toMatchObject({ severity: 'critical', code: 'status_bankrupt', source: 'companies_get' });
    const codes = r.red_flags.map((f) => f.code);
    expect(codes).toEqual(expect.arrayContaining(['tax_debt', 'annual_report_overdue']));
    // The unrated credit score (reason bankrupt) repeats the status: not a second flag.
    expect(codes).not.toContain('credit_not_scored');
    const overdue = (await direct.financials.annualReports({ registry_code: c })).data.filter((x) => x.status === 'overdue');
    expect(r.red_flags.find((f) => f.code === 'annual_report_overdue')).toMatchObject({
      source: 'financials_annual_reports',
      date: overdue
        .map((x) => x.due_on!)
        .sort()
        .at(-1),
    });
  });

  it("a company on the consumer protection authority's blacklist says since when", async () => {
    const c = code('consumer_blacklist');
    const since = (await direct.companies.get({ registry_code: c })).data.consumer_blacklist_since;
    const { report: r } = await report({ company: c });
    expect(r.red_flags).toContainEqual(
      expect.objectContaining({ code: 'consumer_blacklist', severity: 'high', date: since, source: 'companies_get' }),
    );
  });

  it('a section that answers 403 or 500: the rest comes back, the failures named', async () => {
    const { report: r, text } = await report({ company: failing });
    expect(r.complete).toBe(false);
    expect(r.not_checked).toHaveLength(2);
    expect(r.not_checked).toContainEqual(
      expect.objectContaining({ section: 'credit_score', source: 'risk_credit_score', code: 'plan_required', status: 403 }),
    );
    expect(r.not_checked).toContainEqual(expect.objectContaining({ section: 'enforcements', source: 'risk_enforcements', status: 500 }));
    expect(r.facts.credit_score).toBeUndefined();
    expect(r.facts.enforcements).toBeUndefined();
    // Everything else answered: the court cases and payment orders of this company still give their flags.
    const courts = await direct.risk.courtCases({ registry_code: failing, limit: 1 });
    expect(r.facts.court_cases).toMatchObject({ total: courts.meta.pagination!.total });
    expect(r.red_flags.map((f) => f.code)).toEqual(expect.arrayContaining(['court_cases', 'payment_orders']));
    expect(r.red_flags.map((f) => f.code)).not.toContain('enforcements');
    expect(r.company).toMatchObject({ registry_code: failing });
    expect(text).toMatch(/incomplete/);
    expect(text).toMatch(/Not checked \(the rest of the answer stands\):\n- credit score: .*plan_required, HTTP 403.*risk_credit_score/);
    expect(text).toMatch(/- enforcement proceedings: .*HTTP 500.*risk_enforcements/);
  }, 120_000);

  it('a wrong check digit is refused before anything is sent, naming the field and the rule', async () => {
    const before = sb.usage(API_KEY).requests;
    const text = errorText(await dd({ company: '13545699' }));
    expect(text).toMatch(/company registry code has a wrong check digit/);
    expect(text).toMatch(/What to do:/);
    expect(sb.usage(API_KEY).requests).toBe(before);
    expect(errorText(await dd({ company: 'EE102224659' }))).toMatch(/company VAT number has a wrong check digit/);
    expect(errorText(await dd({}))).toMatch(/company is required/);
    expect(errorText(await dd({ company: code('active'), lang: 'fi' }))).toMatch(/lang must be/);
  });

  it('a valid code no company has is a not-found error, not an empty report', async () => {
    expect(errorText(await dd({ company: sb.fixtures.unknown_registry_code }))).toMatch(/not_found/);
  });

  it('takes a VAT number or an exact name, and lists the candidates when a name is ambiguous', async () => {
    const byVat = await report({ company: 'EE102224658' });
    expect(byVat.report.registry_code).toBe(code('active'));
    // The holder's profile came with the VAT answer: not read twice.
    expect(byVat.report.cost.requests).toBe(11);
    expect(byVat.report.notes).toEqual(expect.arrayContaining([expect.stringMatching(/VAT number EE102224658/)]));
    const byName = await report({ company: 'lõunaranna tarkvara oü' });
    expect(byName.report.registry_code).toBe(code('active'));
    expect(byName.report.cost.requests).toBe(12);
    expect(byName.text).toMatch(/Found by name/);
    const ambiguous = errorText(await dd({ company: 'Ehitus' }));
    expect(ambiguous).toMatch(/company matches more than one company: .*\(\d{8}, /);
    expect(ambiguous).toMatch(/registry code of the company meant/);
  });

  it('nothing answers (a wrong key): that error is the answer, not a report of eleven failures', async () => {
    const wrongKey = 'sk_live_WRONGKEY_0000000000000000';
    const client = new CompanyDataClient({ baseUrl: sb.url, apiKey: wrongKey, lang: 'en' });
    try {
      const run = runDueDiligence(
        { client, lookupCache: () => ({ get: () => undefined, set: () => undefined }), secrets: [wrongKey] },
        { company: code('active') },
      );
      await expect(run).rejects.toMatchObject({ status: 401 });
    } finally {
      await client.close();
    }
  });

  it('the API key is in no answer', () => {
    expect(JSON.stringify(answers)).not.toContain(API_KEY);
    expect(mcp.stderr()).not.toContain(API_KEY);
  });
});
