import type { GroupKey } from '../core/operation';

/** One n8n node: which operation groups it offers and how it presents itself. */
export interface NodeSpec {
  /** n8n type name (camelCase), also the folder and icon base name in PascalCase. */
  name: string;
  displayName: string;
  description: string;
  /** Groups offered; more than one adds a Resource field. */
  groups: ReadonlyArray<{ group: GroupKey; resource?: string; exclude?: readonly string[] }>;
  /** Codex categories. */
  categories: string[];
  /** Operation selected when the node is added. */
  defaultOperation: string;
}

export const nodeSpecs = {
  companies: {
    name: 'companyDataCompanies',
    displayName: 'Company Data: Companies',
    description: 'Search Estonian companies, look them up in bulk by registry code, VAT number or name, and read registry profiles',
    groups: [{ group: 'companies' }],
    categories: ['Data & Storage', 'Sales'],
    defaultOperation: 'lookup',
  },
  people: {
    name: 'companyDataPeople',
    displayName: 'Company Data: People & Ownership',
    description: 'Representatives, shareholders, beneficial owners and holdings of Estonian companies, and roles of people',
    groups: [{ group: 'people' }],
    categories: ['Data & Storage', 'Sales'],
    defaultOperation: 'representatives',
  },
  financials: {
    name: 'companyDataFinancials',
    displayName: 'Company Data: Financials',
    description: 'Annual report figures, ratios, statements and quarterly taxes of Estonian companies',
    groups: [{ group: 'financials' }],
    categories: ['Data & Storage', 'Finance & Accounting'],
    defaultOperation: 'financials',
  },
  risk: {
    name: 'companyDataRisk',
    displayName: 'Company Data: Risk',
    description: 'Credit score, tax debt, tax declarations, court cases, payment orders, enforcements and rulings of Estonian companies',
    groups: [{ group: 'risk' }],
    categories: ['Data & Storage', 'Finance & Accounting'],
    defaultOperation: 'creditScore',
  },
  assets: {
    name: 'companyDataAssets',
    displayName: 'Company Data: Assets & Activity',
    description: 'Real estate, domains, permits, state payments, official notices and consumer disputes of Estonian companies',
    groups: [{ group: 'assets' }],
    categories: ['Data & Storage'],
    defaultOperation: 'properties',
  },
  monitoring: {
    name: 'companyDataMonitoring',
    displayName: 'Company Data: Monitoring',
    description: 'Watch lists of Estonian companies, read their change events, and check webhook deliveries (API plan)',
    // Setting the webhook address is left to the trigger node: it registers its own URL and keeps the
    // signing secret, which the service shows only once and which must never land in an output item.
    groups: [
      { group: 'monitoring', resource: 'monitoring' },
      { group: 'webhook', resource: 'webhook', exclude: ['set'] },
    ],
    categories: ['Data & Storage', 'Sales'],
    defaultOperation: 'events',
  },
  searches: {
    name: 'companyDataSavedSearches',
    displayName: 'Company Data: Saved Searches',
    description: 'Store company filters and read the companies that newly match them every day (API plan)',
    groups: [{ group: 'searches' }],
    categories: ['Data & Storage', 'Sales'],
    defaultOperation: 'matches',
  },
  reference: {
    name: 'companyDataReference',
    displayName: 'Company Data: Reference',
    description: 'Classifier codes, EMTAK activity codes, API usage and the OpenAPI description',
    groups: [{ group: 'reference' }],
    categories: ['Data & Storage'],
    defaultOperation: 'classifiers',
  },
} as const satisfies Record<string, NodeSpec>;

export type NodeKey = keyof typeof nodeSpecs;
