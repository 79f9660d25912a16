import { companyStatusCodes } from '@company-data/core/vocabulary';
import { personalCodeCheckDigit, withRegistryCheckDigit, withVatCheckDigit } from '@company-data/core/validation';
import { companyFixtureSpecs, personFixtureSpecs, type CompanyFixtureSpec } from '../fixtures';
import { emtak2008, emtak2025 } from './emtak';
import { counties, legalForms, roleIndex, type LegalForm } from './labels';
import { PartyKind, type Activity, type Company, type Person, type Rel, type StatusCode, type VatReg } from './model';
import { dayOf, hash32, mix, Rng, TODAY } from './prng';
import { searchRank } from './search';
import * as v from './vocab';

export interface GeneratedData {
  seed: number;
  companies: Company[];
  rels: Rel[];
  /** persons[id - 1] */
  persons: Person[];
  byCode: Map<string, number>;
  fixtureCompanies: Map<string, number>;
  fixturePersons: Map<string, number>;
  vatGroups: Map<string, string>;
}

/** Below this the >1000-roles fixture person and the >200-hits name cannot exist. */
export const MIN_COMPANIES = 1500;
const MANY_ROLES = 1250;
const START = dayOf('1992-09-01');
const ZERO_CAPITAL_FROM = dayOf('2023-02-01');
const EMTAK_2025_FROM = dayOf('2025-01-01');
const BIRTH_FROM = dayOf('1945-01-01');
const BIRTH_TO = dayOf('2004-12-31');
const formIndex = new Map(legalForms.map((f, i) => [f.abbr, i]));
const tradeWeights = v.tradeWords.map(([, w]) => w);
const formWeights = legalForms.map((f) => f.weight);
const NO_FLAGS: ReadonlySet<string> = new Set();
const vatForms = new Set(['OÜ', 'AS', 'TÜ', 'UÜ', 'TÜH', 'SE', 'FIL', 'FIE']);

class Generator {
  companies: Company[] = [];
  rels: Rel[] = [];
  persons: Person[] = [];
  byCode = new Map<string, number>();
  usedVat = new Set<string>();
  usedPersonal = new Set<string>();
  fixtureCompanies = new Map<string, number>();
  fixturePersons = new Map<string, number>();
  vatGroups = new Map<string, string>();

  constructor(readonly seed: number) {}

  rng(salt: number): Rng {
    return new Rng(mix(this.seed, salt));
  }

  registryCode(rng: Rng, digit: string, regDay: number): string {
    const year = new Date(regDay * 86_400_000).getUTCFullYear();
    // Older companies have lower codes (10..., new ones 16/17); a crowded range spills into any other.
    const byYear = digit === '1' ? Math.max(0, Math.min(7, Math.floor((year - 1995) / 4.5))) : 0;
    for (let attempt = 0; ; attempt++) {
      const second = attempt < 4 ? byYear : digit === '1' ? rng.int(0, 7) : rng.int(0, 9);
      const code = withRegistryCheckDigit(digit + String(second) + String(rng.int(0, 99999)).padStart(5, '0'));
      if (!this.byCode.has(code)) return code;
    }
  }

  vatNumber(rng: Rng): string {
    for (;;) {
      const vat = `EE${withVatCheckDigit(`10${rng.int(0, 2)}${String(rng.int(0, 99999)).padStart(5, '0')}`)}`;
      if (!this.usedVat.has(vat)) {
        this.usedVat.add(vat);
        return vat;
      }
    }
  }

  newPerson(rng: Rng, name?: string): number {
    const female = rng.chance(0.45);
    const first = rng.pick(female ? v.firstNamesFemale : v.firstNamesMale);
    const last = rng.pick(v.lastNames);
    const birth = rng.int(BIRTH_FROM, BIRTH_TO);
    const d = new Date(birth * 86_400_000);
    const y = d.getUTCFullYear();
    const g = (y >= 2000 ? 5 : 3) + (female ? 1 : 0);
    const ymd = `${String(y % 100).padStart(2, '0')}${String(d.getUTCMonth() + 1).padStart(2, '0')}${String(d.getUTCDate()).padStart(2, '0')}`;
    let code: string;
    do {
      const first10 = `${g}${ymd}${String(rng.int(0, 999)).padStart(3, '0')}`;
      code = first10 + personalCodeCheckDigit(first10);
    } while (this.usedPersonal.has(code));
    this.usedPersonal.add(code);
    const id = this.persons.length + 1;
    this.persons.push({
      id,
      type: 'person',
      name: name ?? `${first} ${last}`,
      personalCode: code,
      birth,
      foreignCode: null,
      country: null,
      rels: [],
    });
    return id;
  }

