/**
 * Fault drill: enrichment under the sandbox's injected faults (429 bursts with Retry-After, 5xx,
 * connection resets, answers slower than the client's time-out) ends in the same sheet as a fault-free
 * run, byte for byte, and bills no query twice except those the retry policy documents.
 *
 * company_data_enriched_at is made deterministic with the engine's injected clock (`now`), so the whole file is
 * compared, no column masked. Two API keys are two sandbox accounts: the fault-free run and the faulty
 * one are billed separately, and faults are queued for the faulty account only.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompanyDataClient } from '../../packages/company-data/src/index';
import { lookupKey } from '@company-data/core/lookup';
import { TransportError, type Transport } from '@company-data/core/transport';
import { lookupQueryProblem } from '@company-data/core/validation';
import { startSandbox } from '../../packages/company-data/src/sandbox';
import { CsvTable } from '../../packages/company-data/src/sheets/csv-table';
import { enrichTable, type EnrichReport } from '../../packages/company-data/src/sheets/enrich';
import { UndiciTransport } from '../../packages/company-data/src/transport/undici';
import { csvOf, drillRows } from './support/rows';

const CLEAN_KEY = 'sk_drill_clean_account_000000000001';
const FAULTY_KEY = 'sk_drill_faulty_account_00000000002';
// Generous: with lookups in flight up to the rate limit, client and sandbox share one loaded process here,
// and an answer later than this would be a time-out the drill did not inject.
const TIMEOUT_MS = 3000;
const now = () => new Date('2026-11-20T10:00:00Z');

type Sb = Awaited<ReturnType<typeof startSandbox>>;
let sb: Sb;
let dir: string;
let rows: string[];

beforeAll(async () => {
  sb = await startSandbox({
    port: 0,
    seed: 1,
    companies: 3000,
    keys: [
      { key: CLEAN_KEY, plan: 'api' },
      { key: FAULTY_KEY, plan: 'api' },
    ],
  });
  dir = mkdtempSync(join(tmpdir(), 'drill-faults-'));
  rows = drillRows(sb.dataset, 1300);
});
afterAll(async () => {
  await sb.close();
  rmSync(dir, { recursive: true, force: true });
});

const billed = (key: string) => sb.usage(key).billed_lookup_queries;

async function control(key: string, method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(sb.url + path, {
    method,
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const j = (await res.json()) as { data: unknown };
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status}`);
  return j.data;
}

/** The real undici transport, recording lookups that got no answer in time (the service may have billed them). */
function recordingTransport(timedOut: { requests: number; queries: number }, failures: string[]): Transport & { close(): Promise<void> } {
  const inner = new UndiciTransport();
  return {
    async request(req) {
      try {
        const res = await inner.request(req);
        if (res.status >= 400) failures.push(String(res.status));
        return res;
      } catch (e) {
        if (e instanceof TransportError) {
          failures.push(e.kind);
          if (e.kind === 'timeout' && req.url.includes('/companies/lookup')) {
            timedOut.requests++;
            timedOut.queries += (JSON.parse(req.body!) as { queries: string[] }).queries.length;
          }
        }
        throw e;
      }
    },
    close: () => inner.close(),
  };
}

describe('enrichment under injected faults', () => {
  it('final CSV equals the fault-free run byte for byte; only timed-out lookups are billed twice', async () => {
    const unique = new Set(rows.filter((r) => !lookupQueryProblem(r) && !lookupKey(r).skipped).map((r) => lookupKey(r).key)).size;
    expect(unique).toBeGreaterThan(800); // at least 9 lookup requests, so faults hit several batches

    // Fault-free run.
    const cleanFile = join(dir, 'clean.csv');
    writeFileSync(cleanFile, csvOf(rows));
    const clean = new CompanyDataClient({ baseUrl: sb.url, apiKey: CLEAN_KEY, timeoutMs: TIMEOUT_MS });
    const cleanReport = await enrichTable({ table: new CsvTable(cleanFile), client: clean, stateDir: join(dir, 'state-clean'), now });
    await clean.close();
    expect(cleanReport.errors).toBe(0);
    expect(billed(CLEAN_KEY)).toBe(unique);

    // The same rows with faults queued for the next requests of the faulty account, in this order.
    const faults = [
      { kind: 'rate_limited', count: 3, retry_after: 1 },
      { kind: 'server_error', count: 1, status: 503 },
      { kind: 'reset', count: 1 },
      { kind: 'slow', count: 1, delay_ms: TIMEOUT_MS + 700 },
      { kind: 'server_error', count: 1, status: 502 },
      { kind: 'rate_limited', count: 2, retry_after: 1 },
      { kind: 'reset', count: 1 },
      { kind: 'slow', count: 1, delay_ms: TIMEOUT_MS + 700 },
    ];
    for (const f of faults) await control(FAULTY_KEY, 'POST', '/sandbox/faults', f);
    const file = join(dir, 'faulty.csv');
    writeFileSync(file, csvOf(rows));
    const timedOut = { requests: 0, queries: 0 };
    const failures: string[] = [];
    const transport = recordingTransport(timedOut, failures);
    const client = new CompanyDataClient({ baseUrl: sb.url, apiKey: FAULTY_KEY, timeoutMs: TIMEOUT_MS, transport });
    const reports: EnrichReport[] = [];
    // A user re-runs the same command until no row has an error; the default mode picks up error rows.
    for (let run = 0; run < 5; run++) {
      const r = await enrichTable({ table: new CsvTable(file), client, stateDir: join(dir, 'state-faulty'), now });
      reports.push(r);
      if (r.errors === 0) break;
    }
    await transport.close();
    // Slow answers finish (and bill) after the client gave up on them.
    await new Promise((r) => setTimeout(r, 1000));
    expect((await control(FAULTY_KEY, 'GET', '/sandbox/faults')) as unknown[]).toEqual([]);

    // Every kind of fault happened, and the first run lost rows to the ones the client may not retry.
    expect(failures.filter((f) => f === '429')).toHaveLength(5);
    expect(failures).toEqual(expect.arrayContaining(['503', '502', 'reset', 'timeout']));
    expect(reports[0]!.errors).toBeGreaterThan(0);
    expect(reports.at(-1)!.errors).toBe(0);
    expect(reports.length).toBeGreaterThanOrEqual(2);

    expect(readFileSync(file).equals(readFileSync(cleanFile))).toBe(true);

    // Billing: each unique query once, plus the lookups that timed out (the retry policy's documented
    // case: processed and billed by the service, answer never received, sent again by the re-run).
    expect(timedOut.requests).toBe(2);
    expect(billed(FAULTY_KEY)).toBe(unique + timedOut.queries);
    const paid = reports.reduce((s, r) => s + r.billedQueries, 0);
    expect(paid).toBe(unique);
  });
});
