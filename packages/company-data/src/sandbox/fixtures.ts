import type { StatusCode } from './dataset/model';

/**
 * Scenario fixtures: companies generated before the bulk of the dataset, from the seed and their key
 * only, so their registry codes and VAT numbers stay the same whatever the `companies` count.
 * Like a payment provider's test card numbers: one stable entry per case the spec talks about.
 */
export interface CompanyFixtureSpec {
  key: string;
  description: string;
  name: string;
  /** Legal form abbreviation (labels.ts legalForms). */
  form: string;
  status?: StatusCode;
  /** Registration date YYYY-MM-DD. */
  registered: string;
  vat?: 'current' | 'none' | 'history' | 'ended' | { group: string };
  previousNames?: string[];
  flags?: string[];
  employees?: number;
  /** Fixture key of a company that owns this one (holding chains). */
  ownedBy?: string;
}

const legalFormFixtures: CompanyFixtureSpec[] = [
  ['OÜ', 'Kaseranna Tarkvara OÜ'],
  ['AS', 'Vahtramäe Tehnika AS'],
  ['TÜ', 'Rukkiniidu Täisühing'],
  ['UÜ', 'Pihlaoru Usaldusühing'],
  ['TÜH', 'Kaeraküla Tulundusühistu'],
  ['FIE', 'Tarmo Kivisalu FIE'],
  ['MTÜ', 'Kanarbikuvainu Selts MTÜ'],
  ['SA', 'Sihtasutus Tähevälja Fond'],
  ['KÜ', 'Korteriühistu Järvevana tee 181'],
  ['SE', 'Nordvikmetsa Holding SE'],
  ['FIL', 'Baltora Oy Eesti filiaal'],
  ['AV', 'Koidulauka vallavalitsus'],
].map(([form, name]) => ({
  key: `legal_form_${form!.normalize('NFD').replace(/[^A-Za-z]/g, '')}`,
  description: `Legal form ${form}, registered`,
  name: name!,
  form: form!,
  registered: '2015-03-12',
  vat: form === 'OÜ' || form === 'AS' ? 'current' : 'none',
  employees: form === 'AS' ? 180 : 6,
}));

