import { includeSections } from '@company-data/core/params';
import { classifyLookupQuery } from '@company-data/core/validation';
import type { Dataset } from '../dataset';
import { legalForms, counties } from '../dataset/labels';
import type { Company } from '../dataset/model';
import { dayOf } from '../dataset/prng';
import { fold, type CompanyFilter, type SearchHit } from '../dataset/search';
import { notFound } from '../http/errors';
import { profile, summary } from '../views';
import { paged, pagedView, type OpContext, type OpHandler, type OpHandlers } from './types';

export const SEARCH_CAP = 200;

export function companyByCode(ds: Dataset, code: string): Company {
  const i = ds.byCode.get(code);
  if (i === undefined) throw notFound(`Company ${code}`);
  return ds.companies[i]!;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parameters already validated by the operation's zod schema
function filterOf(p: Record<string, any>): CompanyFilter {
  const f: CompanyFilter = {};
  if (p.status?.length) f.status = new Set(p.status);
  if (p.legal_form?.length) {
    const wanted = new Set((p.legal_form as string[]).map(fold));
    f.forms = new Set(
      legalForms.flatMap((lf, i) => (wanted.has(fold(lf.abbr)) || wanted.has(fold(lf.et)) || wanted.has(fold(lf.en)) ? [i] : [])),
    );
  }
  if (p.activity?.length) f.activity = p.activity;
  if (p.county?.length) {
    // "Harju", "Harju maakond" and "harju county" all name the same county.
    const wanted = (p.county as string[]).map((x) =>
      fold(x)
        .replace(/\s+(maakond|county)$/, '')
        .trim(),
    );
    f.counties = new Set(counties.flatMap((c, i) => (wanted.includes(fold(c.code).replace(/ maakond$/, '')) ? [i] : [])));
  }
  if (p.vat_number?.length) f.vat = new Set(p.vat_number);
  if (p.registered_from) f.from = dayOf(p.registered_from);
  if (p.registered_to) f.to = dayOf(p.registered_to);
  return f;
}

export function searchHits(ds: Dataset, q: string, max: number, filter?: CompanyFilter): SearchHit[] {
  if (/^\d{3,8}$/.test(q)) return ds.companySearch.byCodePrefix(q, max, filter);
  return ds.companySearch.byName(q, max, filter);
}

const hitView = (ds: Dataset, lang: OpContext['lang']) => (h: SearchHit) => ({
  ...summary(ds.companies[h.i]!, lang),
  matched_previous_name: h.previous,
});

const search: OpHandler<'companies.search'> = ({ params, ds, lang }) => {
  const filter = filterOf(params);
  if (params.q) return pagedView(searchHits(ds, params.q, SEARCH_CAP, filter), params, hitView(ds, lang));
  const page = params.page ?? 1;
  const limit = params.limit ?? 25;
  const { ids, total } = ds.companySearch.list(filter, (page - 1) * limit, limit);
  return paged(
    ids.map((i) => summary(ds.companies[i]!, lang)),
    params,
    total,
    true,
  );
};

const lookup: OpHandler<'companies.lookup'> = ({ params, ds, lang, key, state, now }) => {
  const limit = params.limit ?? 1;
  const queries = params.queries;
  let matched = 0;
  const data = queries.map((query) => {
    const cls = classifyLookupQuery(query);
    const out: Record<string, unknown> = { query, type: cls.type, matches: [] as unknown[] };
    if (cls.type === 'registry_code') {
      const i = ds.byCode.get(cls.normalised);
      if (i !== undefined) out.matches = [summary(ds.companies[i]!, lang)];
    } else if (cls.type === 'vat_number') {
      const e = ds.vat.get(cls.normalised);
      out.vat_holders = e?.holders.length ?? 0;
      const ids = e ? (e.holders.length ? e.holders : e.last !== null ? [e.last] : []) : [];
      out.matches = ids.slice(0, limit).map((i) => summary(ds.companies[i]!, lang));
    } else if (cls.skipped) {
      out.skipped = cls.skipped;
    } else {
      out.matches = ds.companySearch.byName(cls.normalised, limit).map((h) => summary(ds.companies[h.i]!, lang));
    }
    if ((out.matches as unknown[]).length) matched++;
    return out;
  });
  // Billed per query: every query sent counts, whether it matched, was skipped or not.
  if (key) {
    state.usage(key.id, period(now())).billed_lookup_queries += queries.length;
    state.changed();
  }
  return { data, meta: { queries: queries.length, matched } };
};

export const period = (ms: number) => new Date(ms).toISOString().slice(0, 7);

export function includeList(include: string[] | undefined): string[] {
  if (!include?.length) return [];
  return include.includes('all') ? [...includeSections] : [...new Set(include)];
}

const get: OpHandler<'companies.get'> = ({ params, ds, lang }) => {
  const c = companyByCode(ds, params.registry_code);
  return { data: profile(ds, c, includeList(params.include), params.history ?? false, lang) };
};

const byVat: OpHandler<'companies.byVat'> = ({ params, ds, lang }) => {
  const vat = params.vat_number;
  const e = ds.vat.get(vat);
  const i = e ? (e.holders[0] ?? e.last) : undefined;
  if (i === undefined || i === null) throw notFound(`VAT number ${vat}`);
  return {
    data: profile(ds, ds.companies[i]!, includeList(params.include), false, lang),
    meta: { vat_number: vat, vat_holders: e!.holders.length },
  };
};

export const companyHandlers: OpHandlers = {
  'companies.search': search,
  'companies.lookup': lookup,
  'companies.get': get,
  'companies.byVat': byVat,
};
