/** In-memory shapes of the generated dataset. Dates are day numbers (see prng.ts dayOf/isoOf). */

import type { CompanyStatusCode } from '@company-data/core/vocabulary';

export type StatusCode = CompanyStatusCode;

export interface VatReg {
  vat: string;
  from: number;
  until: number | null;
}

export interface Activity {
  code: string;
  version: 2008 | 2025;
  main: boolean;
}

export interface Company {
  i: number;
  code: string;
  name: string;
  /** Index into legalForms. */
  form: number;
  status: StatusCode;
  reg: number;
  del: number | null;
  vat: string | null;
  /** Newest first. */
  vatRegs: VatReg[];
  county: number;
  address: string;
  postal: string;
  acts: Activity[];
  prev: string[];
  employees: number;
  capital: number | null;
  /** Static search rank: active and large companies first. */
  rank: number;
  updated: number;
  /** Scenario flags of fixture companies (drive the lazily generated sections). */
  flags: ReadonlySet<string>;
  /** Indices into Dataset.rels where this company is the subject (its people). */
  rels: number[];
  /** Indices into Dataset.rels where this company is the party (its holdings). */
  holdings: number[];
}

export const enum PartyKind {
  Person = 0,
  Company = 1,
  Organisation = 2,
}

/** One relation row: party (person, company or foreign organisation) in a role at a company. */
export interface Rel {
  c: number;
  kind: PartyKind;
  /** Person id (persons, organisations) or company index (companies). */
  p: number;
  /** Index into roles. */
  role: number;
  from: number;
  until: number | null;
  pct: number | null;
  amount: number | null;
  /** 0 sole, 1 joint; null when no stake. */
  own: 0 | 1 | null;
}

export interface Person {
  id: number;
  type: 'person' | 'organisation';
  name: string;
  personalCode: string | null;
  birth: number | null;
  /** Foreign registration number of organisations. */
  foreignCode: string | null;
  country: string | null;
  rels: number[];
}
