import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enrichCommand } from '../../src/cli/commands/enrich';
import { startLookupServer, type LookupServer } from './support/lookup-server';

let server: LookupServer;
let dir: string;
beforeAll(async () => {
  server = await startLookupServer();
  dir = mkdtempSync(join(tmpdir(), 'cli-enrich-'));
});
afterAll(() => server.close());

async function runEnrich(args: string[]): Promise<{ out: string; err: string }> {
  let out = '';
  let err = '';
  const o = process.stdout.write.bind(process.stdout);
  const e = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((s: string) => ((out += s), true)) as typeof process.stdout.write;
  process.stderr.write = ((s: string) => ((err += s), true)) as typeof process.stderr.write;
  try {
    await enrichCommand().exitOverride().parseAsync(args, { from: 'user' });
  } finally {
    process.stdout.write = o;
    process.stderr.write = e;
  }
  return { out, err };
}

describe('company-data enrich', () => {
  it('dry run prints the cost preview and changes nothing; a real run writes --out; the key never shows', async () => {
    const src = join(dir, 'leads.csv');
    const original = 'Registrikood;Märkus\n10000001;a\n10000001;b\n10000018;\n10000019;typo\nab;\n';
    writeFileSync(src, original);
    const api = ['--base-url', server.url, '--api-key', server.apiKey, '--state-dir', join(dir, 'state')];
    const dry = await runEnrich([src, '--dry-run', ...api]);
    expect(dry.out).toContain('Rows: 5 in the table, 5 to enrich');
    expect(dry.out).toContain('Unique queries: 2');
    expect(dry.out).toContain('Requests: 1 lookup request(s)');
    expect(dry.out).toContain('Billed queries: 2');
    expect(readFileSync(src, 'utf8')).toBe(original);
    expect(server.billed).toBe(0);

    const out = join(dir, 'leads-enriched.csv');
    const run = await runEnrich([src, '--out', out, '--fields', 'name,status', ...api]);
    expect(run.out).toMatch(/billed queries: 2/);
    expect(readFileSync(src, 'utf8')).toBe(original);
    const rows = parse(readFileSync(out, 'utf8'), { delimiter: ';' }) as string[][];
    expect(rows[0]).toEqual(['Registrikood', 'Märkus', 'name', 'status', 'enrich_status', 'enriched_at']);
    expect(rows.slice(1).map((r) => r[4])).toEqual(['matched', 'matched', 'matched', 'invalid: registry code has a wrong check digit (last digit)', 'skipped: query_too_short']);
    expect(run.out + run.err).not.toContain(server.apiKey);
  });

  it('names the field and the rule on bad input', async () => {
    await expect(runEnrich([join(dir, 'x.ods'), '--base-url', server.url, '--api-key', server.apiKey])).rejects.toThrow(/file: .* must end in \.csv or \.xlsx/);
    await expect(runEnrich([join(dir, 'x.csv'), '--base-url', server.url])).rejects.toThrow(/api-key: is required with --base-url/);
    await expect(runEnrich([join(dir, 'x.csv'), '--mode', 'sometimes'])).rejects.toThrow(/mode: must be missing, all, or older-than:DAYS/);
    await expect(runEnrich([join(dir, 'x.csv'), '--fields', 'name,colour'])).rejects.toThrow(/fields: "colour" is not one of/);
  });
});
