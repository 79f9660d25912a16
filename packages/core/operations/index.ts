import type { AnyOperation, GroupKey } from '../operation';
import { operationId } from '../operation';
import * as assets from './assets';
import * as companies from './companies';
import * as financials from './financials';
import * as monitoring from './monitoring';
import * as people from './people';
import * as reference from './reference';
import * as risk from './risk';
import * as searches from './searches';
import * as webhook from './webhook';

/** The one operation table: client methods, node properties, sandbox routes and OpenAPI derive from it. */
export const operationGroups = {
  companies: { search: companies.search, lookup: companies.lookup, byVat: companies.byVat, get: companies.get },
  people: {
    representatives: people.representatives,
    shareholders: people.shareholders,
    beneficialOwners: people.beneficialOwners,
    otherParties: people.otherParties,
    holdings: people.holdings,
    searchPersons: people.searchPersons,
    getPerson: people.getPerson,
  },
  financials: {
    financials: financials.financials,
    annualReports: financials.annualReports,
    annualReport: financials.annualReport,
    quarterlyTaxes: financials.quarterlyTaxes,
  },
  risk: {
    creditScore: risk.creditScore,
    taxDebt: risk.taxDebt,
    taxDeclarations: risk.taxDeclarations,
    courtCases: risk.courtCases,
    paymentOrders: risk.paymentOrders,
    enforcements: risk.enforcements,
    rulings: risk.rulings,
  },
  assets: {
    properties: assets.properties,
    domains: assets.domains,
    permits: assets.permits,
    statePayments: assets.statePayments,
    announcements: assets.announcements,
    consumerDisputes: assets.consumerDisputes,
  },
  monitoring: {
    createList: monitoring.createList,
    addCompanies: monitoring.addCompanies,
    events: monitoring.events,
    lists: monitoring.lists,
    getList: monitoring.getList,
    updateList: monitoring.updateList,
    deleteList: monitoring.deleteList,
    listCompanies: monitoring.listCompanies,
    updateCompany: monitoring.updateCompany,
    removeCompany: monitoring.removeCompany,
  },
  searches: { create: searches.create, matches: searches.matches, list: searches.list, get: searches.get, remove: searches.remove },
  webhook: { set: webhook.set, get: webhook.get, test: webhook.test, deliveries: webhook.deliveries, retryDelivery: webhook.retryDelivery },
  reference: { classifiers: reference.classifiers, emtak: reference.emtak, usage: reference.usage, openapi: reference.openapi },
} as const satisfies Record<GroupKey, Record<string, AnyOperation>>;

export type OperationGroups = typeof operationGroups;

export const operations: readonly AnyOperation[] = Object.values(operationGroups).flatMap((g) => Object.values(g) as AnyOperation[]);

const byId = new Map(operations.map((op) => [operationId(op), op]));
export function getOperation(id: string): AnyOperation | undefined {
  return byId.get(id);
}