  newOrg(rng: Rng, name?: string): number {
    const [suffix, country] = rng.pick(v.foreignSuffixes);
    const id = this.persons.length + 1;
    this.persons.push({
      id,
      type: 'organisation',
      name: name ?? `${rng.pick(v.foreignStems)} ${rng.pick(['Holding', 'Invest', 'Capital', 'Group', 'Partners'])} ${suffix}`,
      personalCode: null,
      birth: null,
      foreignCode: String(rng.int(1_000_000, 99_999_999)),
      country: name ? 'SE' : country,
      rels: [],
    });
    return id;
  }

  /** An existing person (55% once there are some) or a new one: people hold roles in several companies. */
  somePerson(rng: Rng): number {
    const n = this.persons.length;
    if (n > 50 && rng.chance(0.55)) {
      for (let t = 0; t < 3; t++) {
        const id = rng.int(personFixtureSpecs.length + 1, n);
        if (this.persons[id - 1]!.type === 'person') return id;
      }
    }
    return this.newPerson(rng);
  }

  addRel(
    c: Company,
    kind: PartyKind,
    p: number,
    role: string,
    from: number,
    until: number | null,
    share?: { pct: number; amount: number | null; own: 0 | 1 },
  ): void {
    if (c.del !== null && (until === null || until > c.del)) until = c.del;
    if (until !== null && until < from) until = from;
    const idx = this.rels.length;
    this.rels.push({
      c: c.i,
      kind,
      p,
      role: roleIndex.get(role)!,
      from,
      until,
      pct: share?.pct ?? null,
      amount: share?.amount ?? null,
      own: share?.own ?? null,
    });
    c.rels.push(idx);
    if (kind === PartyKind.Company) this.companies[p]!.holdings.push(idx);
    else this.persons[p - 1]!.rels.push(idx);
  }

  companyName(rng: Rng, abbr: string): string {
    const stem = rng.pick(v.stemA) + rng.pick(v.stemB) + rng.pick(v.stemC);
    const trade = v.tradeWords[rng.weighted(tradeWeights)]![0];
    switch (abbr) {
      case 'MTÜ':
        return `${stem} ${rng.pick(['Selts', 'Klubi', 'Ühing', 'Kogukond'])} MTÜ`;
      case 'KÜ':
        return `Korteriühistu ${rng.pick(v.streets)} ${rng.int(1, 140)}`;
      case 'SA':
        return `Sihtasutus ${stem} ${rng.pick(['Fond', 'Keskus', 'Arendus'])}`;
      case 'FIE':
        return `${rng.pick(v.firstNamesMale)} ${stem} FIE`;
      case 'FIL':
        return `${rng.pick(v.foreignStems)} ${rng.pick(v.foreignSuffixes)[0]} Eesti filiaal`;
      case 'AV':
        return `${stem} vallavalitsus`;
      case 'TÜ':
        return `${stem} ${trade} Täisühing`;
      case 'UÜ':
        return `${stem} ${trade} Usaldusühing`;
      case 'TÜH':
        return `${stem} ${trade} Tulundusühistu`;
      default:
        return `${stem} ${trade} ${abbr}`;
    }
  }

  activities(rng: Rng, reg: number, force2025: boolean): Activity[] {
    const use2025 = force2025 || (reg >= EMTAK_2025_FROM && rng.chance(0.5));
    const table = use2025 ? emtak2025 : emtak2008;
    const version = use2025 ? 2025 : 2008;
    const acts: Activity[] = [{ code: rng.pick(table).code, version, main: true }];
    if (rng.chance(0.3)) {
      const second = rng.pick(table).code;
      if (second !== acts[0]!.code) acts.push({ code: second, version, main: false });
    }
    return acts;
  }

