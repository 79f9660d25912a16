import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kinds } from '../../../../packages/company-data/src/sandbox/monitoring/kinds';
import { buildDataset } from '../../../../packages/company-data/src/sandbox/dataset';
import { DatasetCompanies } from '../../../../packages/company-data/src/sandbox/monitoring/dataset-port';
import { matchingCodes } from '../../../../packages/company-data/src/sandbox/searches/searches';

describe('write side over the generated dataset', () => {
  const ds = buildDataset(1, 1500);
  const port = new DatasetCompanies(ds, () => '2026-11-20');
  const code = ds.fixtures.companies.active!.registry_code;

  it('writes registry changes into the company rows and keeps the others in the overlay', () => {
    const before = port.get(code)!;
    port.applyChange({
      registry_code: code,
      category: 'registry',
      kind: 'name_changed',
      details: { old: before.name, new: 'Muudetud Nimi OÜ' },
    });
    port.applyChange({ registry_code: code, category: 'registry', kind: 'status_changed', details: { old: 'R', new: 'L' } });
    port.applyChange({ registry_code: code, category: 'tax', kind: 'tax_debt', details: { old: 0, new: 1234.5 } });
    const row = ds.companies[ds.byCode.get(code)!]!;
    expect(row).toMatchObject({ name: 'Muudetud Nimi OÜ', status: 'L' });
    expect(row.prev[0]).toBe(before.name);
    expect(port.overlay.get(code)).toMatchObject({ tax: { total: 1234.5 } });
    expect(port.get(code)).toMatchObject({ name: 'Muudetud Nimi OÜ', status: 'L', tax_debt: 1234.5 });
  });

  it('a VAT group member leaving status R no longer comes first (by-vat answers registered companies first)', () => {
    const g = ds.fixtures.vat_groups.g1!;
    const [a, b] = [ds.fixtures.companies.vat_group_a!.registry_code, ds.fixtures.companies.vat_group_b!.registry_code];
    const first = () => ds.companies[ds.vat.get(g.vat_number)!.holders[0]!]!.code;
    expect(first()).toBe(a);
    port.applyChange({ registry_code: a, category: 'registry', kind: 'status_changed', details: { old: 'R', new: 'L' } });
    expect(first()).toBe(b);
    port.applyChange({ registry_code: a, category: 'registry', kind: 'status_changed', details: { old: 'L', new: 'R' } });
    expect(first()).toBe(a);
  });

  it('a renamed company is an exact hit for its new name only; its old name finds it as a previous name', () => {
    const c = ds.companies[ds.byCode.get(ds.fixtures.companies.legal_form_AS!.registry_code)!]!;
    const old = c.name;
    port.applyChange({
      registry_code: c.code,
      category: 'registry',
      kind: 'name_changed',
      details: { old, new: 'Põhjavalguse Uusnimi AS' },
    });
    expect(ds.companySearch.byName('Põhjavalguse Uusnimi', 1)).toEqual([{ i: c.i, previous: null }]);
    expect(ds.companySearch.byName(old, 200).find((h) => h.i === c.i)).toEqual({ i: c.i, previous: old });
  });

  it('search ranks by the current status: a company deleted or put in liquidation falls behind active ones, a new one comes ahead of deleted ones', () => {
    const q = 'Tarkvara';
    const statusRank = { R: 4, L: 2, N: 1, D: 0 } as const;
    // Current-name matches (previous-name matches form a tier of their own after them).
    const order = () =>
      ds.companySearch
        .byName(q, 200)
        .filter((h) => h.previous === null)
        .map((h) => ds.companies[h.i]!);
    const ranked = (list: ReturnType<typeof order>) =>
      list.every((c, k) => k === 0 || statusRank[list[k - 1]!.status] >= statusRank[c.status]);
    const before = order();
    expect(before.length).toBeGreaterThan(20);
    expect(ranked(before)).toBe(true);
    const top = before[0]!;
    expect(top.status).toBe('R');
    port.applyChange({ registry_code: top.code, category: 'registry', kind: 'status_changed', details: { old: 'R', new: 'L' } });
    port.applyChange({ registry_code: top.code, category: 'registry', kind: 'status_changed', details: { old: 'L', new: 'D' } });
    const fresh = port.register({ name: 'Uus Tarkvara Lahendused OÜ', employees: 3 }, '2026-11-20');
    const after = order();
    expect(ranked(after)).toBe(true);
    const at = (code: string) => after.findIndex((c) => c.code === code);
    expect(at(top.code)).toBeGreaterThan(after.filter((c) => c.status !== 'D').length - 1);
    expect(at(fresh.registry_code)).toBeGreaterThanOrEqual(0);
    expect(at(fresh.registry_code)).toBeLessThan(after.findIndex((c) => c.status === 'D'));
    // Registry code prefixes follow the same order.
    const byCode = ds.companySearch.byCodePrefix(top.code.slice(0, 3), 200).map((h) => ds.companies[h.i]!);
    expect(ranked(byCode)).toBe(true);
  });

  it('the change kinds table of docs/sandbox-events.md is the kinds table of the code', () => {
    const doc = readFileSync(join(__dirname, '../../../../docs/sandbox-events.md'), 'utf8');
    const rows = doc
      .split('\n')
      .filter((l) => /^\| [a-z]+ \| `[a-z_]+` \|/.test(l))
      .map((l) => l.split('|').map((x) => x.trim()));
    expect(rows.map((r) => [r[1], r[2]!.replace(/`/g, '')])).toEqual(kinds.map((k) => [k.category, k.kind]));
  });

  it('registers companies that saved searches then match', () => {
    const f = port.register({ county: 'Saare maakond', activity_code: '62012' }, '2026-11-20');
    expect(ds.byCode.has(f.registry_code)).toBe(true);
    expect(f).toMatchObject({ county: 'Saare maakond', legal_form: 'Osaühing', registered_on: '2026-11-20', status: 'R' });
    expect(matchingCodes({ county: ['Saare'], activity: ['62012'], registered_within_days: 1 }, '2026-11-20', port.all())).toContain(
      f.registry_code,
    );
  });
});
