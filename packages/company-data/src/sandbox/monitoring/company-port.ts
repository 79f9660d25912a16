/**
 * What the write side needs from the sandbox dataset (the read side owns the data model). The dataset
 * adapter implements it; tests may use MemoryCompanies. Facts are a flat view: events and saved-search
 * matches are built from them, and changes are written back through applyChange so GET answers agree.
 */

import type { CompanyStatusCode } from '@company-data/core/vocabulary';

export type StatusCode = CompanyStatusCode;

export interface CompanyFacts {
  registry_code: string;
  name: string;
  /** Estonian legal form name, e.g. osaühing. */
  legal_form: string;
  /** Abbreviation, e.g. OÜ (saved-search filters accept either). */
  legal_form_abbr: string;
  status: StatusCode;
  registered_on: string;
  address: string;
  /** County as registered, e.g. "Harju maakond". */
  county: string | null;
  /** Current EMTAK codes, main first. */
  activity_codes: string[];
  employees: number | null;
  revenue: number | null;
  tax_debt: number | null;
  rating: string | null;
  score: number | null;
  board: string[];
  share_capital: number | null;
  vat_number: string | null;
}

/** A change as applied to the dataset: what the event reports in details. */
export interface AppliedChange {
  registry_code: string;
  kind: string;
  category: string;
  details: Record<string, unknown>;
}

export interface NewCompanyInput {
  registry_code?: string;
  name?: string;
  legal_form?: string;
  county?: string;
  activity_code?: string;
  registered_on?: string;
  employees?: number | null;
  revenue?: number | null;
}

export interface CompanyPort {
  get(registryCode: string): CompanyFacts | undefined;
  all(): Iterable<CompanyFacts>;
  /** Writes the change into the company's data so the read endpoints reflect it. */
  applyChange(change: AppliedChange): void;
  /** Registers a new company; returns its facts (registry code filled in when not given). */
  register(input: NewCompanyInput, onDate: string): CompanyFacts;
}