export const companyFixtureSpecs: readonly CompanyFixtureSpec[] = [
  {
    key: 'active',
    description: 'Healthy registered OÜ: VAT, contacts, e-invoices, 5 years of ratios, rated credit score, no debt',
    name: 'Lõunaranna Tarkvara OÜ',
    form: 'OÜ',
    registered: '2012-05-14',
    vat: 'current',
    employees: 42,
    flags: ['healthy'],
  },
  {
    key: 'large_as',
    description: 'Large AS: supervisory board, audit firm, many employees',
    name: 'Põhjakalda Energia AS',
    form: 'AS',
    registered: '1998-09-01',
    vat: 'current',
    employees: 950,
    flags: ['healthy', 'large'],
  },
  {
    key: 'status_liquidation',
    description: 'Status L, in liquidation: liquidator, credit score unrated (liquidation)',
    name: 'Haavalepiku Kaubandus OÜ',
    form: 'OÜ',
    status: 'L',
    registered: '2010-02-02',
    vat: 'current',
  },
  {
    key: 'status_bankrupt',
    description: 'Status N, bankrupt: trustee, tax debt, credit score unrated (bankrupt)',
    name: 'Raudsillu Ehitus OÜ',
    form: 'OÜ',
    status: 'N',
    registered: '2008-06-19',
    vat: 'current',
  },
  {
    key: 'status_deleted',
    description: 'Status D, deleted: deleted_on set, VAT ended, credit score unrated (deleted)',
    name: 'Kuusetagu Logistika OÜ',
    form: 'OÜ',
    status: 'D',
    registered: '2004-11-30',
    vat: 'ended',
  },
  ...legalFormFixtures,
  {
    key: 'previous_names',
    description: 'Renamed twice; search for "Kuldnokavälja" matches a previous name (matched_previous_name)',
    name: 'Sõstrakalda Grupp OÜ',
    form: 'OÜ',
    registered: '2011-01-20',
    vat: 'current',
    previousNames: ['Kuldnokavälja Meedia OÜ', 'Sõstrakalda Meedia OÜ'],
  },
  {
    key: 'vat_history',
    description: 'Current VAT number and an ended earlier registration with another number',
    name: 'Tuulenurme Auto OÜ',
    form: 'OÜ',
    registered: '2006-04-04',
    vat: 'history',
  },
  {
    key: 'vat_ended',
    description: 'VAT registration ended, company still registered: by-vat returns it with vat_holders 0',
    name: 'Allikaoru Disain OÜ',
    form: 'OÜ',
    registered: '2013-08-08',
    vat: 'ended',
  },
  {
    key: 'vat_group_a',
    description: 'VAT group member registered first (status R, oldest): the one by-vat returns',
    name: 'Mereranna Invest AS',
    form: 'AS',
    registered: '2001-03-03',
    vat: { group: 'g1' },
    employees: 300,
  },
  {
    key: 'vat_group_b',
    description: 'VAT group member (status R)',
    name: 'Mereranna Haldus OÜ',
    form: 'OÜ',
    registered: '2009-10-10',
    vat: { group: 'g1' },
  },
  {
    key: 'vat_group_c',
    description: 'VAT group member in liquidation (registered companies come first)',
    name: 'Mereranna Teenused OÜ',
    form: 'OÜ',
    status: 'L',
    registered: '1999-01-15',
    vat: { group: 'g1' },
  },
  {
    key: 'contacts',
    description: 'Contacts of every type and two e-invoice providers',
    name: 'Koiduveski Meedia OÜ',
    form: 'OÜ',
    registered: '2016-02-29',
    vat: 'current',
    flags: ['all_contacts'],
  },
  {
    key: 'consumer_blacklist',
    description: 'On the consumer protection blacklist (consumer_blacklist_since) with consumer disputes',
    name: 'Kivikoja Sisustus OÜ',
    form: 'OÜ',
    registered: '2017-07-07',
    vat: 'current',
    flags: ['blacklist', 'disputes'],
  },
  {
    key: 'foreign_owner',
    description: 'Owned by a foreign organisation (party.type organisation) and a person',
    name: 'Rebasevälja Logistika OÜ',
    form: 'OÜ',
    registered: '2014-12-01',
    vat: 'current',
    flags: ['foreign_owner'],
  },
  {
    key: 'joint_ownership',
    description: 'A stake owned jointly by two people (share.ownership joint)',
    name: 'Kadakasalu Puit OÜ',
    form: 'OÜ',
    registered: '2018-05-05',
    vat: 'current',
    flags: ['joint'],
  },
  {
    key: 'holding_top',
    description: 'Top of a holding chain: holds holding_middle (see holdings)',
    name: 'Hõbekalda Holding AS',
    form: 'AS',
    registered: '2003-05-05',
    vat: 'current',
    employees: 12,
    flags: ['healthy'],
  },
  {
    key: 'holding_middle',
    description: 'Middle of a holding chain: owned by holding_top, holds holding_bottom',
    name: 'Hõbekalda Invest OÜ',
    form: 'OÜ',
    registered: '2007-06-06',
    vat: 'none',
    ownedBy: 'holding_top',
  },
  {
    key: 'holding_bottom',
    description: 'Bottom of a holding chain: owned by holding_middle',
    name: 'Hõbekalda Ehitus OÜ',
    form: 'OÜ',
    registered: '2010-07-07',
    vat: 'current',
    ownedBy: 'holding_middle',
  },
  {
    key: 'beneficial_owners',
    description: 'Three declared beneficial owners',
    name: 'Luigelahe Partners OÜ',
    form: 'OÜ',
    registered: '2015-09-09',
    vat: 'current',
    flags: ['three_owners'],
  },
  {
    key: 'ended_relations',
    description: 'Ended board members and shareholders (history=true shows them)',
    name: 'Jõeniidu Haldus OÜ',
    form: 'OÜ',
    registered: '2002-02-02',
    vat: 'current',
    flags: ['ended_relations'],
  },
  {
    key: 'annual_reports',
    description: 'Annual reports valid, superseded, overdue and not yet due; some without statements',
    name: 'Sarapuuõue Consulting OÜ',
    form: 'OÜ',
    registered: '2009-03-03',
    vat: 'current',
    flags: ['report_mix'],
  },
  {
    key: 'not_covered',
    description: 'Credit score unrated, reason not_covered (registered this year, no reports)',
    name: 'Toomemäe Solutions OÜ',
    form: 'OÜ',
    registered: '2026-09-01',
    vat: 'none',
    flags: ['not_covered'],
  },
  {
    key: 'rule_in_default',
    description: 'Credit score limited by rule in_default (tax debt and enforcements)',
    name: 'Klaasiaru Trans OÜ',
    form: 'OÜ',
    registered: '2012-12-12',
    vat: 'current',
    flags: ['rule:in_default', 'tax_debt', 'enforcements'],
  },
  {
    key: 'rule_inactive',
    description: 'Credit score limited by rule inactive (no turnover, no employees)',
    name: 'Sambla Agro OÜ',
    form: 'OÜ',
    registered: '2011-11-11',
    vat: 'none',
    employees: 0,
    flags: ['rule:inactive'],
  },
  {
    key: 'rule_thin_file',
    description: 'Credit score limited by rule thin_file (one report only)',
    name: 'Päikesekõnnu Disain OÜ',
    form: 'OÜ',
    registered: '2024-04-04',
    vat: 'none',
    flags: ['rule:thin_file'],
  },
  {
    key: 'rule_capital_breach',
    description: 'Credit score limited by rule capital_breach (negative equity)',
    name: 'Vaskseveski Metall OÜ',
    form: 'OÜ',
    registered: '2005-05-05',
    vat: 'current',
    flags: ['rule:capital_breach'],
  },
  {
    key: 'tax_debt',
    description: 'Tax debt with claims (in payment schedule, contested) and 3 months of daily history',
    name: 'Kullamäe Ehitus OÜ',
    form: 'OÜ',
    registered: '2013-03-13',
    vat: 'current',
    flags: ['tax_debt'],
  },
  {
    key: 'tax_debt_stale',
    description: 'Only a tax debtors list older than 90 days: ignored (snapshot_date null, total 0)',
    name: 'Rukkiranna Teenused OÜ',
    form: 'OÜ',
    registered: '2014-04-14',
    vat: 'current',
    flags: ['tax_debt_stale'],
  },
  {
    key: 'tax_declarations',
    description: 'Missing and late tax declarations',
    name: 'Lumetalu Puhastus OÜ',
    form: 'OÜ',
    registered: '2016-06-16',
    vat: 'current',
    flags: ['declarations'],
  },
  {
    key: 'risk_records',
    description: 'Court cases, payment orders, enforcements, rulings and notices (a few of each)',
    name: 'Hundisoo Turva OÜ',
    form: 'OÜ',
    registered: '2010-10-10',
    vat: 'current',
    flags: ['court', 'payment_orders', 'enforcements', 'rulings', 'announcements'],
  },
  {
    key: 'assets',
    description: 'Real estate, domains, permits and state payments (a few of each)',
    name: 'Liivaküla Kinnisvara OÜ',
    form: 'OÜ',
    registered: '2008-08-08',
    vat: 'current',
    flags: ['properties', 'domains', 'permits', 'state_payments'],
  },
  {
    key: 'many_rows',
    description: 'More than 25 rows in every list section (profile embeds the first 25 and the total)',
    name: 'Tammemetsa Kaubandus AS',
    form: 'AS',
    registered: '1996-01-10',
    vat: 'current',
    employees: 420,
    flags: ['many_rows'],
  },
  {
    key: 'emtak_2025',
    description: 'Activities coded in EMTAK 2025 (emtak_version 2025)',
    name: 'Allikakandi IT OÜ',
    form: 'OÜ',
    registered: '2025-06-02',
    vat: 'current',
    flags: ['emtak2025'],
  },
];

