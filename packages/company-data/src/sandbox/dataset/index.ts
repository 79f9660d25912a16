import { companyFixtureSpecs, personFixtureSpecs, queryFixtures, type Fixtures } from '../fixtures';
import { withRegistryCheckDigit, withVatCheckDigit } from '@company-data/core/validation';
import { generate, type GeneratedData } from './generate';
import type { Company } from './model';
import { DATASET_TODAY } from './prng';
import { CompanySearch, PersonSearch } from './search';
import type { Overlays } from '../overlay';

export interface VatEntry {
  /** Companies holding the number now, registered first then oldest registration. */
  holders: number[];
  /** The company that held it last (by end date) when nobody holds it now. */
  last: number | null;
}

export interface Dataset extends GeneratedData {
  companySearch: CompanySearch;
  personSearch: PersonSearch;
  vat: Map<string, VatEntry>;
  /** Current roles per person id (index id). */
  activeRoles: Int32Array;
  fixtures: Fixtures;
  /** Changes to generated sections (tax debt, credit score, board) announced by events. */
  overlay: Overlays;
  /** Milliseconds spent generating. */
  buildMs: number;
}

export function buildDataset(seed: number, companies: number): Dataset {
  const t0 = performance.now();
  const g = generate(seed, companies);
  const vat = new Map<string, VatEntry>();
  for (const c of g.companies) {
    for (const r of c.vatRegs) {
      let e = vat.get(r.vat);
      if (!e) vat.set(r.vat, (e = { holders: [], last: null }));
      if (r.until === null) e.holders.push(c.i);
      else if (e.last === null || (lastUntil(g.companies[e.last]!, r.vat) ?? 0) < r.until) e.last = c.i;
    }
  }
  for (const e of vat.values()) orderHolders(e.holders, g.companies);
  const activeRoles = new Int32Array(g.persons.length + 1);
  for (const p of g.persons) activeRoles[p.id] = p.rels.reduce((n, r) => n + (g.rels[r]!.until === null ? 1 : 0), 0);
  const peopleBest = [...g.persons].sort((a, b) => activeRoles[b.id]! - activeRoles[a.id]! || a.id - b.id);
  const ds: Dataset = {
    ...g,
    companySearch: new CompanySearch(g.companies),
    personSearch: new PersonSearch(peopleBest),
    vat,
    activeRoles,
    fixtures: undefined as unknown as Fixtures,
    overlay: new Map(),
    buildMs: 0,
  };
  ds.fixtures = fixturesOf(ds);
  ds.buildMs = Math.round(performance.now() - t0);
  return ds;
}

const STATUS_ORDER = { R: 0, L: 1, N: 2, D: 3 } as const;

/** By-vat answers with the first holder: registered companies first, then the oldest registration. */
export function orderHolders(holders: number[], companies: readonly Company[]): void {
  holders.sort((a, b) => STATUS_ORDER[companies[a]!.status] - STATUS_ORDER[companies[b]!.status] || companies[a]!.reg - companies[b]!.reg);
}

function lastUntil(c: Company, vatNumber: string): number | null {
  return c.vatRegs.find((r) => r.vat === vatNumber)?.until ?? null;
}

function fixturesOf(ds: Dataset): Fixtures {
  const companies: Fixtures['companies'] = {};
  for (const spec of companyFixtureSpecs) {
    const c = ds.companies[ds.fixtureCompanies.get(spec.key)!]!;
    companies[spec.key] = {
      registry_code: c.code,
      vat_number: c.vat ?? c.vatRegs[0]?.vat ?? null,
      name: c.name,
      description: spec.description,
    };
  }
  const persons: Fixtures['persons'] = {};
  for (const spec of personFixtureSpecs) {
    const id = ds.fixturePersons.get(spec.key)!;
    persons[spec.key] = { id, name: ds.persons[id - 1]!.name, description: spec.description };
  }
  const queries: Fixtures['queries'] = {};
  for (const [k, q] of Object.entries(queryFixtures)) queries[k] = { q: q.q, description: q.description };
  queries.code_prefix!.q = companies.active!.registry_code.slice(0, 4);
  const vatGroups: Fixtures['vat_groups'] = {};
  for (const [group, number] of ds.vatGroups) {
    vatGroups[group] = { vat_number: number, members: ds.vat.get(number)!.holders.map((i) => ds.companies[i]!.code) };
  }
  let unknownCode = '';
  for (let n = 1999999; !unknownCode; n--) {
    const code = withRegistryCheckDigit(String(n));
    if (!ds.byCode.has(code)) unknownCode = code;
  }
  let unknownVat = '';
  for (let n = 10999999; !unknownVat; n--) {
    const vatNumber = `EE${withVatCheckDigit(String(n))}`;
    if (!ds.vat.has(vatNumber)) unknownVat = vatNumber;
  }
  return {
    seed: ds.seed,
    today: DATASET_TODAY,
    companies,
    persons,
    queries,
    vat_groups: vatGroups,
    unknown_registry_code: unknownCode,
    unknown_vat_number: unknownVat,
  };
}
