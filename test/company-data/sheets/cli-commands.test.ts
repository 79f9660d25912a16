import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enrichCommand } from '../../../packages/company-data/src/cli/commands/enrich';
import { startLookupServer, type LookupServer } from './support/lookup-server';
import { runCommand } from '../../support/run-command';

let server: LookupServer;
let dir: string;
beforeAll(async () => {
  server = await startLookupServer();
  dir = mkdtempSync(join(tmpdir(), 'cli-enrich-'));
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const runEnrich = (args: string[]) => runCommand(enrichCommand(), args);

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
    expect(rows[0]).toEqual([
      'Registrikood',
      'Märkus',
      'company_data_status',
      'company_data_query',
      'company_data_reason',
      'company_data_match_name',
      'company_data_match_status',
      'company_data_enriched_at',
    ]);
    expect(rows.slice(1).map((r) => [r[2], r[4]])).toEqual([
      ['matched', ''],
      ['matched', ''],
      ['matched', ''],
      ['invalid', 'registry code has a wrong check digit (last digit)'],
      ['skipped', 'needs a word of 3 or more characters'],
    ]);
    expect(run.out + run.err).not.toContain(server.apiKey);
  });

  it('names the field and the rule on bad input', async () => {
    await expect(runEnrich([join(dir, 'x.ods'), '--base-url', server.url, '--api-key', server.apiKey])).rejects.toThrow(
      /file: .* must end in \.csv or \.xlsx/,
    );
    await expect(runEnrich([join(dir, 'x.csv'), '--base-url', server.url])).rejects.toThrow(/api-key: is required with --base-url/);
    await expect(runEnrich([join(dir, 'x.csv'), '--mode', 'sometimes'])).rejects.toThrow(/mode: must be missing, all, or older-than:DAYS/);
    await expect(runEnrich([join(dir, 'x.csv'), '--fields', 'name,status_code'])).rejects.toThrow(
      /fields: status_code: is now "status" \(the code\)/,
    );
    await expect(runEnrich([join(dir, 'x.csv'), '--fields', 'name,colour'])).rejects.toThrow(/fields: "colour" is not one of/);
  });

  it('a missing input file is named before anything starts; a half-given or odd base URL is named first', async () => {
    const missing = join(dir, 'missing.csv');
    await expect(runEnrich([missing, '--base-url', server.url, '--api-key', server.apiKey])).rejects.toThrow(
      `file: ${missing} does not exist`,
    );
    await expect(runEnrich([join(dir, 'missing.xlsx'), '--base-url', server.url, '--api-key', server.apiKey])).rejects.toThrow(
      /file: .*missing\.xlsx does not exist/,
    );
    expect(existsSync(missing)).toBe(false);
    await expect(runEnrich([missing, '--base-url', 'api.example.com', '--api-key', server.apiKey])).rejects.toThrow(
      'base-url: must be an http:// or https:// address',
    );
  });

  it('when requests fail, the report says why and what happens next, the exit code is 2 and the key never shows', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const src = join(dir, 'refused.csv');
    writeFileSync(src, 'registry_code\n10000001\n');
    const before = process.exitCode;
    try {
      const run = await runEnrich([
        src,
        '--base-url',
        `http://127.0.0.1:${port}`,
        '--api-key',
        server.apiKey,
        '--state-dir',
        join(dir, 'state-refused'),
      ]);
      expect(run.out).toMatch(/^Finished with errors\. Key column: registry_code/);
      expect(run.out).toMatch(/errors 1\n/);
      expect(run.out).toMatch(
        /Error: The connection was refused.*\(connection_refused\)\. Could not reach the service\. Check the base URL.*Rows with an error are tried again on the next run\./,
      );
      expect(process.exitCode).toBe(2);
      expect(run.out + run.err + readFileSync(src, 'utf8')).not.toContain(server.apiKey);
    } finally {
      process.exitCode = before;
    }
  });
});