export interface PersonFixtureSpec {
  key: string;
  description: string;
  name: string;
  type: 'person' | 'organisation';
}

export const personFixtureSpecs: readonly PersonFixtureSpec[] = [
  {
    key: 'many_roles',
    description: 'A person with more than 1000 roles (GET /persons/{id} returns 1000, roles_total is higher)',
    name: 'Tõnis Haldurmets',
    type: 'person',
  },
  {
    key: 'board_member',
    description: 'Board member of the active fixture company, with one ended role',
    name: 'Kadri Vahtrasalu',
    type: 'person',
  },
  {
    key: 'foreign_organisation',
    description: 'Foreign organisation owning foreign_owner',
    name: 'Nordvik Holding AB',
    type: 'organisation',
  },
];

export const queryFixtures = {
  many_hits: { q: 'Ehitus', description: 'Name word with more than 200 matches: total is capped at 200' },
  previous_name: { q: 'Kuldnokavälja', description: 'Matches only a previous name of previous_names' },
  exact_name: { q: 'Lõunaranna Tarkvara', description: 'Exact name without the legal form word: active comes first' },
  code_prefix: { q: '', description: 'Registry code prefix: the first 4 digits of the active fixture (filled in at start)' },
  too_short: { q: 'ab', description: 'Lookup name query without a word of 3 characters: skipped query_too_short' },
} as const;

export interface CompanyFixture {
  registry_code: string;
  vat_number: string | null;
  name: string;
  description: string;
}

export interface Fixtures {
  seed: number;
  /** The dataset's fixed "today". */
  today: string;
  companies: Record<string, CompanyFixture>;
  persons: Record<string, { id: number; name: string; description: string }>;
  queries: Record<string, { q: string; description: string }>;
  vat_groups: Record<string, { vat_number: string; members: string[] }>;
  /** A VAT number that no company ever held (404 on by-vat, empty lookup match). */
  unknown_vat_number: string;
  /** A valid registry code that no company has (404). */
  unknown_registry_code: string;
}
