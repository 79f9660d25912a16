/**
 * The core's enrich engine on its ports alone, as the n8n node runs it: no files, no timers of its own. A store
 * of paid answers in memory, a lock in memory, a clock of its own, over a real HTTP lookup service.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  enrichSheet,
  MemoryTable,
  type AnswerScope,
  type LockedTable,
  type PaidAnswerStore,
  type SheetsClock,
  type WriterLocks,
} from '@company-data/core/sheets';
import type { LookupResult } from '@company-data/core/schemas/company';
import { CompanyDataClient } from '../../../packages/company-data/src/index';
import { startLookupServer, type LookupServer } from '../../company-data/sheets/support/lookup-server';

let server: LookupServer;
let client: CompanyDataClient;
beforeAll(async () => {
  server = await startLookupServer();
  client = new CompanyDataClient({ baseUrl: server.url, apiKey: server.apiKey });
});
afterAll(async () => {
  await client.close();
  await server.close();
});

/** Paid answers in memory: what an n8n node might keep in a workflow's static data. */
class MemoryAnswers implements PaidAnswerStore {
  readonly answers = new Map<string, LookupResult>();
  fromJournal = 0;
  fromCache = 0;
  finished: boolean[] = [];
  readonly location = 'memory';
  scopes: AnswerScope[] = [];
  get(key: string) {
    const a = this.answers.get(key);
    if (a) this.fromCache++;
    return a;
  }
  set(key: string, answer: LookupResult) {
    this.answers.set(key, answer);
  }
  free(keys: readonly string[]) {
    return keys.filter((k) => this.answers.has(k));
  }
  finish(keepProgress: boolean) {
    this.finished.push(keepProgress);
  }
}

class MemoryLocks implements WriterLocks {
  readonly held = new Set<string>();
  acquire(table: LockedTable) {
    if (this.held.has(table.id)) throw new Error(`lock: ${table.label} is being written by another run`);
    this.held.add(table.id);
    return { release: () => void this.held.delete(table.id) };
  }
}

/** The real time, and a sleep the save loop calls off (by its signal) when answers arrive. */
const clock = (): SheetsClock => ({
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(resolve, ms);
      signal?.addEventListener('abort', () => (clearTimeout(t), resolve()));
    }),
});

const rows = (codes: string[]) => [['Registry code'], ...codes.map((c) => [c])];

describe('enrichSheet on its ports', () => {
  it('enriches through an in-memory store and lock; a second run bills nothing; the lock refuses a second writer', async () => {
    const codes = ['10000001', '10000018', '10000001'];
    const table = new MemoryTable(rows(codes), 'ports');
    const answers = new MemoryAnswers();
    const locks = new MemoryLocks();
    const c = clock();
    const ports = {
      clock: c,
      answers: (scope: AnswerScope) => (answers.scopes.push(scope), answers),
      locks,
    };
    server.billed = 0;
    const report = await enrichSheet({ table, client, ports, flushEveryMs: 50 });
    expect(report.billedQueries).toBe(2);
    expect(report.matched).toBe(3);
    expect(server.billed).toBe(2);
    expect(answers.answers.size).toBe(2);
    expect(answers.finished).toEqual([false]);
    expect(answers.scopes[0]).toMatchObject({ tableId: 'memory:ports', limit: 1 });
    const status = table.grid[0]!.indexOf('company_data_status');
    expect(table.grid.slice(1).map((r) => r[status])).toEqual(['matched', 'matched', 'matched']);
    expect(locks.held.size).toBe(0);

    // Another sheet with the same companies: every answer comes from the store.
    const other = new MemoryTable(rows(codes), 'other');
    const again = await enrichSheet({ table: other, client, ports });
    expect(again.billedQueries).toBe(0);
    expect(again.fromCache).toBe(2);
    expect(server.billed).toBe(2);

    // A second writer of a sheet being written is refused before anything is read or paid for.
    locks.held.add('memory:busy');
    const busy = new MemoryTable(rows(['10000024']), 'busy');
    await expect(enrichSheet({ table: busy, client, ports })).rejects.toThrow(/lock: busy is being written/);
    expect(busy.calls.read).toBe(0);
  });

  it('a dry run takes no lock and writes nothing', async () => {
    const table = new MemoryTable(rows(['10000001', '10000018']), 'dry');
    const locks = new MemoryLocks();
    locks.held.add('memory:dry');
    const answers = new MemoryAnswers();
    const r = await enrichSheet({ table, client, dryRun: true, ports: { clock: clock(), answers: () => answers, locks } });
    expect(r.dryRun).toBe(true);
    expect(r.billedQueries).toBe(2);
    expect(table.calls.write).toBe(0);
    expect(answers.finished).toEqual([true]);
  });
});
