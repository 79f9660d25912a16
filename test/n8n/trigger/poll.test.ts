import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { IDataObject } from 'n8n-workflow';
import { CompanyDataPollTrigger } from '../../../nodes/CompanyDataPollTrigger/CompanyDataPollTrigger.node';
import { writeHandlers } from '../../../packages/company-data/src/sandbox/write/handlers';
import { ACCOUNT, API_KEY, credentials, pollContext, startRig, watchCompany, type NodeParams, type Rig } from './harness';

let rig: Rig;
beforeEach(async () => {
  rig = await startRig();
});
afterEach(async () => rig.close());

const params: NodeParams = { events: ['monitoring.change'], language: 'en' };
const poll = (state: IDataObject, p: NodeParams = params, mode = 'trigger') =>
  new CompanyDataPollTrigger().poll.call(pollContext(rig, state, p, mode));
const change = (code: string, kind = 'tax_debt') =>
  rig.svc.createChange(ACCOUNT, { registry_code: code, category: kind === 'tax_debt' ? 'tax' : 'registry', kind });

describe('poll trigger', () => {
  it('starts from now, then returns each new event once', async () => {
    const { code } = watchCompany(rig);
    change(code);
    const state: IDataObject = {};
    expect(await poll(state)).toBeNull();
    change(code);
    const out = await poll(state);
    expect(out![0]).toHaveLength(1);
    expect(out![0]![0]!.json.summary).toMatch(/^Tax debt of Näidis Ehitus OÜ/);
    expect(await poll(state)).toBeNull();
  });

  it('resumes from its cursor after a restart (static data saved and loaded as JSON)', async () => {
    const { code } = watchCompany(rig);
    const state: IDataObject = {};
    await poll(state);
    change(code);
    expect((await poll(state))![0]).toHaveLength(1);
    const saved = JSON.stringify(state);
    change(code, 'name_changed');
    change(code);
    const restored = JSON.parse(saved) as IDataObject;
    const out = await poll(restored);
    expect(out![0]!.map((i) => (i.json.data as IDataObject).kind)).toEqual(['name_changed', 'tax_debt']);
    expect(await poll(restored)).toBeNull();
  });

  it('start from the oldest kept event returns the history on the first poll', async () => {
    const { code } = watchCompany(rig);
    change(code);
    change(code, 'name_changed');
    const out = await poll({}, { ...params, options: { startFrom: 'oldest' } });
    expect(out![0]).toHaveLength(2);
  });

  it('skips an event id it has already returned even when the cursor is rewound', async () => {
    const { code } = watchCompany(rig);
    const state: IDataObject = {};
    await poll(state);
    change(code);
    await poll(state);
    (state.cursors as IDataObject).events = undefined as never;
    delete (state.cursors as IDataObject).events;
    expect(await poll(state)).toBeNull();
  });

  it('applies the same filters as the webhook trigger', async () => {
    const { code } = watchCompany(rig);
    const state: IDataObject = {};
    const p = { ...params, filters: { kinds: 'name_changed' } };
    await poll(state, p);
    change(code);
    change(code, 'name_changed');
    const out = await poll(state, p);
    expect(out![0]!.map((i) => (i.json.data as IDataObject).kind)).toEqual(['name_changed']);
  });

  it('a manual test run shows the newest events and moves no cursor', async () => {
    const { code } = watchCompany(rig);
    const state: IDataObject = {};
    await poll(state);
    change(code);
    const before = JSON.stringify(state);
    const out = await poll(state, params, 'manual');
    expect(out![0]).toHaveLength(1);
    expect(JSON.stringify(state)).toBe(before);
  });

  it('reads saved-search matches with their own cursor', async () => {
    const s = writeHandlers['searches.create']!(rig.svc, ACCOUNT, { name: 'Tartu IT', filters: { county: ['Tartu maakond'] } }).data as {
      id: string;
    };
    const p: NodeParams = { events: ['search.matches'], searchIds: s.id, options: { onePerCompany: true } };
    const state: IDataObject = {};
    expect(await poll(state, p)).toBeNull();
    rig.svc.registerCompanies([
      { name: 'Alfa Tarkvara OÜ', county: 'Tartu maakond' },
      { name: 'Beeta OÜ', county: 'Tartu maakond' },
    ]);
    rig.svc.runSearches(rig.svc.clock.now() + 1000, rig.svc.today());
    const out = await poll(state, p);
    expect(out![0]!.map((i) => ((i.json.data as IDataObject).company as IDataObject).name).sort()).toEqual([
      'Alfa Tarkvara OÜ',
      'Beeta OÜ',
    ]);
    expect(out![0]![0]!.json.summary).toMatch(/now matches the saved search "Tartu IT"/);
    expect(await poll(state, p)).toBeNull();
  });

  it("polls with a Bearer-style credential through n8n's credential helper", async () => {
    const { code } = watchCompany(rig);
    const state: IDataObject = {};
    const bearer = credentials(rig, { authStyle: 'bearer' });
    await new CompanyDataPollTrigger().poll.call(pollContext(rig, state, params, 'trigger', bearer));
    change(code);
    const c = pollContext(rig, state, params, 'trigger', bearer);
    const out = await new CompanyDataPollTrigger().poll.call(c);
    expect(out![0]).toHaveLength(1);
    expect(c.helpers.httpRequest).not.toHaveBeenCalled();
    expect(c.requests.length).toBeGreaterThan(0);
    for (const r of c.requests) {
      expect(r.headers.Authorization).toBe(`Bearer ${API_KEY}`);
      expect(Object.keys(r.headers).map((k) => k.toLowerCase())).not.toContain('x-api-key');
    }
  });

  it('One Digest per Poll: one item holding the digest, its counts and the events, bad news first', async () => {
    const { code } = watchCompany(rig);
    const other = watchCompany(rig, 'Teine <Firma> & Co OÜ').code;
    const p: NodeParams = { ...params, options: { digest: true, digestLines: 3 } };
    const state: IDataObject = {};
    expect(await poll(state, p)).toBeNull();
    change(other, 'name_changed');
    change(code);
    change(code, 'address_changed');
    const out = await poll(state, p);
    expect(out![0]).toHaveLength(1);
    const item = out![0]![0]!.json;
    expect(item.type).toBe('monitoring.digest');
    expect(item.summary).toBe(item.digest);
    expect(item).toMatchObject({ total: 3, companies: 2, shown: 2, more: 1, tones: { bad: 1 } });
    expect((item.events as IDataObject[]).map((e) => e.id)).toHaveLength(3);
    expect((item.events as IDataObject[])[0]).not.toHaveProperty('summary');
    const lines = String(item.digest).split('\n');
    expect(lines[0]).toBe('*Company Data: 3 changes at 2 companies*');
    // The tax debt (bad news) first; the cap of 3 lines leaves the rest counted.
    expect(lines.slice(4)).toEqual([
      `*Näidis Ehitus OÜ* (${code})`,
      expect.stringMatching(/^🔴 Tax debt /),
      expect.stringMatching(/^⚪ Address changed/),
      '_…and 1 more_',
    ]);
    expect(String(item.digest)).not.toMatch(/[<>]/);
    // Nothing new: no item at all, not an empty digest.
    expect(await poll(state, p)).toBeNull();
  });

  it('One Digest per Poll in Estonian, after the change filters; saved-search matches keep their own items', async () => {
    const { code } = watchCompany(rig);
    const s = writeHandlers['searches.create']!(rig.svc, ACCOUNT, { name: 'Tartu', filters: { county: ['Tartu maakond'] } }).data as {
      id: string;
    };
    const p: NodeParams = {
      events: ['monitoring.change', 'search.matches'],
      searchIds: s.id,
      language: 'et',
      filters: { tones: ['bad'] },
      options: { digest: true },
    };
    const state: IDataObject = {};
    await poll(state, p);
    change(code);
    change(code, 'name_changed');
    rig.svc.registerCompanies([{ name: 'Alfa Tarkvara OÜ', county: 'Tartu maakond' }]);
    rig.svc.runSearches(rig.svc.clock.now() + 1000, rig.svc.today());
    const out = (await poll(state, p))![0]!.map((i) => i.json);
    expect(out.map((i) => i.type)).toEqual(['monitoring.digest', 'search.matches']);
    expect(out[0]).toMatchObject({ total: 1, companies: 1 });
    expect(String(out[0]!.summary).split('\n')[0]).toBe('*Company Data: 1 muudatus 1 ettevõttes*');
    expect(String(out[0]!.summary)).toMatch(/🔴 Maksuvõlg /);
  });

  it('asks for a saved search id when only search matches are chosen', async () => {
    await expect(poll({}, { events: ['search.matches'] })).rejects.toThrow(/Saved Searches: choose at least one/);
  });
});
