/**
 * The answer cache: every paid lookup answer is kept in the state folder, so another --out, another
 * sheet or another process reuses it instead of paying again. Real CLI processes (bundled with esbuild,
 * as users run it), kill -9 included, against the offline sandbox and a sandbox server.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompanyDataClient } from '../../../packages/company-data/src/index';
import { startSandbox, type Sandbox } from '../../../packages/company-data/src/sandbox';
import { AnswerCache } from '../../../packages/company-data/src/sheets/answer-cache';
import { enrichTable } from '../../../packages/company-data/src/sheets/enrich';
import { MemoryTable } from '../../../packages/company-data/src/sheets/table';
import type { LookupResult } from '@company-data/core/schemas/company';
import { runCli, spawnCli } from '../../drills/support/cli';
import { tempDirs } from '../../support/temp-dirs';

const KEY = 'sk_answer_cache_account_00000000001';
let sb: Sandbox;
let dir: string;
beforeAll(async () => {
  sb = await startSandbox({ port: 0, seed: 1, companies: 6000, keys: [{ key: KEY, plan: 'api' }] });
  dir = mkdtempSync(join(tmpdir(), 'answer-cache-'));
});
afterAll(async () => {
  await sb.close();
  rmSync(dir, { recursive: true, force: true });
});

// Locks in the test's folder: a kill -9 leaves its lock files behind, and the folder goes in afterAll.
const env = () => ({ COMPANY_DATA_BASE_URL: sb.url, COMPANY_DATA_API_KEY: KEY, COMPANY_DATA_LOCK_DIR: join(dir, 'locks') });
const billed = () => sb.usage(KEY).billed_lookup_queries;
const billedLine = (out: string) => Number(/billed queries: (\d+)/i.exec(out)?.[1]);
const csv = (codes: string[]) => 'registry code\n' + codes.join('\n') + '\n';
const cacheFiles = (stateDir: string) =>
  existsSync(join(stateDir, 'answers'))
    ? readdirSync(join(stateDir, 'answers'))
        .filter((f) => f.endsWith('.jsonl'))
        .map((f) => join(stateDir, 'answers', f))
    : [];
/** Distinct keys of the complete, valid lines of the cache files. */
const cachedKeys = (stateDir: string) => {
  const keys = new Set<string>();
  for (const f of cacheFiles(stateDir)) {
    for (const line of readFileSync(f, 'utf8').split('\n')) {
      try {
        const j = JSON.parse(line) as { k: string; r: LookupResult };
        if (j.k && j.r) keys.add(j.k);
      } catch {
        /* torn line */
      }
    }
  }
  return keys;
};

