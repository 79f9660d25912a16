import type { CompanyFacts } from '../monitoring/company-port';
import { newToken } from '../write/ids';
import { IdStore } from '../write/id-store';

/** Saved searches of one account, and the daily "started to match" computation. */

export interface SearchFilters {
  activity?: string[];
  county?: string[];
  registered_within_days?: number;
  legal_form?: string[];
  status?: string[];
}

export interface SavedSearch {
  id: string;
  name: string;
  filters: SearchFilters;
  created_at: number;
  baseline: number;
  /** Codes matching at the last run (or at creation): only companies outside it are reported. */
  matching: string[];
  /** Date (YYYY-MM-DD) → parts already sent that day, so a second run the same day continues the numbering. */
  runs: Record<string, { parts: number; total: number }>;
}

export const MATCHES_PER_EVENT = 500;

const norm = (s: string) =>
  s
    .toLocaleLowerCase('et')
    .replace(/\s+maakond$/, '')
    .trim();
const DAY = 86_400_000;

/** Filter semantics as in company search: within a key any value may match, all keys must match. */
export function matcher(f: SearchFilters, date: string): (c: CompanyFacts) => boolean {
  const counties = f.county?.map(norm);
  const forms = f.legal_form?.map(norm);
  const since =
    f.registered_within_days === undefined
      ? null
      : new Date(Date.parse(`${date}T00:00:00Z`) - f.registered_within_days * DAY).toISOString().slice(0, 10);
  return (c) =>
    (!f.activity?.length || c.activity_codes.some((code) => f.activity!.some((p) => code.startsWith(p)))) &&
    (!counties?.length || (c.county !== null && counties.includes(norm(c.county)))) &&
    (!forms?.length || forms.includes(norm(c.legal_form)) || forms.includes(norm(c.legal_form_abbr))) &&
    (!f.status?.length || f.status.includes(c.status)) &&
    (since === null || c.registered_on >= since);
}

export function matchingCodes(f: SearchFilters, date: string, companies: Iterable<CompanyFacts>): string[] {
  const m = matcher(f, date);
  const out: string[] = [];
  for (const c of companies) if (m(c)) out.push(c.registry_code);
  return out;
}

export function searchView(s: SavedSearch) {
  return { id: s.id, name: s.name, filters: s.filters, created_at: new Date(s.created_at).toISOString(), baseline: s.baseline };
}

/** The company fields of a search.matches event (spec, search.matches). */
export function matchCompany(c: CompanyFacts) {
  return {
    registry_code: c.registry_code,
    name: c.name,
    legal_form: c.legal_form,
    status: c.status,
    registered_on: c.registered_on,
    address: c.address,
    activity_code: c.activity_codes[0] ?? null,
    employees: c.employees,
    revenue: c.revenue,
    tax_debt: c.tax_debt,
    rating: c.rating,
  };
}

export class SearchStore extends IdStore<SavedSearch> {
  constructor(readonly searches: Record<string, SavedSearch> = {}) {
    super(searches, 'search_id');
  }

  create(name: string, filters: SearchFilters, now: number, date: string, companies: Iterable<CompanyFacts>): SavedSearch {
    const matching = matchingCodes(filters, date, companies);
    return this.put({ id: newToken('srch'), name, filters, created_at: now, baseline: matching.length, matching, runs: {} });
  }
}

/**
 * One morning run of one search: the companies that match now and did not at the last run, newest
 * registrations first, cut into events of at most 500. Returns the events' data (ids are
 * evt_<search>_<YYYYMMDD>_<part>).
 */
export function morningRun(
  s: SavedSearch,
  date: string,
  companies: Iterable<CompanyFacts>,
  lookup: (code: string) => CompanyFacts | undefined,
) {
  const now = matchingCodes(s.filters, date, companies);
  const before = new Set(s.matching);
  s.matching = now;
  const fresh = now
    .filter((code) => !before.has(code))
    .map((code) => lookup(code)!)
    .sort((a, b) =>
      a.registered_on === b.registered_on ? a.registry_code.localeCompare(b.registry_code) : a.registered_on < b.registered_on ? 1 : -1,
    );
  if (!fresh.length) return [];
  const prior = s.runs[date] ?? { parts: 0, total: 0 };
  const parts = Math.ceil(fresh.length / MATCHES_PER_EVENT);
  const day = date.replace(/-/g, '');
  const out = [];
  for (let i = 0; i < parts; i++) {
    const part = prior.parts + i + 1;
    out.push({
      id: `evt_${s.id}_${day}_${part}`,
      data: {
        search: { id: s.id, name: s.name },
        date,
        part,
        parts: prior.parts + parts,
        total: prior.total + fresh.length,
        companies: fresh.slice(i * MATCHES_PER_EVENT, (i + 1) * MATCHES_PER_EVENT).map(matchCompany),
      },
    });
  }
  s.runs[date] = { parts: prior.parts + parts, total: prior.total + fresh.length };
  return out;
}
