import { withRegistryCheckDigit } from '@company-data/core/validation';
import { orderHolders, type Dataset } from '../dataset';
import { counties, legalForms } from '../dataset/labels';
import type { Company } from '../dataset/model';
import { dayOf, isoOf } from '../dataset/prng';
import { creditScoreView, taxDebtView } from '../dataset/records';
import { searchRank } from '../dataset/search';
import { currentBoard, type CompanyOverlay, type Overlays } from '../overlay';
import { applyToFacts } from './apply';
import type { AppliedChange, CompanyFacts, CompanyPort, NewCompanyInput } from './company-port';

type DatasetView = Pick<Dataset, 'seed' | 'companies' | 'byCode' | 'rels' | 'persons'> &
  Partial<Pick<Dataset, 'overlay' | 'companySearch' | 'vat'>>;

/**
 * CompanyPort over the generated dataset (read side's model). Registry fields are written into the
 * Company rows, so profiles and search answers show the change. Values the dataset builds on request
 * (tax debt, credit rating, board) start from what the read side generates and their changes go to the
 * dataset's overlay, which the section views apply: GET answers agree with the events.
 */
export class DatasetCompanies implements CompanyPort {
  readonly overlay: Overlays;

  constructor(
    private readonly ds: DatasetView,
    /** Sandbox date (YYYY-MM-DD) for end dates written by changes. */
    private readonly today: () => string,
  ) {
    this.overlay = ds.overlay ?? new Map();
  }

  private row(code: string): Company | undefined {
    const i = this.ds.byCode.get(code);
    return i === undefined ? undefined : this.ds.companies[i];
  }

  private base(c: Company) {
    const o = this.overlay.get(c.code);
    const tax = o?.tax ? o.tax.total : taxDebtView(this.ds.seed, c, 'et').total;
    const score = creditScoreView(this.ds.seed, c, 'et');
    return {
      tax_debt: tax > 0 ? tax : null,
      // An unrated company (bankrupt, deleted, not covered) has no rating to change.
      rating: score.rated ? (o?.rating?.rating ?? score.rating) : null,
      score: score.rated ? (o?.rating?.score ?? score.score) : null,
      board: currentBoard(this.ds, c, o),
    };
  }

  private facts(c: Company): CompanyFacts {
    const form = legalForms[c.form]!;
    const f = {
      registry_code: c.code,
      name: c.name,
      legal_form: form.et,
      legal_form_abbr: form.abbr,
      status: c.status,
      registered_on: isoOf(c.reg),
      address: c.address,
      county: counties[c.county]?.code ?? null,
      activity_codes: [...c.acts].sort((a, b) => Number(b.main) - Number(a.main)).map((a) => a.code),
      employees: this.overlay.get(c.code)?.employeesUnknown ? null : c.employees,
      revenue: null,
      share_capital: c.capital,
      vat_number: c.vat,
    } as CompanyFacts;
    // Generated on first read only: saved-search runs read every company but these of the matches only.
    let lazy: ReturnType<DatasetCompanies['base']> | undefined;
    const get = () => (lazy ??= this.base(c));
    for (const k of ['tax_debt', 'rating', 'score', 'board'] as const) {
      Object.defineProperty(f, k, {
        enumerable: true,
        get: () => get()[k],
        set: (v) => {
          (get() as Record<string, unknown>)[k] = v;
        },
      });
    }
    return f;
  }

  get(code: string): CompanyFacts | undefined {
    const c = this.row(code);
    return c && this.facts(c);
  }

  *all(): Iterable<CompanyFacts> {
    for (const c of this.ds.companies) yield this.facts(c);
  }

  private overlayOf(code: string): CompanyOverlay {
    let o = this.overlay.get(code);
    if (!o) this.overlay.set(code, (o = {}));
    return o;
  }

