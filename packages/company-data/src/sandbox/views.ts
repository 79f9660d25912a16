import type { Lang } from '@company-data/core/schemas/common';
import type { Dataset } from './dataset';
import { emtakTitle } from './dataset/emtak';
import { financialsView, annualReportList, financialYear, quarterlyTaxesView, sectionRng } from './dataset/financials';
import { codeLabel, legalForms, ownershipTypes, roles, statuses } from './dataset/labels';
import { PartyKind, type Company, type Rel } from './dataset/model';
import { isoOf, TODAY } from './dataset/prng';
import { nameSlug, recordSections, taxDeclarationsView } from './dataset/records';
import { boardRows, creditScoreWithOverlay, removedOn, taxDebtWithOverlay } from './overlay';
import * as v from './dataset/vocab';

/** JSON shapes of the interface, rendered from the dataset in one language. */

const PUBLIC = 'https://sandbox.invalid';
export const companyUrl = (code: string) => `${PUBLIC}/companies/${code}`;
export const personUrl = (id: number) => `${PUBLIC}/persons/${id}`;

export function legalFormView(c: Company, lang: Lang) {
  const f = legalForms[c.form]!;
  return { name: f.et, label: f[lang] };
}

export function statusView(c: Company, lang: Lang) {
  return codeLabel(statuses.find((s) => s.code === c.status)!, lang);
}

export function summary(c: Company, lang: Lang) {
  return {
    registry_code: c.code,
    name: c.name,
    legal_form: legalFormView(c, lang),
    status: statusView(c, lang),
    registered_on: isoOf(c.reg),
    deleted_on: c.del === null ? null : isoOf(c.del),
    vat_number: c.vat,
    address: { full: c.address, postal_code: c.postal },
    url: companyUrl(c.code),
  };
}

function contacts(ds: Dataset, c: Company) {
  const rng = sectionRng(ds.seed, c, 'contacts');
  const slug = nameSlug(c);
  const phone = () => `+372 ${rng.int(600, 799)} ${rng.int(1000, 9999)}`;
  const all = [
    { type: 'email', value: `info@${slug}.ee` },
    { type: 'phone', value: phone() },
    { type: 'mobile', value: `+372 5${rng.int(100, 999)} ${rng.int(1000, 9999)}` },
    { type: 'website', value: `https://www.${slug}.ee` },
    { type: 'other', value: `Skype: ${slug}` },
  ];
  if (c.flags.has('all_contacts')) return all;
  if (c.status === 'D') return [];
  return all.filter((x) => x.type !== 'other' && rng.chance(x.type === 'email' ? 0.8 : 0.4));
}

function einvoice(ds: Dataset, c: Company): string[] {
  const rng = sectionRng(ds.seed, c, 'einvoice');
  if (c.flags.has('all_contacts')) return [v.einvoiceOperators[0]!, v.einvoiceOperators[2]!];
  if (c.status === 'D' || !legalForms[c.form]!.accounting) return [];
  return rng.chance(0.35) ? [rng.pick(v.einvoiceOperators)] : [];
}

export function party(ds: Dataset, r: Rel) {
  if (r.kind === PartyKind.Company) {
    const o = ds.companies[r.p]!;
    return {
      type: 'company',
      name: o.name,
      registry_code: o.code,
      person_id: null,
      personal_code: null,
      birth_date: null,
      url: companyUrl(o.code),
    };
  }
  const p = ds.persons[r.p - 1]!;
  return {
    type: p.type,
    name: p.name,
    registry_code: p.foreignCode,
    person_id: p.id,
    personal_code: p.personalCode,
    birth_date: p.birth === null ? null : isoOf(p.birth),
    url: personUrl(p.id),
    ...(p.country ? { country: p.country } : {}),
  };
}

export function shareView(r: Rel, lang: Lang) {
  if (r.pct === null) return null;
  return { percent: r.pct, amount: r.amount, currency: 'EUR', ownership: codeLabel(ownershipTypes[r.own ?? 0]!, lang) };
}

export type PeopleSection = 'representatives' | 'shareholders' | 'beneficial_owners' | 'other_parties' | 'holdings';
const relationOf: Record<Exclude<PeopleSection, 'holdings'>, string> = {
  representatives: 'representative',
  shareholders: 'shareholder',
  beneficial_owners: 'beneficial_owner',
  other_parties: 'other',
};