describe('answer cache', () => {
  it('the README example run again with another --out bills nothing; --max-age 0 pays again', async () => {
    const stateDir = join(dir, 'readme');
    const example = resolve(__dirname, '../../../examples/companies.csv');
    // No --base-url or --api-key: the offline sandbox in the CLI process, as in the README.
    const first = await runCli(['enrich', example, '--out', join(dir, 'first.csv'), '--state-dir', stateDir]);
    expect(first.code).toBe(0);
    expect(billedLine(first.stdout)).toBeGreaterThan(0);
    const second = await runCli(['enrich', example, '--out', join(dir, 'second.csv'), '--state-dir', stateDir]);
    expect(second.code).toBe(0);
    expect(billedLine(second.stdout)).toBe(0);
    expect(second.stdout).toMatch(/answered in earlier runs/);
    expect(readFileSync(join(dir, 'second.csv'), 'utf8').replace(/\d{4}-\d\d-\d\dT[\d:]+Z/g, 'AT')).toBe(
      readFileSync(join(dir, 'first.csv'), 'utf8').replace(/\d{4}-\d\d-\d\dT[\d:]+Z/g, 'AT'),
    );
    const dry = await runCli(['enrich', example, '--out', join(dir, 'third.csv'), '--state-dir', stateDir, '--dry-run']);
    expect(dry.stdout).toMatch(/Billed queries: 0/);
    const fresh = await runCli(['enrich', example, '--out', join(dir, 'fresh.csv'), '--state-dir', stateDir, '--max-age', '0']);
    expect(billedLine(fresh.stdout)).toBe(billedLine(first.stdout));
  }, 60_000);

  it('answers older than max-age are bought again; the dry run counts only those', async () => {
    const stateDir = join(dir, 'age');
    const client = new CompanyDataClient({ baseUrl: sb.url, apiKey: KEY });
    const codes = sb.dataset.companies.slice(0, 150).map((c) => c.code);
    const day = (n: number) => () => new Date(Date.UTC(2026, 10, 1 + n));
    await enrichTable({
      table: new MemoryTable([['registry_code'], ...codes.slice(0, 100).map((c) => [c])]),
      client,
      stateDir,
      now: day(0),
    });
    // Ten days later: the first 100 are fresh enough, the other 50 are new.
    const b0 = billed();
    const dry = await enrichTable({
      table: new MemoryTable([['registry_code'], ...codes.map((c) => [c])]),
      client,
      stateDir,
      now: day(10),
      dryRun: true,
    });
    expect(dry).toMatchObject({ uniqueQueries: 150, fromCache: 100, billedQueries: 50, requests: 1 });
    const t = new MemoryTable([['registry_code'], ...codes.map((c) => [c])]);
    const r = await enrichTable({ table: t, client, stateDir, now: day(10) });
    expect(r).toMatchObject({ fromCache: 100, billedQueries: 50, matched: 150 });
    expect(billed() - b0).toBe(50);
    // Forty days after the first run: its answers are older than 30 days, those of day 10 are not.
    const late = await enrichTable({
      table: new MemoryTable([['registry_code'], ...codes.map((c) => [c])]),
      client,
      stateDir,
      now: day(40),
      dryRun: true,
    });
    expect(late).toMatchObject({ fromCache: 50, billedQueries: 100 });
    const longer = await enrichTable({
      table: new MemoryTable([['registry_code'], ...codes.map((c) => [c])]),
      client,
      stateDir,
      now: day(40),
      maxAgeDays: 45,
      dryRun: true,
    });
    expect(longer).toMatchObject({ fromCache: 150, billedQueries: 0 });
    await client.close();
  });

  it('two processes enriching overlapping sheets at once share the cache; a third run bills nothing', async () => {
    const stateDir = join(dir, 'two');
    const all = sb.dataset.companies.slice(1000, 3000).map((c) => c.code);
    const a = all.slice(0, 1400);
    const b = all.slice(600); // 800 in common
    writeFileSync(join(dir, 'a.csv'), csv(a));
    writeFileSync(join(dir, 'b.csv'), csv(b));
    const b0 = billed();
    const [ra, rb] = await Promise.all([
      spawnCli(['enrich', join(dir, 'a.csv'), '--state-dir', stateDir], env()).output,
      spawnCli(['enrich', join(dir, 'b.csv'), '--state-dir', stateDir], env()).output,
    ]);
    expect([ra.code, rb.code]).toEqual([0, 0]);
    const paid = billed() - b0;
    expect(paid).toBe(billedLine(ra.stdout) + billedLine(rb.stdout));
    // Every line either process wrote is whole: nothing interleaved.
    const lines = cacheFiles(stateDir).flatMap((f) => readFileSync(f, 'utf8').split('\n').filter(Boolean));
    expect(lines).toHaveLength(paid);
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    expect(cachedKeys(stateDir).size).toBe(all.length);

    writeFileSync(join(dir, 'union.csv'), csv([...all].reverse()));
    const third = await runCli(['enrich', join(dir, 'union.csv'), '--out', join(dir, 'union.out.csv'), '--state-dir', stateDir], env());
    expect(billedLine(third.stdout)).toBe(0);
    expect(billed() - b0).toBe(paid);
  }, 60_000);

  it('survives kill -9: every whole line is kept, and a run on another file pays only for the rest', async () => {
    const stateDir = join(dir, 'kill');
    const codes = sb.dataset.companies.slice(3000, 6000).map((c) => c.code);
    writeFileSync(join(dir, 'kill.csv'), csv(codes));
    const b0 = billed();
    const child = spawnCli(['enrich', join(dir, 'kill.csv'), '--state-dir', stateDir], env());
    await new Promise<void>((done, fail) => {
      const t = setInterval(() => {
        const size = cacheFiles(stateDir).reduce((s, f) => s + statSync(f).size, 0);
        if (size > 200_000) {
          clearInterval(t);
          child.kill('SIGKILL');
          done();
        }
      }, 10);
      child.once('exit', () => (clearInterval(t), fail(new Error('enrich finished before it was killed'))));
    });
    await child.output;
    await new Promise((r) => setTimeout(r, 300)); // requests in flight at the kill are still billed
    const kept = cachedKeys(stateDir);
    expect(kept.size).toBeGreaterThan(0);
    expect(kept.size).toBeLessThan(codes.length);

    // Another file (its own resume journal is empty): only the answers not in the cache are bought.
    writeFileSync(join(dir, 'other.csv'), csv(codes));
    const b1 = billed();
    const again = await runCli(['enrich', join(dir, 'other.csv'), '--state-dir', stateDir], env());
    expect(again.code).toBe(0);
    expect(billedLine(again.stdout)).toBe(codes.length - kept.size);
    expect(billed() - b1).toBe(codes.length - kept.size);
    // Paid twice: at most the requests in flight at the kill (one burst of 10).
    expect(billed() - b0 - codes.length).toBeLessThanOrEqual(1000);
  }, 60_000);
});

