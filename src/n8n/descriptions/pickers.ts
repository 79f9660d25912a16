import type { INodeListSearchItems, INodeProperties, INodePropertyMode } from 'n8n-workflow';
import type { AnyOperation } from '@company-data/core/operation';
import { operationGroups } from '@company-data/core/operations';
import type { PickerKey } from '@company-data/core/params';

/**
 * The pickers as descriptions: which object a parameter picks, its list and how an id or a link is
 * recognised, and the n8n fields built from that. The searches run in ../methods; a picked link is
 * read in ../actions/picked-value.ts.
 */

/** Rows per page of a picker's list: n8n asks for the next page when the user scrolls to the end. */
export const PICKER_PAGE_SIZE = 50;

export type Row = Record<string, unknown>;
export const text = (v: unknown) => (typeof v === 'string' ? v : v === null || v === undefined ? '' : String(v));
const label = (v: unknown) => (v && typeof v === 'object' ? text((v as Row).label ?? (v as Row).name ?? (v as Row).code) : text(v));

export interface Mode {
  /** Anchored regex the editor checks and the node applies again when it runs. */
  regex: string;
  /** Shown under the field when the value does not fit, to a non-programmer. */
  message: string;
  placeholder: string;
}

/**
 * One kind of object a user picks: how the list is searched and how an id or a public page link is
 * recognised. A parameter names its picker in the operation table (ParamSpec.picker); nothing else
 * decides which field gets which picker.
 */
export interface Picker {
  /** Name of the listSearch method n8n calls. */
  method: string;
  noun: string;
  id: Mode;
  /** Only where the service gives the object a public page (company and person summaries carry `url`). */
  url?: Mode & { extract: string };
  /** The operation the list reads, and how a page of its answer becomes list entries. */
  op: AnyOperation;
  /** true: the service pages and searches (page/limit/q); false: one answer, filtered here. */
  paged: boolean;
  /** Input for one page; undefined: nothing to ask (people search needs 3 characters). */
  input(filter: string | undefined): Record<string, unknown> | undefined;
  entry(row: Row): INodeListSearchItems | undefined;
}

export const pickers: Record<PickerKey, Picker> = {
  company: {
    method: 'searchCompanies',
    noun: 'Company',
    id: { regex: '^\\s*\\d{8}\\s*$', message: 'A registry code has 8 digits, e.g. 12417834', placeholder: 'e.g. 12417834' },
    url: {
      // The company's public page, as the service gives it in `url`; the code is the last 8-digit path part.
      regex: '^https?://[^\\s/]+/(?:[^\\s?#]*/)?\\d{8}(?:[-/?#]\\S*)?$',
      extract: '^https?://[^\\s/]+/(?:[^\\s?#]*/)?(\\d{8})(?:[-/?#]\\S*)?$',
      message: 'Paste the link of a company page, ending in its 8-digit registry code',
      placeholder: 'e.g. https://…/companies/12417834',
    },
    op: operationGroups.companies.search,
    paged: true,
    // Empty: the newest registrations, as GET /companies lists them without q.
    input: (filter) => (filter?.trim() ? { q: filter.trim(), lang: 'en' } : { lang: 'en' }),
    entry: (r) => ({
      name: `${text(r.name)} (${text(r.registry_code)})`,
      value: text(r.registry_code),
      url: text(r.url) || undefined,
      description: [label(r.status), text((r.address as Row | undefined)?.full)].filter(Boolean).join(' · '),
    }),
  },
  person: {
    method: 'searchPersons',
    noun: 'Person',
    id: { regex: '^\\s*\\d+\\s*$', message: 'A person ID is a whole number, e.g. 4211', placeholder: 'e.g. 4211' },
    url: {
      regex: '^https?://[^\\s/]+/(?:[^\\s?#]*/)?persons?/\\d+(?:[-/?#]\\S*)?$',
      extract: '^https?://[^\\s/]+/(?:[^\\s?#]*/)?persons?/(\\d+)(?:[-/?#]\\S*)?$',
      message: 'Paste the link of a person page, ending in /persons/ and the ID',
      placeholder: 'e.g. https://…/persons/4211',
    },
    op: operationGroups.people.searchPersons,
    paged: true,
    // The service searches people by name from 3 characters; fewer would be refused, so nothing is asked.
    input: (filter) => ((filter?.trim().length ?? 0) >= 3 ? { q: filter!.trim(), lang: 'en' } : undefined),
    entry: (r) => ({
      name: r.birth_date ? `${text(r.name)} (born ${text(r.birth_date)})` : text(r.name),
      value: text(r.id),
      url: text(r.url) || undefined,
      description: `${text(r.active_roles)} current roles`,
    }),
  },
  monitoringList: {
    method: 'searchMonitoringLists',
    noun: 'List',
    id: { regex: '^\\s*lst_[A-Za-z0-9]+\\s*$', message: 'A list ID starts with lst_, e.g. lst_8f2k1', placeholder: 'e.g. lst_8f2k1' },
    op: operationGroups.monitoring.lists,
    paged: false,
    input: () => ({}),
    entry: (r) => ({ name: text(r.name), value: text(r.id), description: `${text(r.id)} · ${text(r.companies ?? 0)} companies` }),
  },
  savedSearch: {
    method: 'searchSavedSearches',
    noun: 'Saved Search',
    id: {
      regex: '^\\s*srch_[A-Za-z0-9]+\\s*$',
      message: 'A saved search ID starts with srch_, e.g. srch_4hd82',
      placeholder: 'e.g. srch_4hd82',
    },
    op: operationGroups.searches.list,
    paged: false,
    input: () => ({}),
    entry: (r) => ({ name: text(r.name), value: text(r.id), description: text(r.id) }),
  },
  failedDelivery: {
    method: 'searchFailedDeliveries',
    noun: 'Delivery',
    id: { regex: '^\\s*dlv_[A-Za-z0-9]+\\s*$', message: 'A delivery ID starts with dlv_, e.g. dlv_12', placeholder: 'e.g. dlv_12' },
    op: operationGroups.webhook.deliveries,
    paged: true,
    // Only failed deliveries can be retried, so the list offers only those.
    input: () => ({ status: 'failed' }),
    entry: (r) => ({
      name: `${text(r.id)} (event ${text(r.event_id)})`,
      value: text(r.id),
      description: [text(r.last_error), text(r.created_at)].filter(Boolean).join(' · '),
    }),
  },
};

