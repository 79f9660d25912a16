import { companyStatusCodes } from '@company-data/core/vocabulary';
import { personalCodeCheckDigit, withRegistryCheckDigit, withVatCheckDigit } from '@company-data/core/validation';
import { companyFixtureSpecs, personFixtureSpecs, type CompanyFixtureSpec } from '../fixtures';
import { emtak2008, emtak2025 } from './emtak';
import { counties, legalForms, roleIndex } from './labels';
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
    const formI = spec ? formIndex.get(spec.form)! : rng.weighted(formWeights);
    const form = legalForms[formI]!;
    const status: StatusCode = spec
      ? (spec.status ?? 'R')
      : companyStatusCodes[rng.weighted([84, 2.5, 1.5, 12])]!; /* weights in R, L, N, D order */
    const reg = spec ? dayOf(spec.registered) : START + Math.floor((TODAY - 1 - START) * Math.sqrt(rng.next()));
    const del = status === 'D' ? Math.min(TODAY - 1, reg + rng.int(200, Math.max(201, TODAY - reg))) : null;
    const name = spec?.name ?? this.companyName(rng, form.abbr);
    const code = this.registryCode(rng, form.digit, reg);
    const countyI = spec ? 0 : rng.weighted(v.countyWeights);
    const county = counties[countyI]!.code;
    const [city, postalDigit] = rng.pick(v.places[county]!);
    const postal = postalDigit + String(rng.int(0, 9999)).padStart(4, '0');
    const address = `${county}, ${city}, ${rng.pick(v.streets)} ${rng.int(1, 120)}, ${postal}`;
    let employees =
      spec?.employees ??
      (form.abbr === 'AS' || form.abbr === 'SE'
        ? rng.int(10, 2000)
        : ['OÜ', 'TÜ', 'UÜ', 'TÜH', 'FIL'].includes(form.abbr)
          ? Math.floor(Math.exp(rng.next() ** 2 * Math.log(400))) - 1
          : rng.int(0, 3));
    if (status === 'D') employees = 0;
    const capital =
      form.abbr === 'AS' || form.abbr === 'SE'
        ? 25_000 * rng.int(1, 40)
        : form.abbr === 'OÜ'
          ? reg >= ZERO_CAPITAL_FROM && rng.chance(0.4)
            ? 0.01
            : 2500 * rng.int(1, 4)
          : form.owned
            ? 1000
            : null;

    const vatRegs: VatReg[] = [];
    let vat: string | null = null;
    const vatMode = spec
      ? (spec.vat ?? 'none')
      : vatForms.has(form.abbr) && rng.chance(0.55)
        ? status === 'D'
          ? 'ended'
          : rng.chance(0.08)
            ? 'history'
            : 'current'
        : 'none';
    const vatFrom = reg + rng.int(0, 400);
    if (typeof vatMode === 'object') {
      let num = this.vatGroups.get(vatMode.group);
      if (!num) this.vatGroups.set(vatMode.group, (num = this.vatNumber(rng)));
      vat = num;
      vatRegs.push({ vat: num, from: Math.max(reg, dayOf('2019-01-01')), until: null });
    } else if (vatMode === 'current' || vatMode === 'history') {
      vat = this.vatNumber(rng);
      if (vatMode === 'history') {
        const oldFrom = Math.min(vatFrom, TODAY - 900);
        const oldUntil = oldFrom + rng.int(200, 500);
        vatRegs.push({ vat, from: oldUntil + rng.int(60, 300), until: null }, { vat: this.vatNumber(rng), from: oldFrom, until: oldUntil });
      } else vatRegs.push({ vat, from: Math.min(vatFrom, TODAY - 1), until: null });
    } else if (vatMode === 'ended') {
      const until = del ?? TODAY - rng.int(100, 600);
      vatRegs.push({ vat: this.vatNumber(rng), from: Math.min(vatFrom, until - 30), until });
    }

    const prev =
      spec?.previousNames ?? (rng.chance(0.07) ? Array.from({ length: rng.int(1, 2) }, () => this.companyName(rng, form.abbr)) : []);
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

  /** People, owners and other parties of one company (its representatives, shareholders, ...). */
  people(c: Company, rng: Rng, spec?: CompanyFixtureSpec): void {
    const form = legalForms[c.form]!;
    const flags = c.flags;
    const many = flags.has('many_rows');
    const since = (min = c.reg) => Math.min(TODAY - 1, min + rng.int(0, Math.max(0, TODAY - min) >> 2));
    if (form.abbr === 'FIE') return;

    // Representatives.
    const board = many ? 8 : form.abbr === 'AS' || form.abbr === 'SE' ? rng.int(2, 3) : rng.int(1, 2);
    for (let k = 0; k < board; k++) {
      const pid = k === 0 && spec?.key === 'active' ? this.fixturePersons.get('board_member')! : this.somePerson(rng);
      this.addRel(c, PartyKind.Person, pid, k === 0 && (form.abbr === 'AS' || form.abbr === 'SE') ? 'JUHE' : 'JUHL', since(), null);
    }
    if (rng.chance(0.05) || many) this.addRel(c, PartyKind.Person, this.somePerson(rng), 'PROK', since(), null);
    const endedBoard = many ? 22 : flags.has('ended_relations') ? 2 : rng.chance(0.25) ? 1 : 0;
    for (let k = 0; k < endedBoard; k++) {
      const from = c.reg + rng.int(0, 400);
      const pid = k === 0 && spec?.key === 'ended_relations' ? this.fixturePersons.get('board_member')! : this.somePerson(rng);
      this.addRel(c, PartyKind.Person, pid, 'JUHL', from, Math.min(TODAY - 2, from + rng.int(100, 2500)));
    }
    if (c.status === 'L') this.addRel(c, PartyKind.Person, this.somePerson(rng), 'LIKV', TODAY - rng.int(30, 300), null);
    if (c.status === 'N') this.addRel(c, PartyKind.Person, this.somePerson(rng), 'PANKR', TODAY - rng.int(30, 600), null);

    // Shareholders and beneficial owners.
    const owners: { kind: PartyKind; p: number; pct: number }[] = [];
    if (form.owned) {
      const role = form.abbr === 'AS' || form.abbr === 'SE' ? 'S' : form.abbr === 'TÜ' ? 'TOSAN' : form.abbr === 'UÜ' ? 'UOSAN' : 'OSAN';
      const parties: { kind: PartyKind; p: number }[] = [];
      if (spec?.ownedBy) parties.push({ kind: PartyKind.Company, p: this.fixtureCompanies.get(spec.ownedBy)! });
      if (flags.has('foreign_owner')) parties.push({ kind: PartyKind.Organisation, p: this.fixturePersons.get('foreign_organisation')! });
      const n = many
        ? 40
        : flags.has('three_owners')
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
      const weights = parties.map(() => 1 + rng.int(0, 3));
      if (spec?.ownedBy === 'holding_middle') weights.splice(0, weights.length, 60, 40);
      if (flags.has('three_owners')) weights.splice(0, weights.length, 34, 33, 33);
      const total = weights.reduce((a, b) => a + b, 0);
      let left = 100;
      parties.forEach((party, k) => {
        const pct = k === parties.length - 1 ? Math.round(left * 100) / 100 : Math.round((weights[k]! / total) * 10_000) / 100;
        left -= pct;
        owners.push({ ...party, pct });
      });
      owners.sort((a, b) => b.pct - a.pct);
      const joint = flags.has('joint') || (!spec && rng.chance(0.02));
      for (const [k, o] of owners.entries()) {
        const share = { pct: o.pct, amount: c.capital === null ? null : Math.round(c.capital * o.pct) / 100, own: 0 as const };
        const from = since();
        if (k === 0 && joint && o.kind === PartyKind.Person) {
          this.addRel(c, o.kind, o.p, role, from, null, { ...share, own: 1 });
          this.addRel(c, PartyKind.Person, this.somePerson(rng), role, from, null, { ...share, own: 1 });
        } else this.addRel(c, o.kind, o.p, role, from, null, share);
      }
      if (flags.has('ended_relations') || (!spec && rng.chance(0.1))) {
        const from = c.reg;
        this.addRel(c, PartyKind.Person, this.somePerson(rng), role, from, Math.min(TODAY - 2, from + rng.int(300, 3000)), {
          pct: 100,
          amount: c.capital,
          own: 0,
        });
      }
    }
    const bo = owners.filter((o) => o.kind === PartyKind.Person && o.pct >= 25);
    if (bo.length === 0 && form.abbr !== 'AV' && form.abbr !== 'FIL') {
      const rep = this.rels[c.rels[0]!];
      if (rep) bo.push({ kind: PartyKind.Person, p: rep.p, pct: 0 });
    }
    for (const o of bo) this.addRel(c, PartyKind.Person, o.p, 'W', since(), null);

    // Other parties: supervisory board, auditors, founders.
    if (form.abbr === 'AS' || form.abbr === 'SE' || many) {
      const members = many ? 30 : 3;
      for (let k = 0; k < members; k++) {
        const ended = many && k >= 10;
        const from = since();
        this.addRel(c, PartyKind.Person, this.somePerson(rng), k === 0 ? 'E' : 'N', from, ended ? Math.min(TODAY - 2, from + 400) : null);
      }
      if (c.i > 10 && rng.chance(0.8)) this.addRel(c, PartyKind.Company, rng.int(0, c.i - 1), 'D', since(), null);
    }
    if (!spec && rng.chance(0.08)) this.addRel(c, PartyKind.Person, this.somePerson(rng), 'A', c.reg, c.reg + rng.int(1, 60));
  }
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
