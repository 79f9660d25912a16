import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CompanyDataClient } from '../../../packages/company-data/src/index';
import { enrichTable, findKeyColumn } from '../../../packages/company-data/src/sheets/enrich';
import { MemoryTable } from '../../../packages/company-data/src/sheets/table';
import { startLookupServer, type LookupServer } from './support/lookup-server';

let server: LookupServer;
let client: CompanyDataClient;
let stateDir: string;
beforeAll(async () => {
  server = await startLookupServer();
  server.unknown.add('10000024');
  server.vatHolders.set('EE100000010', 3);
  client = new CompanyDataClient({ baseUrl: server.url, apiKey: server.apiKey });
});
afterAll(async () => {
  await client.close();
  await server.close();
});
beforeEach(() => {
  stateDir = mkdtempSync(join(tmpdir(), 'enrich-state-'));
  server.billed = 0;
  server.requests = 0;
  server.received.length = 0;
});
afterEach(() => rmSync(stateDir, { recursive: true, force: true }));

const col = (t: MemoryTable, name: string) => t.grid.slice(1).map((r) => r[t.grid[0]!.indexOf(name)] ?? '');

describe('key column', () => {
  it('finds registry code, VAT and name headers, registry code first; not its own output columns', () => {
    expect(findKeyColumn(['company', 'registry_code', 'enrich_status'])).toBe(0);
    expect(findKeyColumn(['registry_code', 'matched_registry_code', 'enrich_status'])).toBe(0);
    expect(findKeyColumn(['Firma', 'Registrikood'])).toBe(1);
    expect(findKeyColumn(['Company name', 'KMKR nr'])).toBe(1);
    expect(findKeyColumn(['id', 'Company'])).toBe(1);
    expect(findKeyColumn(['a', 'Code'], 'code')).toBe(1);
    expect(() => findKeyColumn(['a', 'b'])).toThrow(/column: no registry code, VAT number or name header/);
    expect(() => findKeyColumn(['a'], 'x')).toThrow(/column: no header "x"/);
  });
});