export const pickerKeys = Object.keys(pickers) as PickerKey[];

/** The n8n resourceLocator field for a parameter that names a picker. */
export function resourceLocatorProperty(
  key: PickerKey,
  base: { displayName: string; name: string; description: string; required: boolean },
): INodeProperties {
  const p = pickers[key];
  const modes: INodePropertyMode[] = [
    {
      displayName: 'From List',
      name: 'list',
      type: 'list',
      placeholder: `Select a ${p.noun.toLowerCase()}...`,
      typeOptions: { searchListMethod: p.method, searchable: true },
    },
  ];
  if (p.url) {
    modes.push({
      displayName: 'By URL',
      name: 'url',
      type: 'string',
      placeholder: p.url.placeholder,
      extractValue: { type: 'regex', regex: p.url.extract },
      validation: [{ type: 'regex', properties: { regex: p.url.regex, errorMessage: p.url.message } }],
    });
  }
  modes.push({
    displayName: 'By ID',
    name: 'id',
    type: 'string',
    placeholder: p.id.placeholder,
    validation: [{ type: 'regex', properties: { regex: p.id.regex, errorMessage: p.id.message } }],
  });
  return { ...base, type: 'resourceLocator', default: { mode: 'list', value: '' }, modes };
}

/** Method names, for tests and the e2e: which listSearch method serves which picker. */
export const pickerMethods: Readonly<Record<PickerKey, string>> = Object.fromEntries(
  pickerKeys.map((k) => [k, pickers[k].method]),
) as Record<PickerKey, string>;

/** Pickers whose whole list the account holds: the triggers offer them as multi-select option lists. */
export type AccountList = 'monitoringList' | 'savedSearch';
export const accountLists: readonly AccountList[] = ['monitoringList', 'savedSearch'];
export const loadMethodName = (k: AccountList) => `get${pickers[k].method.replace(/^search/, '')}`;

/** loadOptions method names: getMonitoringLists, getSavedSearches. */
export const loadOptionsMethods: Readonly<Record<AccountList, string>> = Object.fromEntries(
  accountLists.map((k) => [k, loadMethodName(k)]),
) as Record<AccountList, string>;

const isAccountList = (k: PickerKey): k is AccountList => (accountLists as readonly string[]).includes(k);

/**
 * A picker among a node's Options (a collection, where n8n offers no resourceLocator): the account's
 * lists or saved searches as a loaded option list. Undefined for pickers that need a search (companies, people).
 */
export function optionListProperty(
  key: PickerKey,
  base: { displayName: string; name: string; description: string },
): INodeProperties | undefined {
  if (!isAccountList(key)) return undefined;
  return {
    displayName: base.displayName.replace(/ ID$/, ''),
    name: base.name,
    type: 'options',
    typeOptions: { loadOptionsMethod: loadMethodName(key) },
    default: '',
    description: `${base.description}. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.`,
  };
}
