import type { CompanyFacts } from '../../packages/company-data/src/sandbox/monitoring/company-port';

/** A registered, rated OÜ with tax debt, a board, capital and a VAT number: every change kind of the sandbox applies to it. */
export const sampleFacts: CompanyFacts = {
  registry_code: '14453248',
  name: 'Kullamäe Ehitus OÜ',
  legal_form: 'osaühing',
  legal_form_abbr: 'OÜ',
  status: 'R',
  registered_on: '2018-01-01',
  address: 'Harju maakond, Tallinn, Pärnu mnt 1, 10141',
  county: 'Harju maakond',
  activity_codes: ['41201'],
  employees: 12,
  revenue: 1_200_000,
  tax_debt: 4210,
  rating: 'BB',
  score: 55,
  board: ['Mari Tamm'],
  share_capital: 2500,
  vat_number: 'EE102224658',
};
