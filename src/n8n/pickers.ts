import type { ILoadOptionsFunctions, INodeListSearchItems, INodeListSearchResult, INodeProperties, INodePropertyMode, INodePropertyOptions } from 'n8n-workflow';
import type { CoreClient } from '../core/client';
import { ValidationError } from '../core/errors';
import type { AnyOperation } from '../core/operation';
import { operationGroups } from '../core/operations';
import type { PickerKey } from '../core/params';
import { clientFor } from './client';
import { toNodeError } from './errors';

/** Rows per page of a picker's list: n8n asks for the next page when the user scrolls to the end. */
export const PICKER_PAGE_SIZE = 50;

type Row = Record<string, unknown>;
const text = (v: unknown) => (typeof v === 'string' ? v : v === null || v === undefined ? '' : String(v));
const label = (v: unknown) => (v && typeof v === 'object' ? text((v as Row).label ?? (v as Row).name ?? (v as Row).code) : text(v));

interface Mode {
  /** Anchored regex the editor checks and the node applies again when it runs. */
  regex: string;
  /** Shown under the field when the value does not fit, to a non-programmer. */
  message: string;
  placeholder: string;
}

/** Where the user's text goes when the service has no search for the object: a name or id contains it. */
const contains = (filter: string | undefined, ...values: unknown[]) => !filter || values.some((v) => text(v).toLowerCase().includes(filter.trim().toLowerCase()));

/**
 * One kind of object a user picks: how the list is searched and how an id or a public page link is
 * recognised. A parameter names its picker in the operation table (ParamSpec.picker); nothing else
 * decides which field gets which picker.
 */
interface Picker {
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

const pickers: Record<PickerKey, Picker> = {
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
    id: { regex: '^\\s*srch_[A-Za-z0-9]+\\s*$', message: 'A saved search ID starts with srch_, e.g. srch_4hd82', placeholder: 'e.g. srch_4hd82' },
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
export function resourceLocatorProperty(key: PickerKey, base: { displayName: string; name: string; description: string; required: boolean }): INodeProperties {
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

interface LocatorValue {
  __rl: true;
  mode?: string;
  value?: unknown;
}
const isLocator = (v: unknown): v is LocatorValue => typeof v === 'object' && v !== null && (v as { __rl?: unknown }).__rl === true;

/**
 * The id a resourceLocator value names. A link is read here rather than through n8n's extractValue, so
 * the same rule holds wherever the node runs (and as an AI tool, where an agent fills the value).
 * A wrong id is left for the operation's own rule, which also checks the registry code's check digit.
 */
export function pickedValue(key: PickerKey, param: string, raw: unknown): unknown {
  if (!isLocator(raw)) return raw;
  const value = typeof raw.value === 'string' ? raw.value.trim() : raw.value;
  const url = pickers[key].url;
  if (raw.mode !== 'url' || !url || typeof value !== 'string' || value === '') return value;
  const m = new RegExp(url.extract).exec(value);
  if (!m) throw new ValidationError({ field: param, rule: url.message.replace(/^Paste/, 'must be') });
  return m[1];
}

async function searchPage(client: CoreClient, p: Picker, filter: string | undefined, token: string | undefined): Promise<INodeListSearchResult> {
  const input = p.input(filter);
  if (!input) return { results: [] };
  if (!p.paged) {
    const res = await client.call(p.op, input as never);
    const rows = (Array.isArray(res.data) ? res.data : []) as Row[];
    const results = rows.filter((r) => contains(filter, r.name, r.id)).map(p.entry).filter((e): e is INodeListSearchItems => e !== undefined);
    return { results };
  }
  const page = token && /^\d+$/.test(token) ? Number(token) : 1;
  const first = await client.pages(p.op, { ...input, page, limit: PICKER_PAGE_SIZE } as never).next();
  if (first.done) return { results: [] };
  const results = (first.value.items as Row[]).map(p.entry).filter((e): e is INodeListSearchItems => e !== undefined);
  return { results, ...(first.value.hasMore ? { paginationToken: String(page + 1) } : {}) };
}

function listSearchMethod(key: PickerKey) {
  const p = pickers[key];
  return async function (this: ILoadOptionsFunctions, filter?: string, paginationToken?: string): Promise<INodeListSearchResult> {
    const client = await clientFor(this);
    try {
      return await searchPage(client, p, filter, paginationToken);
    } catch (error) {
      throw toNodeError(this.getNode(), error, p.op, 0);
    }
  };
}

/** Every picker's list search, by method name: node files put these under methods.listSearch. */
export const listSearch = Object.fromEntries(pickerKeys.map((k) => [pickers[k].method, listSearchMethod(k)])) as Record<
  string,
  (this: ILoadOptionsFunctions, filter?: string, paginationToken?: string) => Promise<INodeListSearchResult>
>;

/** Method names, for tests and the e2e: which listSearch method serves which picker. */
export const pickerMethods: Readonly<Record<PickerKey, string>> = Object.fromEntries(pickerKeys.map((k) => [k, pickers[k].method])) as Record<PickerKey, string>;

/** Pickers whose whole list the account holds: the triggers offer them as multi-select option lists. */
type AccountList = 'monitoringList' | 'savedSearch';
const accountLists: readonly AccountList[] = ['monitoringList', 'savedSearch'];
const loadMethodName = (k: AccountList) => `get${pickers[k].method.replace(/^search/, '')}`;

/** loadOptions method names: getMonitoringLists, getSavedSearches. */
export const loadOptionsMethods: Readonly<Record<AccountList, string>> = Object.fromEntries(accountLists.map((k) => [k, loadMethodName(k)])) as Record<AccountList, string>;

/** The whole list the picker's search gives with no filter, as options. */
function loadOptionsMethod(key: AccountList) {
  const search = listSearchMethod(key);
  return async function (this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
    const { results } = await search.call(this);
    return results.map(({ name, value, description }) => ({ name, value, ...(description ? { description } : {}) }));
  };
}

const isAccountList = (k: PickerKey): k is AccountList => (accountLists as readonly string[]).includes(k);

/**
 * A picker among a node's Options (a collection, where n8n offers no resourceLocator): the account's
 * lists or saved searches as a loaded option list. Undefined for pickers that need a search (companies, people).
 */
export function optionListProperty(key: PickerKey, base: { displayName: string; name: string; description: string }): INodeProperties | undefined {
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

/** Every option loader, by method name: node files put these under methods.loadOptions. */
export const loadOptions = Object.fromEntries(accountLists.map((k) => [loadMethodName(k), loadOptionsMethod(k)])) as Record<string, (this: ILoadOptionsFunctions) => Promise<INodePropertyOptions[]>>;

/** What node files put under `methods`. */
export const nodeMethods = { listSearch, loadOptions };