describe('enrich engine', () => {
  it('classifies, dedupes before billing, writes statuses and keeps typed cells', async () => {
    const t = new MemoryTable([
      ['Registry code', 'name', 'note'],
      ['10000001', 'typed by a person', 'x'],
      [' 10000001 ', '', ''],
      ['10000018', '', ''],
      ['10000024', '', ''],
      ['10000019', '', ''],
      ['EE100000010', '', ''],
      ['100000007', '', ''],
      ['EE100000007', '', ''],
      ['EE123', '', ''],
      ['Bo', '', ''],
      ['', '', 'no key: left alone'],
      ['Lõunaranna Tarkvara', '', ''],
    ]);
    const r = await enrichTable({
      table: t,
      client,
      fields: ['name', 'registry_code', 'status'],
      stateDir,
      now: () => new Date('2025-01-02T03:04:05Z'),
    });
    // The n8n Lookup's words and reasons, in the same columns.
    expect(col(t, 'company_data_status')).toEqual([
      'matched',
      'matched',
      'matched',
      'no_match',
      'invalid',
      'vat_group',
      'matched',
      'matched',
      // "EE123" is not of a VAT form, so the service would read it as a name.
      'matched',
      'skipped',
      '',
      'matched',
    ]);
    expect(col(t, 'company_data_reason')).toEqual([
      '',
      '',
      '',
      '',
      'registry code has a wrong check digit (last digit)',
      '3 holders',
      '',
      '',
      '',
      'needs a word of 3 or more characters',
      '',
      '',
    ]);
    // Duplicates (the same code with spaces; VAT with and without EE) were sent once.
    expect(server.received.filter((q) => q === '10000001')).toHaveLength(1);
    expect(server.received.filter((q) => q.endsWith('100000007'))).toHaveLength(1);
    expect(server.received).not.toContain('10000019');
    expect(server.received).not.toContain('Bo');
    expect(r.billedQueries).toBe(server.billed);
    expect(r.billedQueries).toBe(r.uniqueQueries);
    // The person's "name" column is theirs: never written; the company's name has a column of its own.
    expect(col(t, 'name')).toEqual(['typed by a person', ...Array<string>(11).fill('')]);
    expect(r.personColumns).toEqual(['name']);
    expect(r.keptCells).toBe(0);
    expect(col(t, 'company_data_match_name')[0]).toBe('Company 10000001 OÜ');
    expect(col(t, 'company_data_match_status')[0]).toBe('R');
    expect(col(t, 'company_data_enriched_at')[0]).toBe('2025-01-02T03:04:05Z');
    expect(col(t, 'company_data_enriched_at')[4]).toBe('');
    expect(t.grid[11]!.slice(0, 3)).toEqual(['', '', 'no key: left alone']);
    expect(t.grid[11]!.slice(3).join('')).toBe('');

    // A second run in the default mode bills nothing.
    server.billed = 0;
    const again = await enrichTable({ table: t, client, fields: ['name', 'registry_code', 'status'], stateDir });
    expect(server.billed).toBe(0);
    expect(again.billedQueries).toBe(0);

    // Not even --force (or --mode all) writes a person's column.
    await enrichTable({ table: t, client, fields: ['name'], stateDir, mode: 'all', force: true });
    expect(col(t, 'name')[0]).toBe('typed by a person');
    expect(col(t, 'company_data_match_name')[0]).toBe('Company 10000001 OÜ');
  });

  it('dry run counts without sending; max-billed-queries refuses before sending and says how many it would bill', async () => {
    const rows = Array.from({ length: 250 }, (_, i) => [`Firm number ${i % 230}`]);
    const t = new MemoryTable([['company'], ...rows]);
    const dry = await enrichTable({ table: t, client, dryRun: true, stateDir });
    expect(dry).toMatchObject({ rows: 250, rowsInScope: 250, uniqueQueries: 230, requests: 3, billedQueries: 230 });
    expect(server.requests).toBe(0);
    expect(t.calls.write).toBe(0);

    await expect(enrichTable({ table: t, client, maxBilledQueries: 120, stateDir })).rejects.toMatchObject({
      field: 'maxBilledQueries',
      code: 'over_billing_cap',
      message: expect.stringMatching(/is 120, but this run would bill 230 unique queries/),
    });
    // The dry run says the same, the same way: check before paying.
    await expect(enrichTable({ table: t, client, maxBilledQueries: 120, stateDir, dryRun: true })).rejects.toThrow(/would bill 230/);
    expect(server.requests).toBe(0);
    expect(t.calls.write).toBe(0);
    await enrichTable({ table: t, client, maxBilledQueries: 230, stateDir });
    expect(server.billed).toBe(230);
    expect(col(t, 'company_data_status').every((s) => s === 'matched')).toBe(true);
  });

  it('a whole table (XLSX, Google Sheets) is saved every flushEveryMs while the lookups run, showing progress, and once at the end', async () => {
    // One request at a time, 80 ms each: 5 requests take 400 ms.
    let queue = Promise.resolve();
    const slow = {
      serviceUrl: server.url,
      companies: client.companies,
      lookupSender: () => {
        const s = client.lookupSender();
        return (input: Parameters<typeof s>[0], o?: Parameters<typeof s>[1]) => {
          const turn = queue.then(() => new Promise<void>((r) => setTimeout(r, 80)));
          queue = turn;
          return turn.then(() => s(input, o));
        };
      },
    };
    const saves: number[] = [];
    const t = new (class extends MemoryTable {
      override async flush() {
        saves.push(col(this, 'company_data_status').filter((v) => v === 'matched').length);
      }
    })([['company'], ...Array.from({ length: 500 }, (_, i) => [`Firm number ${i}`])]);
    const r = await enrichTable({ table: t, client: slow, stateDir, flushEveryMs: 100 });
    expect(r.matched).toBe(500);
    expect(saves.length).toBeGreaterThanOrEqual(3);
    expect(saves.length).toBeLessThanOrEqual(7);
    // Saves in between hold some rows, not none and not all; the last holds every row.
    expect(saves.slice(0, -1).some((n) => n > 0 && n < 500)).toBe(true);
    expect(saves.at(-1)).toBe(500);
  });

  it('a key edited by a person after enrich is looked up again: the row gets the new company, never keeps the old one', async () => {
    const t = new MemoryTable([
      ['registry code', 'note'],
      ['10000001', 'a'],
      ['10000018', 'b'],
      ['10000001', 'c'],
      ['10000018', 'd'],
    ]);
    await enrichTable({ table: t, client, fields: ['name', 'registry_code'], stateDir });
    expect(col(t, 'company_data_match_name')).toEqual([
      'Company 10000001 OÜ',
      'Company 10000018 OÜ',
      'Company 10000001 OÜ',
      'Company 10000018 OÜ',
    ]);
    expect(col(t, 'company_data_query')).toEqual(['10000001', '10000018', '10000001', '10000018']);
    // A person edits keys: to another company, to one with no match, to an invalid code, and empties one.
    t.grid[1]![0] = '10000030';
    t.grid[2]![0] = '10000024';
    t.grid[3]![0] = '10000002';
    t.grid[4]![0] = '';
    server.received.length = 0;
    const r = await enrichTable({ table: t, client, fields: ['name', 'registry_code'], stateDir });
    expect(server.received.sort()).toEqual(['10000024', '10000030']);
    expect(r).toMatchObject({ matched: 1, noMatch: 1, invalid: 1, billedQueries: 2 });
    expect(col(t, 'company_data_match_name')).toEqual(['Company 10000030 OÜ', '', '', '']);
    expect(col(t, 'company_data_match_registry_code')).toEqual(['10000030', '', '', '']);
    expect(col(t, 'company_data_status')).toEqual(['matched', 'no_match', 'invalid', '']);
    expect(col(t, 'company_data_reason')).toEqual(['', '', 'registry code has a wrong check digit (last digit)', '']);
    // An invalid key is recorded with its status (the n8n Lookup records every query), never with a time.
    expect(col(t, 'company_data_query')).toEqual(['10000030', '10000024', '10000002', '']);
    expect(col(t, 'company_data_enriched_at').map((v) => v !== '')).toEqual([true, true, false, false]);
    expect(col(t, 'note')).toEqual(['a', 'b', 'c', 'd']);
    // The same key written differently is the same query: nothing is looked up again.
    t.grid[1]![0] = ' 10000030 ';
    server.received.length = 0;
    await enrichTable({ table: t, client, fields: ['name', 'registry_code'], stateDir });
    expect(server.received).toEqual([]);
  });

  it('a sheet of the old version without enrich_query: an edited code is looked up again; the rest is not paid again and keeps its old columns', async () => {
    const old = () =>
      new MemoryTable([
        ['registry_code', 'name', 'matched_registry_code', 'enrich_status', 'enriched_at'],
        ['10000030', 'Company 10000001 OÜ', '10000001', 'matched', '2025-01-01T00:00:00Z'],
        ['10000018', 'Company 10000018 OÜ', '10000018', 'matched', '2025-01-01T00:00:00Z'],
        ['Lõunaranna Tarkvara', 'Some name', 'x', 'matched', '2025-01-01T00:00:00Z'],
      ]);
    const t = old();
    const r = await enrichTable({ table: t, client, fields: ['name', 'registry_code'], stateDir });
    expect(server.received).toEqual(['10000030']);
    expect(col(t, 'company_data_match_name')).toEqual(['Company 10000030 OÜ', '', '']);
    expect(col(t, 'company_data_query')).toEqual(['10000030', '', '']);
    // The old columns are never written (a bare "name" may be a person's), except the old state of a row that moved.
    expect(col(t, 'name')).toEqual(['Company 10000001 OÜ', 'Company 10000018 OÜ', 'Some name']);
    expect(col(t, 'enrich_status')).toEqual(['', 'matched', 'matched']);
    expect(r.legacyRows).toBe(2);
    // With their answers in the answer cache (another sheet paid for them), the old rows move over free.
    await enrichTable({ table: new MemoryTable([['registry code'], ['10000018'], ['Lõunaranna Tarkvara']]), client, stateDir });
    const billed = server.billed;
    const moved = await enrichTable({ table: t, client, fields: ['name', 'registry_code'], stateDir });
    expect(server.billed).toBe(billed);
    expect(moved).toMatchObject({ legacyRows: 0, billedQueries: 0, fromCache: 2 });
    expect(col(t, 'company_data_match_name')).toEqual(['Company 10000030 OÜ', 'Company 10000018 OÜ', 'Lõunaranna Tarkvara']);
    expect(col(t, 'enrich_status')).toEqual(['', '', '']);
    expect(col(t, 'name')).toEqual(['Company 10000001 OÜ', 'Company 10000018 OÜ', 'Some name']);
  });

  it('re-enriches rows older than N days and overwrites only its own cells', async () => {
    const t = new MemoryTable([
      ['registry_code', 'name', 'company_data_status', 'company_data_query', 'company_data_match_name', 'company_data_enriched_at'],
      ['10000001', 'Mari', 'matched', '10000001', 'Old Name', '2024-01-01T00:00:00Z'],
      ['10000018', 'Jüri', 'matched', '10000018', 'Recent', '2025-01-01T00:00:00Z'],
    ]);
    const r = await enrichTable({
      table: t,
      client,
      fields: ['name'],
      mode: { olderThanDays: 30 },
      stateDir,
      now: () => new Date('2025-01-10T00:00:00Z'),
    });
    expect(r.rowsInScope).toBe(1);
    expect(server.received).toEqual(['10000001']);
    expect(col(t, 'company_data_match_name')).toEqual(['Company 10000001 OÜ', 'Recent']);
    expect(col(t, 'name')).toEqual(['Mari', 'Jüri']);
  });

  it('resumes an interrupted run without paying again for answered queries', async () => {
    // 2,000 codes, 20 requests: more than the rate limit lets out at once, so a stop leaves some unsent.
    const t = new MemoryTable([['registry code'], ...Array.from({ length: 2000 }, (_, i) => [fix(String(10000000 + i * 10))])]);
    const unique = new Set(t.grid.slice(1).map((r) => r[0])).size;
    const controller = new AbortController();
    // Stop after the second answer: the requests already in flight finish, every answered row is saved, nothing more is sent.
    const first = await enrichTable({
      table: t,
      client,
      stateDir,
      signal: controller.signal,
      onProgress: (p) => p.requests >= 2 && controller.abort(),
    });
    expect(first.interrupted).toBe(true);
    const paidFirst = server.billed;
    expect(paidFirst).toBe(first.billedQueries);
    expect(paidFirst).toBeLessThan(unique);
    const answered = new Set(
      t.grid
        .slice(1)
        .filter((r) => ['matched', 'no_match'].includes(r[t.grid[0]!.indexOf('company_data_status')]!))
        .map((r) => r[0]),
    );
    expect(answered.size).toBe(paidFirst);
    await enrichTable({ table: t, client, stateDir });
    expect(server.billed).toBe(unique);
    expect(col(t, 'company_data_status').filter((s) => s !== 'matched' && s !== 'no_match')).toEqual([]);
  });

  it('a failed profile request for sections counts as an error of its rows and is reported', async () => {
    // This stand-in answers only the lookup: every profile read is a 404.
    const t = new MemoryTable([['registry_code'], ['10000001'], ['10000001'], ['10000018']]);
    const report = await enrichTable({ table: t, client, sections: ['credit_score'], stateDir });
    expect(report.matched).toBe(3);
    expect(report.profileRequests).toBe(2);
    expect(report.errors).toBe(3);
    expect(report.firstError).toMatchObject({ code: 'not_found' });
    expect(col(t, 'company_data_status')).toEqual(['error', 'error', 'error']);
    expect(col(t, 'company_data_reason')[0]).toMatch(/^profile sections: /);
  });
});

/** Registry code with the right check digit for the first 7 digits of n. */
function fix(n: string): string {
  const s = n.slice(0, 7);
  const w1 = [1, 2, 3, 4, 5, 6, 7];
  const w2 = [3, 4, 5, 6, 7, 8, 9];
  let c = [...s].reduce((a, d, i) => a + Number(d) * w1[i]!, 0) % 11;
  if (c === 10) c = ([...s].reduce((a, d, i) => a + Number(d) * w2[i]!, 0) % 11) % 10;
  return s + String(c);
}