describe('AnswerCache on disk', () => {
  const tempDir = tempDirs();
  const answer = (q: string): LookupResult => ({ query: q, type: 'registry_code', matches: [] });

  it('stays bounded: past maxBytes it keeps the newest answer of each key, dropping the oldest', () => {
    const stateDir = tempDir('cache-bound-');
    let t = Date.UTC(2026, 0, 1);
    const cache = new AnswerCache({ stateDir, service: 'x', limit: 1, maxBytes: 20_000, now: () => t, maxAgeDays: 365 });
    for (let round = 0; round < 40; round++) {
      t += 60_000;
      cache.add(
        Array.from({ length: 10 }, (_, i) => ({
          key: `registry_code:${String(10_000_000 + round * 10 + i)}`,
          answer: answer(String(round * 10 + i)),
        })),
      );
      cache.add([{ key: 'registry_code:99999999', answer: answer(`again ${round}`) }]);
    }
    expect(statSync(cache.path).size).toBeLessThanOrEqual(20_000);
    const reader = new AnswerCache({ stateDir, service: 'x', limit: 1, now: () => t, maxAgeDays: 365 });
    reader.load(new Set(['registry_code:99999999', 'registry_code:10000000', 'registry_code:10000399']));
    expect(reader.get('registry_code:99999999')!.answer.query).toBe('again 39');
    expect(reader.get('registry_code:10000399')).toBeDefined();
    expect(reader.get('registry_code:10000000')).toBeUndefined();
    reader.close();
  });

  it('a compaction lock of a live process leaves compacting to it; one whose process is gone is taken over', () => {
    const stateDir = tempDir('cache-lock-');
    const cache = new AnswerCache({ stateDir, service: 'x', limit: 1, maxBytes: 5_000, maxAgeDays: 365 });
    const add = (n: number) => cache.add([{ key: `registry_code:${10_000_000 + n}`, answer: answer(String(n)) }]);
    add(0);
    const lock = `${cache.path}.compact.lock`;
    writeFileSync(lock, JSON.stringify({ pid: process.pid, host: hostname() }));
    for (let n = 1; n < 100; n++) add(n);
    expect(statSync(cache.path).size).toBeGreaterThan(5_000);
    const gone = spawnSync(process.execPath, ['-e', '']).pid!;
    writeFileSync(lock, JSON.stringify({ pid: gone, host: hostname() }));
    add(100);
    expect(statSync(cache.path).size).toBeLessThanOrEqual(5_000);
    expect(existsSync(lock)).toBe(false);
    cache.close();
  });

  it('keeps services, limits and languages apart', () => {
    const stateDir = tempDir('cache-scope-');
    new AnswerCache({ stateDir, service: 'https://a', limit: 1 }).add([{ key: 'k', answer: answer('a') }]);
    for (const other of [
      { service: 'https://b', limit: 1 },
      { service: 'https://a', limit: 2 },
      { service: 'https://a', limit: 1, lang: 'en' as const },
    ]) {
      const c = new AnswerCache({ stateDir, ...other });
      c.load(new Set(['k']));
      expect(c.get('k')).toBeUndefined();
    }
    const same = new AnswerCache({ stateDir, service: 'https://a', limit: 1 });
    same.load(new Set(['k']));
    expect(same.get('k')!.answer.query).toBe('a');
  });
});
