/** Keys, rate limit, determinism and the client against the sandbox (real HTTP on loopback). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CompanyDataClient } from '../../../packages/company-data/src/index';
import { buildDataset, startSandbox } from '../../../packages/company-data/src/sandbox';
import { createStoredKey, revokeStoredKey } from '../../../packages/company-data/src/sandbox/http/keys';

const get = (url: string, key: string) => fetch(url, { headers: { 'x-api-key': key } });

describe('sandbox service', () => {
  it('rate limit: 429 rate_limited with Retry-After beyond 10 requests/s per key', async () => {
    // The limiter's time is held still and moved by hand: the rule is checked, not the machine's speed.
    let t = 1_000_000;
    const sb = await startSandbox({ companies: 1500, rateLimitNow: () => t });
    try {
      const statuses = async (n: number, key = sb.apiKey) => {
        const out: number[] = [];
        for (let i = 0; i < n; i++) out.push((await get(`${sb.url}/classifiers/roles`, key)).status);
        return out;
      };
      // A burst of 10 in the same instant passes; the 11th and on are refused.
      expect(await statuses(10)).toEqual(Array(10).fill(200));
      const refused = await get(`${sb.url}/classifiers/roles`, sb.apiKey);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(((await refused.json()) as any).error).toMatchObject({ code: 'rate_limited', retry_after: 1 });
      // Another key has its own budget.
      expect(await statuses(10, sb.basicKey)).toEqual(Array(10).fill(200));
      // 10 per second: 100 ms later there is room for one more, and only one.
      t += 100;
      expect(await statuses(2)).toEqual([200, 429]);
      // A full second refills the whole burst, not more.
      t += 1000;
      expect(await statuses(11)).toEqual([...Array(10).fill(200), 429]);
    } finally {
      await sb.close();
    }
  });

  it('keys from the data dir: hashes only on disk, revoked keys stop working after the reload interval', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-keys-'));
    const { key, stored } = createStoredKey(dir, 'api', new Date());
    const sb = await startSandbox({ companies: 1500, dataDir: dir, keyReloadMs: 50, rateLimit: false });
    try {
      expect((await get(`${sb.url}/usage`, key)).status).toBe(200);
      revokeStoredKey(dir, stored.id, new Date());
      await new Promise((r) => setTimeout(r, 120));
      const r = await get(`${sb.url}/usage`, key);
      expect(r.status).toBe(401);
      expect(((await r.json()) as any).error.code).toBe('invalid_api_key');
      const { readFileSync } = await import('node:fs');
      expect(readFileSync(join(dir, 'keys.json'), 'utf8')).not.toContain(key);
    } finally {
      await sb.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('deterministic from the seed; fixtures stable whatever the company count', () => {
    const a = buildDataset(1, 1500);
    const b = buildDataset(1, 2500);
    expect(b.fixtures.companies).toEqual(a.fixtures.companies);
    expect(b.fixtures.persons).toEqual(a.fixtures.persons);
    expect(b.companies.slice(0, 1500).map((c) => c.code)).toEqual(a.companies.map((c) => c.code));
    const other = buildDataset(2, 1500);
    expect(other.fixtures.companies.active!.registry_code).not.toBe(a.fixtures.companies.active!.registry_code);
  });

  it('the fixture tables of docs/sandbox.md are the fixtures of seed 1', async () => {
    const { readFileSync } = await import('node:fs');
    const doc = readFileSync(join(__dirname, '../../../docs/sandbox.md'), 'utf8');
    const section = doc.slice(doc.indexOf('## Fixtures'), doc.indexOf('## Decisions'));
    const rows = section
      .split('\n')
      .filter((l) => /^\| [a-z_A-Z0-9]+ \| \d/.test(l))
      .map((l) => l.split('|').map((x) => x.trim()));
    const fx = buildDataset(1, 1500).fixtures;
    const companies = rows.filter((r) => /^\d{8}$/.test(r[2]!)).map((r) => [r[1], r[2], r[3] || null, r[4]]);
    expect(companies).toEqual(Object.entries(fx.companies).map(([k, c]) => [k, c.registry_code, c.vat_number, c.name]));
    const persons = rows.filter((r) => /^\d+$/.test(r[2]!) && !/^\d{8}$/.test(r[2]!)).map((r) => [r[1], Number(r[2]), r[3]]);
    expect(persons).toEqual(Object.entries(fx.persons).map(([k, p]) => [k, p.id, p.name]));
    expect(section).toContain(`VAT group g1: ${fx.vat_groups.g1!.vat_number} (members ${fx.vat_groups.g1!.members.join(', ')})`);
    expect(section).toContain(`Unknown registry code: ${fx.unknown_registry_code}. Unknown VAT number: ${fx.unknown_vat_number}.`);
  });

  it('works through the core client', async () => {
    const sb = await startSandbox({ companies: 1500, rateLimit: false });
    const client = new CompanyDataClient({ baseUrl: sb.url, apiKey: sb.apiKey });
    try {
      const fx = sb.fixtures.companies;
      const p = await client.companies.get({ registry_code: fx.active!.registry_code, include: ['credit_score'] });
      expect(p.data.name).toBe(fx.active!.name);
      expect(p.requestId).toMatch(/^[0-9a-f-]{36}$/);
      const s = await client.companies.search({ q: 'Ehitus', limit: 100 });
      expect(s.meta.pagination?.total).toBe(200);
      const all = await client.collectAll(client.ops.companies.search, { q: 'Ehitus' }, { max: 500 });
      expect(all.items).toHaveLength(200);
      const l = await client.companies.lookup({ queries: [fx.active!.registry_code, 'ab'] });
      expect(l.data.map((x) => x.type)).toEqual(['registry_code', 'name']);
      await expect(client.companies.get({ registry_code: sb.fixtures.unknown_registry_code })).rejects.toMatchObject({ status: 404 });
      const v = await client.companies.byVat({ vat_number: fx.vat_ended!.vat_number!.slice(2) });
      expect(v.meta).toMatchObject({ vat_holders: 0 });
    } finally {
      await client.close();
      await sb.close();
    }
  });
});