  company(rng: Rng, spec?: CompanyFixtureSpec): Company {
    const { formI, form, status, reg, del } = registration(rng, spec);
    const name = spec?.name ?? this.companyName(rng, form.abbr);
    const code = this.registryCode(rng, form.digit, reg);
    const { countyI, postal, address } = seat(rng, spec);
    const employees = headcount(rng, form.abbr, status, spec);
    const capital = shareCapital(rng, form, reg);
    const mode = vatMode(rng, form.abbr, status, spec);
    const { vat, vatRegs } = this.vatRegistrations(rng, mode, reg, del);
    const prev = spec?.previousNames ?? this.previousNames(rng, form.abbr);
    const c: Company = {
      i: this.companies.length,
      code,
      name,
      form: formI,
      status,
      reg,
      del,
      vat,
      vatRegs,
      county: countyI,
      address,
      postal,
      acts: this.activities(rng, reg, spec?.flags?.includes('emtak2025') ?? false),
      prev,
      employees,
      capital,
      rank: searchRank({ status, employees, vat }),
      updated: Math.min(TODAY - 1, (del ?? reg) + rng.int(0, 2000)),
      flags: spec?.flags ? new Set(spec.flags) : NO_FLAGS,
      rels: [],
      holdings: [],
    };
    this.companies.push(c);
    this.byCode.set(code, c.i);
    return c;
  }

  /** The VAT number a company has now (or null) and its registrations, current and ended. */
  vatRegistrations(rng: Rng, mode: VatMode, reg: number, del: number | null): { vat: string | null; vatRegs: VatReg[] } {
    const vatRegs: VatReg[] = [];
    let vat: string | null = null;
    const vatFrom = reg + rng.int(0, 400);
    if (typeof mode === 'object') {
      let num = this.vatGroups.get(mode.group);
      if (!num) this.vatGroups.set(mode.group, (num = this.vatNumber(rng)));
      vat = num;
      vatRegs.push({ vat: num, from: Math.max(reg, dayOf('2019-01-01')), until: null });
    } else if (mode === 'current' || mode === 'history') {
      vat = this.vatNumber(rng);
      if (mode === 'history') {
        const oldFrom = Math.min(vatFrom, TODAY - 900);
        const oldUntil = oldFrom + rng.int(200, 500);
        vatRegs.push({ vat, from: oldUntil + rng.int(60, 300), until: null }, { vat: this.vatNumber(rng), from: oldFrom, until: oldUntil });
      } else vatRegs.push({ vat, from: Math.min(vatFrom, TODAY - 1), until: null });
    } else if (mode === 'ended') {
      const until = del ?? TODAY - rng.int(100, 600);
      vatRegs.push({ vat: this.vatNumber(rng), from: Math.min(vatFrom, until - 30), until });
    }
    return { vat, vatRegs };
  }

  previousNames(rng: Rng, abbr: string): string[] {
    return rng.chance(0.07) ? Array.from({ length: rng.int(1, 2) }, () => this.companyName(rng, abbr)) : [];
  }

  /** People, owners and other parties of one company (its representatives, shareholders, ...). */
  people(c: Company, rng: Rng, spec?: CompanyFixtureSpec): void {
    const form = legalForms[c.form]!;
    if (form.abbr === 'FIE') return;
    this.representatives(c, rng, spec);
    const owners = form.owned ? this.shareholders(c, rng, spec) : [];
    this.beneficialOwners(c, rng, owners);
    this.otherParties(c, rng, spec);
  }

