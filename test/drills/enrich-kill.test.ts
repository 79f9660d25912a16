/**
 * Drill: `company-data enrich` killed mid-run (SIGKILL, no chance to save) and run again with the same
 * command. No row is lost, every row ends enriched exactly as in an uninterrupted run, and answers the
 * killed run received are not paid for again (only the one request in flight at the kill may be).
 *
 * The CLI has no clock option, so the comparison with the uninterrupted run masks the company_data_enriched_at
 * column (run times differ); every other cell is compared.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lookupKey } from '@company-data/core/lookup';
import { lookupQueryProblem } from '@company-data/core/validation';
import { startSandbox } from '../../packages/company-data/src/sandbox';
import { runCli, spawnCli } from './support/cli';
import { csvOf, drillRows } from './support/rows';

const KEY = 'sk_drill_kill_account_000000000001';
const REF_KEY = 'sk_drill_kill_reference_0000000002';

type Sb = Awaited<ReturnType<typeof startSandbox>>;
let sb: Sb;
let dir: string;

beforeAll(async () => {
  sb = await startSandbox({
    port: 0,
    seed: 1,
    companies: 4000,
    keys: [
      { key: KEY, plan: 'api' },
      { key: REF_KEY, plan: 'api' },
    ],
  });
  dir = mkdtempSync(join(tmpdir(), 'drill-kill-'));
});
afterAll(async () => {
  await sb.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Lookups in flight at most when killed: a burst of 10 requests of 100 queries. */
const IN_FLIGHT_QUERIES = 1000;
const billed = (key: string) => sb.usage(key).billed_lookup_queries;
const masked = (file: string) => {
  const rows = parse(readFileSync(file, 'utf8')) as string[][];
  const at = rows[0]!.indexOf('company_data_enriched_at');
  return rows.map((r, i) => (i === 0 ? r : r.map((c, j) => (j === at ? (c ? 'SET' : '') : c))));
};

describe('enrich killed mid-run and run again', () => {
  it('loses no row and does not pay again for answers already received', async () => {
    const rows = drillRows(sb.dataset, 3600);
    const unique = new Set(rows.filter((r) => !lookupQueryProblem(r) && !lookupKey(r).skipped).map((r) => lookupKey(r).key)).size;
    expect(unique).toBeGreaterThan(2000); // 21+ requests at 10/s: long enough to be killed in the middle

    const reference = join(dir, 'reference.csv');
    writeFileSync(reference, csvOf(rows));
    const ref = await runCli(['enrich', reference, '--state-dir', join(dir, 'ref-state')], {
      COMPANY_DATA_BASE_URL: sb.url,
      COMPANY_DATA_API_KEY: REF_KEY,
    });
    expect(ref.code).toBe(0);

    const file = join(dir, 'leads.csv');
    writeFileSync(file, csvOf(rows));
    const stateDir = join(dir, 'state');
    const env = { COMPANY_DATA_BASE_URL: sb.url, COMPANY_DATA_API_KEY: KEY };
    const child = spawnCli(['enrich', file, '--state-dir', stateDir], env);
    const journalLines = () => {
      const j = existsSync(stateDir) ? readdirSync(stateDir).find((f) => f.startsWith('enrich-') && f.endsWith('.jsonl')) : undefined;
      // Complete lines only (a kill can tear the last one), minus the scope line.
      return j ? Math.max(0, readFileSync(join(stateDir, j), 'utf8').split('\n').length - 2) : 0;
    };
    await new Promise<void>((resolve, reject) => {
      const t = setInterval(() => {
        if (journalLines() >= 600) {
          clearInterval(t);
          child.kill('SIGKILL');
          resolve();
        }
      }, 10);
      child.once('exit', () => (clearInterval(t), reject(new Error('enrich finished before it was killed'))));
    });
    const killed = await child.output;
    expect(killed.code).toBeNull();
    await new Promise((r) => setTimeout(r, 300));
    const paidByKilled = billed(KEY);
    const journalled = journalLines();
    expect(paidByKilled).toBeLessThan(unique);
    // Answers billed but never journalled: at most the lookups in flight at the kill (one window of the rate limit).
    expect(paidByKilled - journalled).toBeLessThanOrEqual(IN_FLIGHT_QUERIES);

    const again = await runCli(['enrich', file, '--state-dir', stateDir], env);
    expect(again.code).toBe(0);
    const reused = Number(/(\d+) answered in the interrupted run/.exec(again.stdout)?.[1]);
    expect(reused).toBe(journalled);
    const paidByRerun = billed(KEY) - paidByKilled;
    expect(paidByRerun).toBe(unique - reused);
    expect(billed(KEY) - unique).toBeLessThanOrEqual(IN_FLIGHT_QUERIES);

    // No row lost: same rows, same order, same input cells, same results as the uninterrupted run.
    const final = masked(file);
    expect(final).toHaveLength(rows.length + 1);
    expect(final.slice(1).map((r) => r[0])).toEqual(rows);
    const status = final[0]!.indexOf('company_data_status');
    expect(final.slice(1).filter((r) => !/^(matched|no_match|vat_group|invalid|skipped)/.test(r[status]!))).toEqual([]);
    expect(final).toEqual(masked(reference));
    // A finished run leaves no journal behind.
    expect(journalLines()).toBe(0);
  }, 60_000);
});
