/** Pagination helpers and bulk lookup of the client against the sandbox; billing read from the sandbox's usage. */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FX, startClientRig, type ClientRig } from './support';

let rig: ClientRig;
beforeAll(async () => {
  rig = await startClientRig();
});
afterAll(() => rig.close());
afterEach(() => expect(rig.mismatches).toEqual([]));

const billed = () => rig.sb.usage(rig.sb.apiKey).billed_lookup_queries;

describe('pagination', () => {
  it('iterate and pages walk every row across pages and stop at has_more=false', async () => {
    const input = { registry_code: FX.many_rows.code, history: true, limit: 10 };
    const first = await rig.client.people.representatives(input);
    const total = first.meta.pagination!.total;
    expect(total).toBeGreaterThan(25);
    const rows = [];
    for await (const r of rig.client.iterate(rig.client.ops.people.representatives, input)) rows.push(r);
    expect(rows).toHaveLength(total);
    expect(new Set(rows.map((r) => JSON.stringify(r))).size).toBe(total);
    const pages = [];
    for await (const p of rig.client.pages(rig.client.ops.people.representatives, input)) pages.push(p);
    expect(pages.map((p) => p.page)).toEqual(Array.from({ length: Math.ceil(total / 10) }, (_, i) => i + 1));
    expect(pages.at(-1)!.hasMore).toBe(false);
    const some = [];
    for await (const r of rig.client.iterate(rig.client.ops.risk.courtCases, { registry_code: FX.many_rows.code }, { maxItems: 7 }))
      some.push(r);
    expect(some).toHaveLength(7);
  });

  it('collectAll: the 200-result cap of q searches, and max with truncated', async () => {
    const capped = await rig.client.collectAll(rig.client.ops.companies.search, { q: 'Ehitus' }, { max: 500 });
    expect(capped.items).toHaveLength(200);
    expect(capped).toMatchObject({ capped: true, truncated: false });
    expect(new Set(capped.items.map((c) => c.registry_code)).size).toBe(200);
    const persons = await rig.client.collectAll(rig.client.ops.people.searchPersons, { q: 'Tõnis' }, { max: 1000 });
    expect(persons.items.length).toBeLessThanOrEqual(200);
    const few = await rig.client.collectAll(rig.client.ops.companies.search, { status: ['R'] }, { max: 30 });
    expect(few.items).toHaveLength(30);
    expect(few.truncated).toBe(true);
    expect(few.total).toBeGreaterThan(30);
  });
});

describe('bulk lookup', () => {
  it('dedupes, sends 100 per request, maps answers back to every position; the sandbox bills what was sent', async () => {
    const codes = rig.sb.dataset.companies.slice(100, 330).map((c) => c.code);
    const queries = [
      ...codes,
      ...codes.slice(0, 20), // repeated codes
      FX.active.vat,
      ` ${FX.active.vat.toLowerCase()}`,
      FX.active.vat.slice(2), // one VAT number in three forms
      'Lõunaranna Tarkvara',
      '  lõunaranna   TARKVARA ', // one name
      '13545699', // wrong check digit: never sent
      'ab', // too short: never sent
    ];
    const before = billed();
    const requests: number[] = [];
    const { results, counters } = await rig.client.bulkLookup(queries, { onProgress: (p) => requests.push(p.requests) });
    const unique = codes.length + 2;
    expect(counters).toMatchObject({
      uniqueQueries: unique,
      billedQueries: unique,
      requests: Math.ceil(unique / 100),
      invalid: 1,
      skipped: 1,
      failed: 0,
      fromCache: 0,
    });
    expect(billed() - before).toBe(counters.billedQueries);
    expect(results).toHaveLength(queries.length);
    results.forEach((r, i) => expect(r.query).toBe(queries[i]));
    expect(results.slice(0, codes.length).map((r) => r.status === 'matched' && r.result!.matches[0]!.registry_code)).toEqual(codes);
    expect(results[codes.length + 5]).toMatchObject({ status: 'matched' });
    const vat = results.slice(codes.length + 20, codes.length + 23);
    expect(vat.map((r) => r.result?.matches[0]?.registry_code)).toEqual([FX.active.code, FX.active.code, FX.active.code]);
    expect(results.at(-4)!.result?.matches[0]?.registry_code).toBe(FX.active.code);
    expect(results.at(-3)!.result).toEqual(results.at(-4)!.result);
    expect(results.at(-2)).toMatchObject({ status: 'invalid' });
    expect(results.at(-1)).toMatchObject({ status: 'skipped' });

    // With a cache, a second run sends and bills nothing.
    const cache = new Map<string, any>();
    await rig.client.bulkLookup(queries, { cache: { get: (k) => cache.get(k), set: (k, v) => void cache.set(k, v) } });
    const before2 = billed();
    const again = await rig.client.bulkLookup(queries, { cache: { get: (k) => cache.get(k), set: (k, v) => void cache.set(k, v) } });
    expect(again.counters).toMatchObject({ requests: 0, billedQueries: 0, fromCache: unique });
    expect(billed()).toBe(before2);
  });
});
