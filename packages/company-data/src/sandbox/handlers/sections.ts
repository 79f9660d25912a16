import { emtak2008, emtak2025, emtakAll, titleIn } from '../dataset/emtak';
import { classifierTables } from '../dataset/labels';
import { fold } from '../dataset/search';
import { notFound } from '../http/errors';
import { annualReportView } from '../dataset/financials';
import { personItem, personView, sectionData, type PeopleSection } from '../views';
import { companyByCode, SEARCH_CAP } from './companies';
import { paged, pagedView, type OpContext, type OpHandler, type OpHandlers, type OpResult } from './types';

/** q on people and risk lists: keep rows where any text column (names, numbers, roles) contains q. */
export function textContains(row: unknown, q: string): boolean {
  const needle = fold(q);
  const walk = (v: unknown, key: string): boolean => {
    if (typeof v === 'string') return key !== 'url' && fold(v).includes(needle);
    if (Array.isArray(v)) return v.some((x) => walk(x, key));
    if (v && typeof v === 'object') return Object.entries(v).some(([k, x]) => walk(x, k));
    return false;
  };
  return walk(row, '');
}

/** What the section operations have in common (each one's own parameters have at least these). */
type SectionListParams = { registry_code: string; history?: boolean; q?: string; page?: number; limit?: number };

const list =
  (section: string, people: boolean) =>
  ({ params, ds, lang }: OpContext<SectionListParams>): OpResult => {
    const c = companyByCode(ds, params.registry_code);
    let rows = sectionData(ds, c, section, people ? (params.history ?? false) : true, lang) as unknown[];
    const q = params.q;
    if (q) rows = rows.filter((r) => textContains(r, q));
    return paged(rows, params);
  };

const object =
  (section: string) =>
  ({ params, ds, lang }: OpContext<{ registry_code: string }>): OpResult => ({
    data: sectionData(ds, companyByCode(ds, params.registry_code), section, false, lang),
  });

const peopleSections: Record<string, PeopleSection> = {
  representatives: 'representatives',
  shareholders: 'shareholders',
  beneficialOwners: 'beneficial_owners',
  otherParties: 'other_parties',
  holdings: 'holdings',
};

const searchPersons: OpHandler<'people.searchPersons'> = ({ params, ds }) => {
  return pagedView(ds.personSearch.search(params.q, SEARCH_CAP), params, (id) => personItem(ds, id));
};

const getPerson: OpHandler<'people.getPerson'> = ({ params, ds, lang }) => {
  if (params.id > ds.persons.length) throw notFound(`Person ${params.id}`);
  return { data: personView(ds, params.id, params.history ?? false, lang) };
};

const annualReport: OpHandler<'financials.annualReport'> = ({ params, ds, lang }) => {
  const view = annualReportView(ds.seed, companyByCode(ds, params.registry_code), params.year, lang);
  if (!view) throw notFound(`Annual report ${params.year} of ${params.registry_code}`);
  return { data: view };
};

const classifiers: OpHandler<'reference.classifiers'> = ({ params, lang }) => {
  return { data: classifierTables[params.type].map((e) => ({ code: e.code, label: e[lang] })) };
};

const emtak: OpHandler<'reference.emtak'> = ({ params, lang }) => {
  const rows = params.version === 2008 ? emtak2008 : params.version === 2025 ? emtak2025 : emtakAll;
  const q = params.q;
  const needle = q === undefined ? '' : fold(q);
  const hits = !q ? rows : /^\d+$/.test(q) ? rows.filter((r) => r.code.startsWith(q)) : rows.filter((r) => r.folded.includes(needle));
  return pagedView(hits, params, (r) => ({
    code: r.code,
    title: titleIn(r, lang),
    version: r.version,
    section: r.section,
    level: 'subclass',
  }));
};

export const sectionHandlers: OpHandlers = {
  ...Object.fromEntries(Object.entries(peopleSections).map(([name, s]) => [`people.${name}`, list(s, true)])),
  'people.searchPersons': searchPersons,
  'people.getPerson': getPerson,
  'financials.financials': object('financials'),
  'financials.annualReports': object('annual_reports'),
  'financials.annualReport': annualReport,
  'financials.quarterlyTaxes': object('quarterly_taxes'),
  'risk.creditScore': object('credit_score'),
  'risk.taxDebt': object('tax_debt'),
  'risk.taxDeclarations': object('tax_declarations'),
  'risk.courtCases': list('court_cases', false),
  'risk.paymentOrders': list('payment_orders', false),
  'risk.enforcements': list('enforcements', false),
  'risk.rulings': list('rulings', false),
  'reference.classifiers': classifiers,
  'reference.emtak': emtak,
};