  applyChange(change: AppliedChange): void {
    const c = this.row(change.registry_code);
    if (!c) return;
    const f = this.facts(c);
    const boardBefore = [...f.board];
    applyToFacts(f, change);
    const today = this.today();
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- change details are free-form per kind
    const d = change.details as { old: any; new: any; snapshot_date?: string };
    switch (change.kind) {
      case 'tax_debt':
      case 'tax_debt_cleared':
        this.overlayOf(c.code).tax = { total: Number(d.new) || 0, snapshot_date: d.snapshot_date ?? today };
        break;
      case 'rating_changed':
        if (f.rating) this.overlayOf(c.code).rating = { rating: f.rating, score: f.score };
        break;
      case 'board_member_added': {
        const o = this.overlayOf(c.code);
        const name = String(d.new?.name);
        if (o.boardRemoved && name in o.boardRemoved) delete o.boardRemoved[name];
        if (!boardBefore.includes(name)) (o.boardAdded ??= {})[name] = { role: String(d.new?.role ?? 'JUHL'), from: today };
        break;
      }
      case 'board_member_removed':
        (this.overlayOf(c.code).boardRemoved ??= {})[String(d.old?.name)] = today;
        break;
    }
    const day = dayOf(today);
    if (f.name !== c.name) {
      c.prev = [c.name, ...c.prev];
      c.name = f.name;
      this.ds.companySearch?.update(c.i);
    }
    c.address = f.address;
    if (f.status !== c.status) {
      c.status = f.status;
      c.del = f.status === 'D' ? day : null;
      const e = c.vat ? this.ds.vat?.get(c.vat) : undefined;
      if (e) orderHolders(e.holders, this.ds.companies);
    }
    c.capital = f.share_capital;
    if (change.kind === 'activity_changed')
      c.acts = [
        { code: f.activity_codes[0]!, version: 2008, main: true },
        ...c.acts.filter((a) => a.code !== f.activity_codes[0]).map((a) => ({ ...a, main: false })),
      ];
    const rank = searchRank(c);
    if (rank !== c.rank) {
      c.rank = rank;
      this.ds.companySearch?.reranked(c.i);
    }
    if (change.kind === 'vat_deregistered' && c.vat) {
      const number = c.vat;
      c.vatRegs = c.vatRegs.map((r) => (r.vat === number && r.until === null ? { ...r, until: day } : r));
      c.vat = null;
      // by-vat and lookup by VAT number: the company is now the last holder, not a current one.
      const e = this.ds.vat?.get(number);
      if (e) {
        e.holders = e.holders.filter((i) => i !== c.i);
        if (!e.holders.length) e.last = c.i;
      }
    }
  }

  register(input: NewCompanyInput, onDate: string): CompanyFacts {
    let code = input.registry_code;
    for (let n = 1_750_000 + this.ds.companies.length; !code || this.ds.byCode.has(code); n++) code = withRegistryCheckDigit(String(n));
    const formI = Math.max(
      0,
      legalForms.findIndex((f) => f.et.toLowerCase() === (input.legal_form ?? 'osaühing').toLowerCase() || f.abbr === input.legal_form),
    );
    const countyI = Math.max(
      0,
      counties.findIndex((x) => x.code === (input.county ?? 'Harju maakond') || x.code === `${input.county} maakond`),
    );
    const county = counties[countyI]!.code;
    const reg = dayOf(input.registered_on ?? onDate);
    const c: Company = {
      i: this.ds.companies.length,
      code,
      name: input.name ?? `Uusettevõte ${this.ds.companies.length + 1} ${legalForms[formI]!.abbr}`,
      form: formI,
      status: 'R',
      reg,
      del: null,
      vat: null,
      vatRegs: [],
      county: countyI,
      address: `${county}, Tallinn, Pärnu mnt ${(this.ds.companies.length % 150) + 1}, 10141`,
      postal: '10141',
      acts: [{ code: input.activity_code ?? '62011', version: 2008, main: true }],
      prev: [],
      employees: input.employees ?? 0,
      capital: 2500,
      rank: 0,
      updated: reg,
      flags: new Set(),
      rels: [],
      holdings: [],
    };
    c.rank = searchRank(c);
    this.ds.companies.push(c);
    this.ds.byCode.set(code, c.i);
    // A new registration has no tax debt yet; its employee count is unknown unless given.
    this.overlay.set(code, { tax: { total: 0, snapshot_date: null }, ...(input.employees == null ? { employeesUnknown: true } : {}) });
    this.ds.companySearch?.update(c.i);
    return this.facts(c);
  }
}
