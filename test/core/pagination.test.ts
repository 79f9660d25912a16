import { describe, expect, it } from 'vitest';
import { CoreClient } from '@company-data/core/client';
import { ValidationError } from '@company-data/core/errors';
import { AutoClock } from '../support/fake-clock';
import { ScriptedTransport, ok, type SeenRequest } from '../support/scripted-transport';

const RC = '12417834';
const row = (i: number) => ({
  case_number: `2-24-${i}`,
  date: '2024-01-01',
  proceeding_type: 'civil',
  decision_type: 'ruling',
  category: 'x',
  judges: [],
  ecli: null,
  other_companies: 0,
});

type Mode = { total: number; pagination?: 'full' | 'none' | 'no_has_more'; cap?: number };

/** Serves `total` rows honouring page/limit like the service; `cap` limits what a q search returns. */
function pagedServer(mode: Mode) {
  return (r: SeenRequest) => {
    const page = Number(r.u.searchParams.get('page') ?? 1);
    const limit = Number(r.u.searchParams.get('limit') ?? 25);
    const reachable = mode.cap !== undefined && r.u.searchParams.has('q') ? Math.min(mode.cap, mode.total) : mode.total;
    const from = (page - 1) * limit;
    const rows = Array.from({ length: Math.max(0, Math.min(limit, reachable - from)) }, (_, i) => row(from + i));
    if (mode.pagination === 'none') return ok(rows);
    const pagination: Record<string, unknown> = { page, limit, total: mode.total };
    if (mode.pagination !== 'no_has_more') pagination.has_more = from + rows.length < reachable;
    return ok(rows, { pagination });
  };
}

function setup(answer: (r: SeenRequest) => ReturnType<typeof ok>) {
  const clock = new AutoClock();
  const transport = new ScriptedTransport(answer, () => clock.now());
  return { client: new CoreClient({ apiKey: 'k_1234567890', baseUrl: 'http://x.test', transport, clock }), transport };
}

async function all<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

const pagesAsked = (t: ScriptedTransport) => t.seen.map((s) => `${s.u.searchParams.get('page')}/${s.u.searchParams.get('limit')}`);

describe('iterate / pages', () => {
  it('reads 100 per page and stops at has_more=false', async () => {
    const { client, transport } = setup(pagedServer({ total: 250 }));
    const rows = await all(client.iterate(client.ops.risk.courtCases, { registry_code: RC }));
    expect(rows).toHaveLength(250);
    expect(rows[249]!.case_number).toBe('2-24-249');
    expect(pagesAsked(transport)).toEqual(['1/100', '2/100', '3/100']);
  });

  it('makes one request for an exact multiple, then stops on has_more', async () => {
    const { client, transport } = setup(pagedServer({ total: 200 }));
    expect(await all(client.iterate(client.ops.risk.courtCases, { registry_code: RC }))).toHaveLength(200);
    expect(transport.seen).toHaveLength(2);
  });

  it('stops at an empty page even when has_more says otherwise', async () => {
    const { client, transport } = setup((r) =>
      ok(r.u.searchParams.get('page') === '1' ? [row(0)] : [], { pagination: { page: 1, limit: 100, total: 999, has_more: true } }),
    );
    expect(await all(client.iterate(client.ops.risk.courtCases, { registry_code: RC }))).toHaveLength(1);
    expect(transport.seen).toHaveLength(2);
  });

  it('works without pagination meta: a short page is the last', async () => {
    const { client, transport } = setup(pagedServer({ total: 130, pagination: 'none' }));
    expect(await all(client.iterate(client.ops.risk.courtCases, { registry_code: RC }))).toHaveLength(130);
    expect(transport.seen).toHaveLength(2);
  });

  it('uses total when has_more is missing', async () => {
    const { client, transport } = setup(pagedServer({ total: 200, pagination: 'no_has_more' }));
    expect(await all(client.iterate(client.ops.risk.courtCases, { registry_code: RC }))).toHaveLength(200);
    expect(transport.seen).toHaveLength(2);
  });

  it('stops at the 200-result cap of q searches without asking for page 3', async () => {
    const { client, transport } = setup(pagedServer({ total: 5000, cap: 200, pagination: 'no_has_more' }));
    const pages = await all(client.pages(client.ops.companies.search, { q: 'ehitus' }));
    expect(pages.map((p) => p.items.length)).toEqual([100, 100]);
    expect(pages[1]!.capped).toBe(true);
    expect(transport.seen).toHaveLength(2);
  });

  it('does not apply the q cap to filter-only searches', async () => {
    const { client } = setup(pagedServer({ total: 320, cap: 200 }));
    expect(await all(client.iterate(client.ops.companies.search, { status: ['R'] }))).toHaveLength(320);
  });

  it('respects a caller page and limit, and maxItems', async () => {
    const { client, transport } = setup(pagedServer({ total: 100 }));
    const rows = await all(client.iterate(client.ops.risk.courtCases, { registry_code: RC, page: 3, limit: 10 }, { maxItems: 15 }));
    expect(rows.map((r) => r.case_number)).toEqual(Array.from({ length: 15 }, (_, i) => `2-24-${20 + i}`));
    expect(pagesAsked(transport)).toEqual(['3/10', '4/10']);
  });

  it('asks for no more rows than maxItems needs', async () => {
    const { client, transport } = setup(pagedServer({ total: 1000 }));
    expect(await all(client.iterate(client.ops.risk.courtCases, { registry_code: RC }, { maxItems: 7 }))).toHaveLength(7);
    expect(pagesAsked(transport)).toEqual(['1/7']);
  });

  it('refuses operations that are not paged', async () => {
    const { client } = setup(pagedServer({ total: 1 }));
    await expect(all(client.pages(client.ops.risk.taxDebt, { registry_code: RC }))).rejects.toThrow(/not a paged list/);
  });

  it('validates page and limit like any call', async () => {
    const { client } = setup(pagedServer({ total: 1 }));
    await expect(all(client.iterate(client.ops.risk.courtCases, { registry_code: RC, limit: 500 }))).rejects.toBeInstanceOf(
      ValidationError,
    );
  });
});

