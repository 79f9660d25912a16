import { withRegistryCheckDigit } from '../../core/validation';
import type { GeneratedData } from '../dataset/generate';
import { counties, legalForms } from '../dataset/labels';
import type { Company } from '../dataset/model';
import { dayOf, isoOf } from '../dataset/prng';
import { applyToFacts } from './apply';
import type { AppliedChange, CompanyFacts, CompanyPort, NewCompanyInput } from './company-port';

/**
 * CompanyPort over the generated dataset (read side's model). Registry fields are written into the
 * Company rows, so profiles and search answers show the change. Values the dataset builds lazily (tax
 * debt, credit rating, board) are kept in `overlay`; the read side's section builders can consult
 * overlay.get(code) to agree with the events.
 */
export class DatasetCompanies implements CompanyPort {
  readonly overlay = new Map<string, Pick<CompanyFacts, 'tax_debt' | 'rating' | 'score' | 'board'>>();

  constructor(
    private readonly ds: Pick<GeneratedData, 'companies' | 'byCode'>,
    /** Sandbox date (YYYY-MM-DD) for end dates written by changes. */
    private readonly today: () => string,
  ) {}

  private row(code: string): Company | undefined {
    const i = this.ds.byCode.get(code);
    return i === undefined ? undefined : this.ds.companies[i];
  }

  private facts(c: Company): CompanyFacts {
    const form = legalForms[c.form]!;
    const o = this.overlay.get(c.code);
    return {
      registry_code: c.code,
      name: c.name,
      legal_form: form.et,
      legal_form_abbr: form.abbr,
      status: c.status,
      registered_on: isoOf(c.reg),
      address: c.address,
      county: counties[c.county]?.code ?? null,
      activity_codes: [...c.acts].sort((a, b) => Number(b.main) - Number(a.main)).map((a) => a.code),
      employees: c.employees,
      revenue: null,
      tax_debt: o?.tax_debt ?? null,
      rating: o?.rating ?? null,
      score: o?.score ?? null,
      board: o?.board ?? [],
      share_capital: c.capital,
      vat_number: c.vat,
    };
  }

  get(code: string): CompanyFacts | undefined {
    const c = this.row(code);
    return c && this.facts(c);
  }

  *all(): Iterable<CompanyFacts> {
    for (const c of this.ds.companies) yield this.facts(c);
  }

  applyChange(change: AppliedChange): void {
    const c = this.row(change.registry_code);
    if (!c) return;
    const f = this.facts(c);
    applyToFacts(f, change);
    this.overlay.set(c.code, { tax_debt: f.tax_debt, rating: f.rating, score: f.score, board: f.board });
    const today = dayOf(this.today());
    if (f.name !== c.name) {
      c.prev = [c.name, ...c.prev];
      c.name = f.name;
    }
    c.address = f.address;
    if (f.status !== c.status) {
      c.status = f.status;
      c.del = f.status === 'D' ? today : null;
    }
    c.capital = f.share_capital;
    if (change.kind === 'activity_changed') c.acts = [{ code: f.activity_codes[0]!, version: 2008, main: true }, ...c.acts.filter((a) => a.code !== f.activity_codes[0]).map((a) => ({ ...a, main: false }))];
    if (change.kind === 'vat_deregistered' && c.vat) {
      c.vatRegs = c.vatRegs.map((r) => (r.vat === c.vat && r.until === null ? { ...r, until: today } : r));
      c.vat = null;
    }
  }

  register(input: NewCompanyInput, onDate: string): CompanyFacts {
    let code = input.registry_code;
    for (let n = 1_750_000 + this.ds.companies.length; !code || this.ds.byCode.has(code); n++) code = withRegistryCheckDigit(String(n));
    const formI = Math.max(0, legalForms.findIndex((f) => f.et.toLowerCase() === (input.legal_form ?? 'osaühing').toLowerCase() || f.abbr === input.legal_form));
    const countyI = Math.max(0, counties.findIndex((x) => x.code === (input.county ?? 'Harju maakond') || x.code === `${input.county} maakond`));
    const county = counties[countyI]!.code;
    const reg = dayOf(input.registered_on ?? onDate);
    const c: Company = {
      i: this.ds.companies.length, code, name: input.name ?? `Uusettevõte ${this.ds.companies.length + 1} ${legalForms[formI]!.abbr}`,
      form: formI, status: 'R', reg, del: null, vat: null, vatRegs: [], county: countyI,
      address: `${county}, Tallinn, Pärnu mnt ${(this.ds.companies.length % 150) + 1}, 10141`, postal: '10141',
      acts: [{ code: input.activity_code ?? '62011', version: 2008, main: true }], prev: [], employees: input.employees ?? 0,
      capital: 2500, rank: 0, updated: reg, flags: new Set(), rels: [], holdings: [],
    };
    this.ds.companies.push(c);
    this.ds.byCode.set(code, c.i);
    return this.facts(c);
  }
}
