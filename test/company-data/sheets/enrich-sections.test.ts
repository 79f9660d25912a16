/**
 * enrich --sections over real HTTP against the sandbox (seed 1): one profile request per matched
 * company, the section columns for the fixture companies of docs/sandbox.md, the dry-run preview,
 * and billing per lookup query only (profile reads are requests, not billed lookups).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enrichCommand } from '../../../packages/company-data/src/cli/commands/enrich';
import { CompanyDataClient } from '../../../packages/company-data/src/index';
import { startSandbox } from '../../../packages/company-data/src/sandbox';
import { runCommand } from '../../support/run-command';

type Sb = Awaited<ReturnType<typeof startSandbox>>;
let sb: Sb;
let dir: string;
// The test reads profiles and usage through the client, as a library user would.
let client: CompanyDataClient;
beforeAll(async () => {
  // No rate limit: a 429 and its retry would count as two requests and blur the request counts compared here.
  sb = await startSandbox({ port: 0, seed: 1, companies: 2000, rateLimit: false });
  client = new CompanyDataClient({ baseUrl: sb.url, apiKey: sb.apiKey });
  dir = mkdtempSync(join(tmpdir(), 'enrich-sections-'));
});
afterAll(async () => {
  await client.close();
  await sb.close();
  rmSync(dir, { recursive: true, force: true });
});

const usage = async () => (await client.reference.usage()).data as { requests: number; billed_lookup_queries: number };

const runEnrich = async (args: string[]) => (await runCommand(enrichCommand(), args)).out;

describe('enrich --sections credit_score,tax_debt against the sandbox', () => {
  it('dry run previews the profile requests; the run writes the sections, one profile read per company, billed per lookup query', async () => {
    const fx = sb.fixtures.companies;
    const taxDebt = fx.tax_debt!;
    const active = fx.active!;
    const bankrupt = fx.status_bankrupt!;
    // The fixtures docs/sandbox.md names for these cases.
    expect([taxDebt.registry_code, active.registry_code, bankrupt.registry_code]).toEqual(['14453248', '13545698', '12623091']);
    const keys = [
      taxDebt.registry_code,
      taxDebt.registry_code, // a duplicate row: one query, one profile read
      active.registry_code,
      active.vat_number!, // the same company by VAT: a second query, still one profile read
      bankrupt.registry_code,
      sb.fixtures.unknown_registry_code, // no match: no profile read
      '13545690', // wrong check digit: never sent
    ];
    const file = join(dir, 'leads.csv');
    writeFileSync(file, 'company,owner\n' + keys.map((k, i) => `${k},rep${i}`).join('\n') + '\n');
    const original = readFileSync(file, 'utf8');
    const api = [
      '--base-url',
      sb.url,
      '--api-key',
      sb.apiKey,
      '--state-dir',
      join(dir, 'state'),
      '--sections',
      'credit_score,tax_debt',
      '--fields',
      'name',
    ];

    const u0 = await usage();
    const dry = await runEnrich([file, '--dry-run', ...api]);
    const u1 = await usage();
    expect(dry).toContain('Unique queries: 5');
    expect(dry).toContain('Requests: 1 lookup request(s)');
    expect(dry).toContain('Billed queries: 5');
    // Matches are unknown before the lookup, so the preview is the most it can be: one per query.
    expect(dry).toContain('Profile requests for sections: 5 at most (one per matched company; not in the billed queries)');
    expect(readFileSync(file, 'utf8')).toBe(original);
    expect(u1.billed_lookup_queries).toBe(u0.billed_lookup_queries);
    const perUsageCall = u1.requests - u0.requests; // the usage read itself, however the sandbox counts it

    const run = await runEnrich([file, ...api]);
    const u2 = await usage();
    expect(run).toContain('Requests: 1; billed queries: 5');
    expect(run).toContain('Profile requests for sections: 3\n');
    expect(u2.billed_lookup_queries - u1.billed_lookup_queries).toBe(5);
    // One lookup request and three profile reads, none of them billed as lookups.
    expect(u2.requests - u1.requests - perUsageCall).toBe(1 + 3);

    const rows = parse(readFileSync(file, 'utf8')) as string[][];
    const h = rows[0]!;
    expect(h).toEqual([
      'company',
      'owner',
      'company_data_status',
      'company_data_query',
      'company_data_reason',
      'company_data_match_name',
      'company_data_match_credit_score',
      'company_data_match_tax_debt',
      'company_data_enriched_at',
    ]);
    const col = (r: string[], name: string) => r[h.indexOf(name)];

    // Expected cells from the profiles read here, independently of enrich.
    const profile = async (code: string) => {
      const p = (await client.companies.get({ registry_code: code, include: ['credit_score', 'tax_debt'] })).data as Record<
        string,
        unknown
      >;
      const cs = p.credit_score as { rated: boolean; rating: string | null; score: number | null; reason: string | null };
      const td = p.tax_debt as { total: number };
      return { credit: cs.rated ? `${cs.rating} (${cs.score})` : `not rated (${cs.reason})`, tax: String(td.total), cs, td };
    };
    const t = await profile(taxDebt.registry_code);
    const a = await profile(active.registry_code);
    const b = await profile(bankrupt.registry_code);
    expect(t.td.total).toBeGreaterThan(0);
    expect(a.cs.rated).toBe(true);
    expect(a.td.total).toBe(0);
    expect(b.cs.rated).toBe(false);

    const status = (r: string[]) => [col(r, 'company_data_status'), col(r, 'company_data_reason')].filter(Boolean).join(': ');
    const cells = rows
      .slice(1)
      .map((r) => [
        status(r),
        col(r, 'company_data_match_name'),
        col(r, 'company_data_match_credit_score'),
        col(r, 'company_data_match_tax_debt'),
      ]);
    expect(cells).toEqual([
      ['matched', taxDebt.name, t.credit, t.tax],
      ['matched', taxDebt.name, t.credit, t.tax],
      ['matched', active.name, a.credit, '0'],
      ['matched', active.name, a.credit, '0'],
      ['matched', bankrupt.name, 'not rated (bankrupt)', b.tax],
      ['no_match', '', '', ''],
      ['invalid: registry code has a wrong check digit (last digit)', '', '', ''],
    ]);
    expect(a.credit).toMatch(/^[A-D]{1,3} \(\d+\)$/);
    expect(rows.slice(1).map((r) => col(r, 'owner'))).toEqual(keys.map((_, i) => `rep${i}`));

    // A second run: every row is enriched, so no lookup and no profile read.
    const u3 = await usage();
    const again = await runEnrich([file, ...api]);
    const u4 = await usage();
    expect(again).toContain('Requests: 0; billed queries: 0');
    expect(again).not.toContain('Profile requests');
    expect(u4.billed_lookup_queries).toBe(u2.billed_lookup_queries);
    expect(u4.requests - u3.requests - perUsageCall).toBe(0);
  });
});