  /** Board members, a procurator, former board members, a liquidator or a trustee in bankruptcy. */
  representatives(c: Company, rng: Rng, spec?: CompanyFixtureSpec): void {
    const abbr = legalForms[c.form]!.abbr;
    const many = c.flags.has('many_rows');
    const board = many ? 8 : abbr === 'AS' || abbr === 'SE' ? rng.int(2, 3) : rng.int(1, 2);
    for (let k = 0; k < board; k++) {
      const pid = k === 0 && spec?.key === 'active' ? this.fixturePersons.get('board_member')! : this.somePerson(rng);
      this.addRel(c, PartyKind.Person, pid, k === 0 && (abbr === 'AS' || abbr === 'SE') ? 'JUHE' : 'JUHL', roleStart(rng, c), null);
    }
    if (rng.chance(0.05) || many) this.addRel(c, PartyKind.Person, this.somePerson(rng), 'PROK', roleStart(rng, c), null);
    const endedBoard = many ? 22 : c.flags.has('ended_relations') ? 2 : rng.chance(0.25) ? 1 : 0;
    for (let k = 0; k < endedBoard; k++) {
      const from = c.reg + rng.int(0, 400);
      const pid = k === 0 && spec?.key === 'ended_relations' ? this.fixturePersons.get('board_member')! : this.somePerson(rng);
      this.addRel(c, PartyKind.Person, pid, 'JUHL', from, Math.min(TODAY - 2, from + rng.int(100, 2500)));
    }
    if (c.status === 'L') this.addRel(c, PartyKind.Person, this.somePerson(rng), 'LIKV', TODAY - rng.int(30, 300), null);
    if (c.status === 'N') this.addRel(c, PartyKind.Person, this.somePerson(rng), 'PANKR', TODAY - rng.int(30, 600), null);
  }

  /** The shareholders (or partners) of a company with shares, largest first; a former sole owner now and then. */
  shareholders(c: Company, rng: Rng, spec?: CompanyFixtureSpec): Owner[] {
    const abbr = legalForms[c.form]!.abbr;
    const role = abbr === 'AS' || abbr === 'SE' ? 'S' : abbr === 'TÜ' ? 'TOSAN' : abbr === 'UÜ' ? 'UOSAN' : 'OSAN';
    const owners = sharesOf(this.ownerParties(c, rng, spec), rng, c.flags, spec);
    const joint = c.flags.has('joint') || (!spec && rng.chance(0.02));
    for (const [k, o] of owners.entries()) {
      const share = { pct: o.pct, amount: c.capital === null ? null : Math.round(c.capital * o.pct) / 100, own: 0 as const };
      const from = roleStart(rng, c);
      if (k === 0 && joint && o.kind === PartyKind.Person) {
        this.addRel(c, o.kind, o.p, role, from, null, { ...share, own: 1 });
        this.addRel(c, PartyKind.Person, this.somePerson(rng), role, from, null, { ...share, own: 1 });
      } else this.addRel(c, o.kind, o.p, role, from, null, share);
    }
    if (c.flags.has('ended_relations') || (!spec && rng.chance(0.1))) {
      const from = c.reg;
      this.addRel(c, PartyKind.Person, this.somePerson(rng), role, from, Math.min(TODAY - 2, from + rng.int(300, 3000)), {
        pct: 100,
        amount: c.capital,
        own: 0,
      });
    }
    return owners;
  }

  /** Who holds the shares: a fixture's given owners first, then other companies, foreign organisations or people. */
  ownerParties(c: Company, rng: Rng, spec?: CompanyFixtureSpec): Party[] {
    const parties: Party[] = [];
    if (spec?.ownedBy) parties.push({ kind: PartyKind.Company, p: this.fixtureCompanies.get(spec.ownedBy)! });
    if (c.flags.has('foreign_owner')) parties.push({ kind: PartyKind.Organisation, p: this.fixturePersons.get('foreign_organisation')! });
    const n = c.flags.has('many_rows')
      ? 40
      : c.flags.has('three_owners')
        ? 3
        : spec?.ownedBy === 'holding_top'
          ? 1
          : Math.max(parties.length + (spec ? 1 : 0), [1, 1, 1, 2, 2, 3][rng.int(0, 5)]!);
    while (parties.length < n) {
      const roll = rng.next();
      if (!spec && roll < 0.12 && c.i > 20) {
        const other = rng.int(0, c.i - 1);
        const oc = this.companies[other]!;
        if (legalForms[oc.form]!.owned && oc.status === 'R') {
          parties.push({ kind: PartyKind.Company, p: other });
          continue;
        }
      }
      if (!spec && roll > 0.95) parties.push({ kind: PartyKind.Organisation, p: this.newOrg(rng) });
      else parties.push({ kind: PartyKind.Person, p: this.somePerson(rng) });
    }
    return parties;
  }