/** Rows of a people section, current first; ended ones only with history. */
export function peopleRows(ds: Dataset, c: Company, section: PeopleSection, history: boolean, lang: Lang): Record<string, unknown>[] {
  const source = section === 'holdings' ? c.holdings : c.rels;
  const rels = source
    .map((k) => ds.rels[k]!)
    .filter((r) => {
      if (!history && r.until !== null) return false;
      const role = roles[r.role]!;
      return section === 'holdings' ? role.relation === 'shareholder' : role.relation === relationOf[section];
    });
  if (section === 'shareholders' || section === 'holdings')
    rels.sort((a, b) => Number(a.until !== null) - Number(b.until !== null) || (b.pct ?? 0) - (a.pct ?? 0));
  else rels.sort((a, b) => Number(a.until !== null) - Number(b.until !== null) || a.from - b.from);
  const o = ds.overlay?.get(c.code);
  const out = rels.flatMap((r): Record<string, unknown>[] => {
    // A board member removed by a change ends on the change's date.
    const ended =
      section === 'representatives' && r.until === null && r.kind !== PartyKind.Company
        ? removedOn(o, ds.persons[r.p - 1]!.name)
        : undefined;
    if (ended && !history) return [];
    const until = ended ?? (r.until === null ? null : isoOf(r.until));
    const base = { role: codeLabel(roles[r.role]!, lang), from: isoOf(r.from), until };
    if (section === 'holdings') {
      const h = ds.companies[r.c]!;
      return [{ company: { registry_code: h.code, name: h.name, url: companyUrl(h.code) }, ...base, share: shareView(r, lang) }];
    }
    return [section === 'shareholders' ? { party: party(ds, r), ...base, share: shareView(r, lang) } : { party: party(ds, r), ...base }];
  });
  return section === 'representatives' ? [...out, ...boardRows(o, history, lang)] : out;
}

/** Section name (include key) → full rows or object. Lists are wrapped by the caller. */
export function sectionData(ds: Dataset, c: Company, section: string, history: boolean, lang: Lang): unknown {
  const ctx = { seed: ds.seed, companies: ds.companies };
  switch (section) {
    case 'representatives':
    case 'shareholders':
    case 'beneficial_owners':
    case 'other_parties':
    case 'holdings':
      return peopleRows(ds, c, section, history, lang);
    case 'financials':
      return financialsView(ds.seed, c, lang);
    case 'annual_reports':
      return annualReportList(ds.seed, c);
    case 'quarterly_taxes':
      return quarterlyTaxesView(ds.seed, c);
    case 'tax_debt':
      return taxDebtWithOverlay(ds.seed, c, lang, ds.overlay?.get(c.code));
    case 'tax_declarations':
      return taxDeclarationsView(ds.seed, c, lang);
    case 'credit_score':
      return creditScoreWithOverlay(ds.seed, c, lang, ds.overlay?.get(c.code));
    default: {
      const fn = recordSections[section];
      if (!fn) throw new Error(`unknown section ${section}`);
      return fn(ctx, c, lang);
    }
  }
}

export const EMBEDDED_ROWS = 25;

export function profile(ds: Dataset, c: Company, include: readonly string[], history: boolean, lang: Lang) {
  const fy = financialYear(c);
  const out: Record<string, unknown> = {
    ...summary(c, lang),
    share_capital: c.capital === null ? null : { amount: c.capital, currency: 'EUR' },
    financial_year: fy,
    accounting_required: legalForms[c.form]!.accounting,
    previous_names: c.prev,
    contacts: contacts(ds, c),
    activities: c.acts.map((a) => ({ code: a.code, title: emtakTitle(a.code, a.version, lang), emtak_version: a.version, main: a.main })),
    vat_registrations: c.vatRegs.map((r) => ({ vat_number: r.vat, from: isoOf(r.from), until: r.until === null ? null : isoOf(r.until) })),
    einvoice_providers: einvoice(ds, c),
    consumer_blacklist_since: c.flags.has('blacklist') ? isoOf(TODAY - 400) : null,
    updated_at: `${isoOf(c.updated)}T${String(8 + (c.i % 10)).padStart(2, '0')}:${String(c.i % 60).padStart(2, '0')}:00`,
  };
  for (const s of include) {
    const data = sectionData(ds, c, s, history, lang);
    out[s] = Array.isArray(data) ? { items: data.slice(0, EMBEDDED_ROWS), total: data.length } : data;
  }
  return out;
}

export function personItem(ds: Dataset, id: number) {
  const p = ds.persons[id - 1]!;
  return {
    id: p.id,
    type: p.type,
    name: p.name,
    personal_code: p.personalCode,
    registry_code: p.foreignCode,
    birth_date: p.birth === null ? null : isoOf(p.birth),
    url: personUrl(p.id),
    active_roles: ds.activeRoles[p.id]!,
  };
}

export const PERSON_ROLES_MAX = 1000;

export function personView(ds: Dataset, id: number, history: boolean, lang: Lang) {
  const p = ds.persons[id - 1]!;
  const rels = p.rels.map((k) => ds.rels[k]!).filter((r) => history || r.until === null);
  rels.sort((a, b) => Number(a.until !== null) - Number(b.until !== null) || b.from - a.from);
  const { active_roles: _active, ...item } = personItem(ds, id);
  void _active;
  return {
    ...item,
    roles_total: rels.length,
    roles: rels.slice(0, PERSON_ROLES_MAX).map((r) => {
      const c = ds.companies[r.c]!;
      const role = roles[r.role]!;
      return {
        company: {
          registry_code: c.code,
          name: c.name,
          legal_form: legalFormView(c, lang),
          status: statusView(c, lang),
          url: companyUrl(c.code),
        },
        relation: role.relation,
        role: codeLabel(role, lang),
        share: shareView(r, lang),
        from: isoOf(r.from),
        until: r.until === null ? null : isoOf(r.until),
      };
    }),
  };
}