describe('collectAll', () => {
  it('returns everything when it fits', async () => {
    const { client } = setup(pagedServer({ total: 150 }));
    const r = await client.collectAll(client.ops.risk.courtCases, { registry_code: RC }, { max: 500 });
    expect(r.items).toHaveLength(150);
    expect(r).toMatchObject({ truncated: false, capped: false, total: 150 });
  });

  it('returns the first max rows and says truncated, without reading further', async () => {
    const { client, transport } = setup(pagedServer({ total: 1000 }));
    const r = await client.collectAll(client.ops.risk.courtCases, { registry_code: RC }, { max: 250 });
    expect(r.items).toHaveLength(250);
    expect(r).toMatchObject({ truncated: true, total: 1000 });
    expect(transport.seen).toHaveLength(3);
  });

  it('is not truncated when exactly max rows exist', async () => {
    const { client, transport } = setup(pagedServer({ total: 100 }));
    const r = await client.collectAll(client.ops.risk.courtCases, { registry_code: RC }, { max: 100 });
    expect(r).toMatchObject({ truncated: false });
    expect(transport.seen).toHaveLength(1);
  });

  it('reports the q cap separately from truncation', async () => {
    const { client } = setup(pagedServer({ total: 5000, cap: 200 }));
    const r = await client.collectAll(client.ops.companies.search, { q: 'ehitus' }, { max: 1000 });
    expect(r.items).toHaveLength(200);
    expect(r).toMatchObject({ truncated: false, capped: true, total: 5000 });
  });

  it('requires max', async () => {
    const { client, transport } = setup(pagedServer({ total: 1 }));
    for (const bad of [undefined, 0, -1, 1.5]) {
      const e = await client.collectAll(client.ops.risk.courtCases, { registry_code: RC }, { max: bad as number }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(ValidationError);
      expect((e as ValidationError).field).toBe('max');
    }
    expect(transport.seen).toHaveLength(0);
  });
});

describe('cursor reading', () => {
  const event = (n: number) => ({ id: `evt_${n}`, type: 'monitoring.change', created_at: 'x', data: {} });

  it('follows next_cursor while has_more, and gives a cursor to store', async () => {
    const { client, transport } = setup((r) => {
      const after = Number((r.u.searchParams.get('after') ?? 'evt_0').slice(4));
      const limit = Number(r.u.searchParams.get('limit'));
      const items = Array.from({ length: Math.max(0, Math.min(limit, 250 - after)) }, (_, i) => event(after + i + 1));
      const last = items.length ? items[items.length - 1]!.id : null;
      return ok(items, { next_cursor: last, has_more: after + items.length < 250 });
    });
    const events = await all(client.iterateEvents({ after: 'evt_0', category: ['tax'] }));
    expect(events.map((e) => e.id)).toEqual(Array.from({ length: 250 }, (_, i) => `evt_${i + 1}`));
    expect(transport.seen.map((s) => s.u.searchParams.get('after'))).toEqual(['evt_0', 'evt_100', 'evt_200']);
    expect(transport.seen[0]!.u.searchParams.get('category')).toBe('tax');
    const pages = await all(client.cursorPages(client.ops.monitoring.events, { after: 'evt_200' }));
    expect(pages.at(-1)!.cursor).toBe('evt_250');
  });

  it('keeps the cursor when nothing is new, and stops on a cursor that does not move', async () => {
    const empty = setup(() => ok([], { next_cursor: null, has_more: false }));
    const pages = await all(empty.client.cursorPages(empty.client.ops.monitoring.events, { after: 'evt_7' }));
    expect(pages).toHaveLength(1);
    expect(pages[0]!.cursor).toBe('evt_7');

    const stuck = setup(() => ok([event(5)], { next_cursor: 'evt_5', has_more: true }));
    expect(await all(stuck.client.iterateEvents({ after: 'evt_4' }))).toHaveLength(2);
    expect(stuck.transport.seen).toHaveLength(2);
  });

  it('uses the last id when the service gives no next_cursor', async () => {
    const { client, transport } = setup((r) => (r.u.searchParams.get('after') ? ok([]) : ok([event(1), event(2)], { has_more: true })));
    const pages = await all(client.cursorPages(client.ops.monitoring.events, {}));
    expect(pages[0]!.cursor).toBe('evt_2');
    expect(transport.seen[1]!.u.searchParams.get('after')).toBe('evt_2');
  });

  it('reads saved-search matches the same way', async () => {
    const { client, transport } = setup(() =>
      ok([{ id: 'evt_srch_1_20250304_1', type: 'search.matches' }], { next_cursor: 'evt_srch_1_20250304_1', has_more: false }),
    );
    const items = await all(client.iterateMatches({ search_id: 'srch_ab12' }));
    expect(items).toHaveLength(1);
    expect(transport.seen[0]!.u.pathname).toBe('/searches/srch_ab12/matches');
  });
});