  /** Beneficial owners: people holding 25% or more, else the first representative. */
  beneficialOwners(c: Company, rng: Rng, owners: Owner[]): void {
    const abbr = legalForms[c.form]!.abbr;
    const bo = owners.filter((o) => o.kind === PartyKind.Person && o.pct >= 25);
    if (bo.length === 0 && abbr !== 'AV' && abbr !== 'FIL') {
      const rep = this.rels[c.rels[0]!];
      if (rep) bo.push({ kind: PartyKind.Person, p: rep.p, pct: 0 });
    }
    for (const o of bo) this.addRel(c, PartyKind.Person, o.p, 'W', roleStart(rng, c), null);
  }

  /** Other parties: supervisory board, auditors, founders. */
  otherParties(c: Company, rng: Rng, spec?: CompanyFixtureSpec): void {
    const abbr = legalForms[c.form]!.abbr;
    const many = c.flags.has('many_rows');
    if (abbr === 'AS' || abbr === 'SE' || many) {
      const members = many ? 30 : 3;
      for (let k = 0; k < members; k++) {
        const ended = many && k >= 10;
        const from = roleStart(rng, c);
        this.addRel(c, PartyKind.Person, this.somePerson(rng), k === 0 ? 'E' : 'N', from, ended ? Math.min(TODAY - 2, from + 400) : null);
      }
      if (c.i > 10 && rng.chance(0.8)) this.addRel(c, PartyKind.Company, rng.int(0, c.i - 1), 'D', roleStart(rng, c), null);
    }
    if (!spec && rng.chance(0.08)) this.addRel(c, PartyKind.Person, this.somePerson(rng), 'A', c.reg, c.reg + rng.int(1, 60));
  }
}

type VatMode = NonNullable<CompanyFixtureSpec['vat']>;
type Party = { kind: PartyKind; p: number };
type Owner = Party & { pct: number };

/** Legal form, status, registration and deletion day: a company's first draws. */
function registration(rng: Rng, spec?: CompanyFixtureSpec) {
  const formI = spec ? formIndex.get(spec.form)! : rng.weighted(formWeights);
  const status: StatusCode = spec
    ? (spec.status ?? 'R')
    : companyStatusCodes[rng.weighted([84, 2.5, 1.5, 12])]!; /* weights in R, L, N, D order */
  const reg = spec ? dayOf(spec.registered) : START + Math.floor((TODAY - 1 - START) * Math.sqrt(rng.next()));
  const del = status === 'D' ? Math.min(TODAY - 1, reg + rng.int(200, Math.max(201, TODAY - reg))) : null;
  return { formI, form: legalForms[formI]!, status, reg, del };
}

function seat(rng: Rng, spec?: CompanyFixtureSpec): { countyI: number; postal: string; address: string } {
  const countyI = spec ? 0 : rng.weighted(v.countyWeights);
  const county = counties[countyI]!.code;
  const [city, postalDigit] = rng.pick(v.places[county]!);
  const postal = postalDigit + String(rng.int(0, 9999)).padStart(4, '0');
  const address = `${county}, ${city}, ${rng.pick(v.streets)} ${rng.int(1, 120)}, ${postal}`;
  return { countyI, postal, address };
}

/** Employees by legal form (drawn even for a deleted company, which then has none). */
function headcount(rng: Rng, abbr: string, status: StatusCode, spec?: CompanyFixtureSpec): number {
  const employees =
    spec?.employees ??
    (abbr === 'AS' || abbr === 'SE'
      ? rng.int(10, 2000)
      : ['OÜ', 'TÜ', 'UÜ', 'TÜH', 'FIL'].includes(abbr)
        ? Math.floor(Math.exp(rng.next() ** 2 * Math.log(400))) - 1
        : rng.int(0, 3));
  return status === 'D' ? 0 : employees;
}

