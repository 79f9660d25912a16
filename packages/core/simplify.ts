import type { AnyOperation } from './operation';
import { operationId } from './operation';
import { objectOrEmpty, objectsOf } from './json';
import type { CompanySummary } from './schemas/company';
import { figureKeys, ratioKeys } from './schemas/financials';

/*
 * The compact shape of large answers: flat items of plain values, so n8n's table view shows readable
 * columns, a sheet gets one cell per fact and an AI assistant reads a few hundred tokens instead of
 * the whole profile. The n8n nodes' Simplify option (version 2, on by default as in n8n's own nodes)
 * and the MCP tools' default output are this shape; off, both give the service's full object.
 */

/** One flat item: plain values only. */
export type FlatItem = Record<string, string | number | boolean | null>;

/** A company summary as one level of plain values: each becomes a sheet column when mapped. */
export function flatCompany(c: CompanySummary): FlatItem {
  return companyValues(c);
}

function companyValues(c: CompanySummary) {
  const obj = (v: unknown) => (v && typeof v === 'object' ? (v as Record<string, unknown>) : {});
  const legal = obj(c.legal_form);
  const status = obj(c.status);
  const address = obj(c.address);
  return {
    registry_code: c.registry_code,
    name: c.name,
    legal_form: (legal.label ?? legal.name ?? null) as string | null,
    status: (status.code ?? null) as string | null,
    status_label: (status.label ?? null) as string | null,
    registered_on: c.registered_on ?? null,
    deleted_on: c.deleted_on ?? null,
    vat_number: c.vat_number ?? null,
    address: (address.full ?? null) as string | null,
    postal_code: (address.postal_code ?? null) as string | null,
    url: c.url ?? null,
  };
}

export type FlatCompanyField = keyof ReturnType<typeof companyValues>;
/** The fields of flatCompany, in its order: the best match's columns of the n8n Lookup and the Sheets enrich. */
export const flatCompanyFields = Object.keys(companyValues({} as CompanySummary)) as readonly FlatCompanyField[];

type Row = Record<string, unknown>;
const rec = objectOrEmpty;
const list = objectsOf;
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : null);
const num = (v: unknown): number | null => (typeof v === 'number' ? v : null);

/** "a; b; c", at most `max` entries, then "and N more". */
function joined(parts: string[], max = 20): string | null {
  if (!parts.length) return null;
  const shown = parts.slice(0, max).join('; ');
  return parts.length > max ? `${shown}; and ${parts.length - max} more` : shown;
}

/** A search result: the lookup's flat company, plus the earlier name that matched, only where there is one. */
function flatSummary(data: unknown): FlatItem {
  const row = rec(data);
  const flat = flatCompany(row as CompanySummary);
  return row.matched_previous_name ? { ...flat, matched_previous_name: row.matched_previous_name as string } : flat;
}

const firstContact = (contacts: Row[], type: string) => str(contacts.find((c) => c.type === type)?.value);

/** Embedded sections in one or two columns each: the figure people look for, or the row count. */
function sectionColumns(profile: Row): FlatItem {
  const out: FlatItem = {};
  const credit = rec(profile.credit_score);
  if (profile.credit_score) Object.assign(out, { credit_rating: str(credit.rating), credit_score: num(credit.score) });
  if (profile.tax_debt) out.tax_debt_total = num(rec(profile.tax_debt).total);
  for (const [key, value] of Object.entries(profile)) {
    const section = rec(value);
    if (Array.isArray(section.items) && typeof section.total === 'number') out[`${key}_total`] = section.total;
  }
  return out;
}

function flatProfile(data: unknown): FlatItem {
  const p = rec(data);
  const activities = list(p.activities);
  const main = activities.find((a) => a.main === true) ?? activities[0];
  const contacts = list(p.contacts);
  const capital = rec(p.share_capital);
  return {
    ...flatCompany(p as CompanySummary),
    main_activity: main ? `${str(main.code) ?? ''} ${str(main.title) ?? ''}`.trim() : null,
    main_activity_code: str(main?.code),
    share_capital: num(capital.amount),
    share_capital_currency: str(capital.currency),
    email: firstContact(contacts, 'email'),
    phone: firstContact(contacts, 'phone') ?? firstContact(contacts, 'mobile'),
    website: firstContact(contacts, 'website'),
    previous_names: joined(Array.isArray(p.previous_names) ? (p.previous_names as unknown[]).map(String) : []),
    accounting_required: typeof p.accounting_required === 'boolean' ? p.accounting_required : null,
    consumer_blacklist_since: str(p.consumer_blacklist_since),
    updated_at: str(p.updated_at),
    ...sectionColumns(p),
  };
}

function flatPerson(data: unknown): FlatItem {
  const p = rec(data);
  const roles = list(p.roles);
  const current = roles.filter((r) => r.until === null || r.until === undefined);
  const roleText = (r: Row) => {
    const company = rec(r.company);
    return `${str(rec(r.role).label) ?? str(r.relation) ?? ''}, ${str(company.name) ?? ''} (${str(company.registry_code) ?? ''})`;
  };
  return {
    id: num(p.id),
    type: str(p.type),
    name: str(p.name),
    personal_code: str(p.personal_code),
    registry_code: str(p.registry_code),
    birth_date: str(p.birth_date),
    url: str(p.url),
    roles_total: num(p.roles_total),
    current_roles: current.length,
    current_role_list: joined(current.map(roleText)),
  };
}

/** A year's figures and ratios side by side, one column each. */
function flatYear(y: Row): FlatItem {
  const figures = rec(y.figures);
  const ratios = rec(y.ratios);
  const out: FlatItem = { year: num(y.year) };
  for (const k of figureKeys) out[k] = num(figures[k]);
  for (const k of ratioKeys) out[k] = num(ratios[k]);
  return out;
}

/** Financials: one item per year, newest first, instead of one object holding all years. */
const flatFinancials = (data: unknown): FlatItem[] =>
  list(rec(data).years)
    .map(flatYear)
    .sort((a, b) => Number(b.year) - Number(a.year));

function flatCreditScore(data: unknown): FlatItem {
  const c = rec(data);
  const factors = (v: unknown) =>
    joined(
      list(v).map((f) => `${str(f.label) ?? str(f.factor) ?? ''} (${num(f.effect) ?? ''})`),
      5,
    );
  return {
    rated: c.rated === true,
    reason: str(c.reason),
    date: str(c.date),
    score: num(c.score),
    rating: str(c.rating),
    probability_of_default: num(c.probability_of_default),
    rule: str(c.rule),
    top_risks: factors(c.risks),
    top_strengths: factors(c.strengths),
  };
}

/** Which operations simplify, and how: one item, or several items (financials by year). */
const simplifiers: Readonly<Record<string, (data: unknown) => FlatItem | FlatItem[]>> = {
  'companies.search': flatSummary,
  'companies.get': flatProfile,
  'companies.byVat': flatProfile,
  'people.getPerson': flatPerson,
  'financials.financials': flatFinancials,
  'financials.annualReport': (data) => flatYear(rec(data)),
  'risk.creditScore': flatCreditScore,
};

export const simplifies = (op: AnyOperation) => operationId(op) in simplifiers;

/** The simplified item(s) of one answer (or one row of a list answer). */
export function simplified(op: AnyOperation, data: unknown): FlatItem[] {
  const out = simplifiers[operationId(op)]!(data);
  return Array.isArray(out) ? out : [out];
}