function shareCapital(rng: Rng, form: LegalForm, reg: number): number | null {
  return form.abbr === 'AS' || form.abbr === 'SE'
    ? 25_000 * rng.int(1, 40)
    : form.abbr === 'OÜ'
      ? reg >= ZERO_CAPITAL_FROM && rng.chance(0.4)
        ? 0.01
        : 2500 * rng.int(1, 4)
      : form.owned
        ? 1000
        : null;
}

function vatMode(rng: Rng, abbr: string, status: StatusCode, spec?: CompanyFixtureSpec): VatMode {
  if (spec) return spec.vat ?? 'none';
  if (!vatForms.has(abbr) || !rng.chance(0.55)) return 'none';
  if (status === 'D') return 'ended';
  return rng.chance(0.08) ? 'history' : 'current';
}

/** Shares in percent (two decimals, the last takes the rest so they sum to 100), largest first. */
function sharesOf(parties: Party[], rng: Rng, flags: ReadonlySet<string>, spec?: CompanyFixtureSpec): Owner[] {
  const weights = parties.map(() => 1 + rng.int(0, 3));
  if (spec?.ownedBy === 'holding_middle') weights.splice(0, weights.length, 60, 40);
  if (flags.has('three_owners')) weights.splice(0, weights.length, 34, 33, 33);
  const total = weights.reduce((a, b) => a + b, 0);
  const owners: Owner[] = [];
  let left = 100;
  parties.forEach((party, k) => {
    const pct = k === parties.length - 1 ? Math.round(left * 100) / 100 : Math.round((weights[k]! / total) * 10_000) / 100;
    left -= pct;
    owners.push({ ...party, pct });
  });
  owners.sort((a, b) => b.pct - a.pct);
  return owners;
}

/** A role's first day: after registration, within the first quarter of the company's life so far. */
function roleStart(rng: Rng, c: Company): number {
  return Math.min(TODAY - 1, c.reg + rng.int(0, Math.max(0, TODAY - c.reg) >> 2));
}

export function generate(seed: number, count: number): GeneratedData {
  const g = new Generator(seed);
  for (const ps of personFixtureSpecs) {
    const rng = g.rng(hash32(`person:${ps.key}`));
    g.fixturePersons.set(ps.key, ps.type === 'person' ? g.newPerson(rng, ps.name) : g.newOrg(rng, ps.name));
  }
  for (const spec of companyFixtureSpecs) {
    const rng = g.rng(hash32(`company:${spec.key}`));
    const c = g.company(rng, spec);
    g.fixtureCompanies.set(spec.key, c.i);
    g.people(c, rng, spec);
  }
  const manyRoles = g.fixturePersons.get('many_roles')!;
  const manyRows = g.companies[g.fixtureCompanies.get('many_rows')!]!;
  const total = Math.max(count, MIN_COMPANIES);
  for (let b = 0; g.companies.length < total; b++) {
    const rng = g.rng(0x100000 + b);
    const c = g.company(rng);
    g.people(c, rng);
    // Generated here rather than in people(): each bulk company's own draws stay independent of these.
    if (b < MANY_ROLES) {
      g.addRel(c, PartyKind.Person, manyRoles, b % 2 ? 'PROK' : 'JUHL', c.reg, null);
      if (b % 10 === 0) g.addRel(c, PartyKind.Person, manyRoles, 'A', c.reg, c.reg + 30);
    }
    if (b < 120 && b % 2 === 0 && legalForms[c.form]!.owned) {
      g.addRel(c, PartyKind.Company, manyRows.i, legalForms[c.form]!.abbr === 'AS' ? 'S' : 'OSAN', c.reg, null, {
        pct: 10,
        amount: c.capital === null ? null : c.capital / 10,
        own: 0,
      });
    }
  }
  return {
    seed,
    companies: g.companies,
    rels: g.rels,
    persons: g.persons,
    byCode: g.byCode,
    fixtureCompanies: g.fixtureCompanies,
    fixturePersons: g.fixturePersons,
    vatGroups: g.vatGroups,
  };
}
