import type { INodeProperties } from 'n8n-workflow';
import { changeKinds } from '@company-data/core/event-summary';
import { monitoringCategories, tones } from '@company-data/core/schemas/events';
import { languageNames, summaryLangs } from '@company-data/core/vocabulary';
import { humanize } from './fields';
import { loadOptionsMethods } from './pickers';
import { mergeVersions, type NodeVersion } from './versions';
import { splitList, triggerEventTypes, type TriggerEventType, type TriggerOptions } from '../trigger/items';

const title = (s: string) => s[0]!.toUpperCase() + s.slice(1);
/** "vat_deregistered" → "VAT Deregistered". */
const kindName = (kind: string) => humanize(kind).replace(/\bVat\b/g, 'VAT');

const eventOptions: Record<TriggerEventType, { name: string; description: string }> = {
  'monitoring.change': { name: 'Monitoring Change', description: 'A watched company changed' },
  'search.matches': { name: 'Saved Search Matches', description: 'Companies started to match a saved search (every morning)' },
  'webhook.test': { name: 'Test Event', description: 'Sent by Webhook > Send Test Event' },
};

/** The canvas subtitle: the chosen events by name ("Monitoring Change, Saved Search Matches"). */
export const triggerSubtitle = `={{ ($parameter["events"] || []).map((e) => (${JSON.stringify(Object.fromEntries(Object.entries(eventOptions).map(([k, v]) => [k, v.name])))})[e] || e).join(", ") }}`;

function eventsProperty(types: readonly TriggerEventType[]): INodeProperties {
  return {
    displayName: 'Events',
    name: 'events',
    type: 'multiOptions',
    options: types.map((value) => ({ value, ...eventOptions[value] })),
    default: [...types],
    required: true,
    description: 'Which events start the workflow',
  };
}

const languageProperty: INodeProperties = {
  displayName: 'Summary Language',
  name: 'language',
  type: 'options',
  options: summaryLangs.map((value) => ({ name: languageNames[value], value })),
  default: 'en',
  description: 'Language of the ready-to-post "summary" sentence on every item',
};

const categoriesFilter: INodeProperties = {
  displayName: 'Categories',
  name: 'categories',
  type: 'multiOptions',
  options: monitoringCategories.map((value) => ({ name: title(value), value })),
  default: [],
  description: 'Only changes in these categories. Empty: all.',
};

/** The service's "tone" of a change, in plain words: is it good or bad news for the company? */
const tonesFilter: INodeProperties = {
  displayName: 'Good or Bad News',
  name: 'tones',
  type: 'multiOptions',
  options: tones.map((value) => ({ name: title(value), value })),
  default: [],
  description: 'Only changes that are bad, good or neutral news for the company, as the service judges them. Empty: all.',
};

/** Shown only while Events holds one of these (an expression in Events shows it too). */
const whileEvents = (...events: TriggerEventType[]) => ({ show: { events } });

/** Version 1: kinds and lists typed as comma-separated ids, shown only while Monitoring Change is chosen. */
const filtersV1: INodeProperties = {
  displayName: 'Change Filters',
  name: 'filters',
  type: 'collection',
  placeholder: 'Add Filter',
  default: {},
  displayOptions: { show: { events: ['monitoring.change'] } },
  options: [
    categoriesFilter,
    {
      displayName: 'Types of Change',
      name: 'kinds',
      type: 'string',
      default: '',
      placeholder: 'tax_debt, status_changed',
      description: 'Only these types of change, as their codes separated by commas, e.g. tax_debt, status_changed. Empty: all.',
    },
    {
      displayName: 'List IDs',
      name: 'listIds',
      type: 'string',
      default: '',
      placeholder: 'lst_8f2k1, lst_9a7b2',
      description: 'Only changes of companies on these monitoring lists, separated by commas. Empty: all lists.',
    },
    tonesFilter,
  ],
};

/**
 * Version 2: types of change with their labels, lists loaded from the account. Shown only while Events
 * holds Monitoring Change, as in version 1: n8n checks displayOptions against the parameters with their
 * defaults filled in, so Events left at its default (all events) still shows and keeps the filters
 * (test/n8n/trigger/display.test.ts).
 */
const filtersV2: INodeProperties = {
  displayName: 'Change Filters',
  name: 'filters',
  type: 'collection',
  placeholder: 'Add Filter',
  default: {},
  displayOptions: whileEvents('monitoring.change'),
  description: 'Narrow down Monitoring Change events. Other events are not affected.',
  options: [
    categoriesFilter,
    {
      displayName: 'Types of Change',
      name: 'kinds',
      type: 'multiOptions',
      options: changeKinds.map((c) => ({ name: kindName(c.kind), value: c.kind, description: c.label })),
      default: [],
      description: 'Only these types of change. Empty: all.',
    },
    {
      displayName: 'Monitoring Lists',
      name: 'listIds',
      type: 'multiOptions',
      typeOptions: { loadOptionsMethod: loadOptionsMethods.monitoringList },
      default: [],
      description:
        'Only changes of companies on these lists. Empty: all lists. Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
    },
    tonesFilter,
  ],
};

/** Version 2's saved-search choice: read these (poll trigger) or keep only these (webhook trigger). */
function savedSearchesProperty(description: string): INodeProperties {
  return {
    displayName: 'Saved Searches',
    name: 'searchIds',
    type: 'multiOptions',
    typeOptions: { loadOptionsMethod: loadOptionsMethods.savedSearch },
    default: [],
    displayOptions: whileEvents('search.matches'),
    description: `${description} Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.`,
  };
}

const onePerCompanyOption: INodeProperties = {
  displayName: 'One Item per Company',
  name: 'onePerCompany',
  type: 'boolean',
  default: false,
  // Inside the Options collection: '/events' is the node's Events field.
  displayOptions: { show: { '/events': ['search.matches'] } },
  description: 'Whether to output one item per newly matching company instead of one item per saved-search event',
};

/** The Options collection of both triggers: the one-item-per-company switch plus each trigger's own options. */
function optionsCollection(...own: INodeProperties[]): INodeProperties {
  return {
    displayName: 'Options',
    name: 'options',
    type: 'collection',
    placeholder: 'Add Option',
    default: {},
    options: [onePerCompanyOption, ...own],
  };
}

/** Poll Trigger version 2: all of a poll's changes in one chat-ready message (packages/core/digest.ts). */
const digestOption: INodeProperties = {
  displayName: 'One Digest per Poll',
  name: 'digest',
  type: 'boolean',
  default: false,
  displayOptions: { show: { '/events': ['monitoring.change'] } },
  description:
    'Whether to output one item per poll holding a digest of all new changes (bad news first, grouped by company, ready to post to Slack) instead of one item per change. The item also holds the counts and the events. Saved-search matches still come as their own items.',
};

export const digestLinesOption: INodeProperties = {
  displayName: 'Digest Lines',
  name: 'digestLines',
  type: 'number',
  typeOptions: { minValue: 2, maxValue: 200 },
  default: 20,
  displayOptions: { show: { '/events': ['monitoring.change'] } },
  description: 'With One Digest per Poll: at most this many lines of companies and changes; the rest is counted as "…and 37 more"',
};

const webhookNotice: INodeProperties = {
  displayName:
    'The account has one webhook address. Activating this workflow points it here and keeps the signing secret; deactivating turns sending off. Without a public HTTPS address, use the Company Data Poll Trigger.',
  name: 'notice',
  type: 'notice',
  default: '',
};

const takeOverOption: INodeProperties = {
  displayName: 'Take Over Existing Webhook',
  name: 'takeOver',
  type: 'boolean',
  default: false,
  description:
    "Whether to point the account's webhook here even when it already sends events to another address (another workflow or system then gets none)",
};

function webhookTriggerFor(version: NodeVersion): INodeProperties[] {
  if (version === 1)
    return [webhookNotice, eventsProperty(triggerEventTypes), languageProperty, filtersV1, optionsCollection(takeOverOption)];
  return [
    webhookNotice,
    eventsProperty(triggerEventTypes),
    languageProperty,
    filtersV2,
    savedSearchesProperty('Only new matches of these saved searches (Saved Search Matches events). Empty: all.'),
    optionsCollection(takeOverOption),
  ];
}

const searchIdsV1: INodeProperties = {
  displayName: 'Saved Search IDs',
  name: 'searchIds',
  type: 'string',
  default: '',
  placeholder: 'srch_4hd82, srch_9kq1',
  displayOptions: { show: { events: ['search.matches'] } },
  description: 'Saved searches whose new matches to read, separated by commas. Empty: no saved-search matches are read.',
};

const startFromOption: INodeProperties = {
  displayName: 'Start From',
  name: 'startFrom',
  type: 'options',
  options: [
    { name: 'Now', value: 'now', description: 'Only events that arrive after activation' },
    { name: 'Oldest Kept Event', value: 'oldest', description: 'Every event the service still keeps, then new ones' },
  ],
  default: 'now',
  description: 'Where the first poll starts',
};

function pollTriggerFor(version: NodeVersion): INodeProperties[] {
  const events = eventsProperty(['monitoring.change', 'search.matches']);
  if (version === 1) return [events, searchIdsV1, languageProperty, filtersV1, optionsCollection(startFromOption)];
  return [
    events,
    savedSearchesProperty('Saved searches whose new matches to read (Saved Search Matches events). Empty: none are read.'),
    languageProperty,
    filtersV2,
    optionsCollection(startFromOption, digestOption, digestLinesOption),
  ];
}

export const webhookTriggerProperties: INodeProperties[] = mergeVersions(webhookTriggerFor(1), webhookTriggerFor(2));
export const pollTriggerProperties: INodeProperties[] = mergeVersions(pollTriggerFor(1), pollTriggerFor(2));

type GetParam = (name: string, fallback: unknown) => unknown;

/** The node's parameters as TriggerOptions (same reading for the webhook and the poll trigger). */
export function readTriggerOptions(get: GetParam): TriggerOptions {
  const filters = (get('filters', {}) ?? {}) as Record<string, unknown>;
  const options = (get('options', {}) ?? {}) as Record<string, unknown>;
  const lang = get('language', 'en') === 'et' ? 'et' : 'en';
  const events = splitList(get('events', [])).filter((e): e is TriggerEventType => (triggerEventTypes as readonly string[]).includes(e));
  return {
    events,
    lang,
    categories: splitList(filters.categories),
    kinds: splitList(filters.kinds),
    tones: splitList(filters.tones),
    listIds: splitList(filters.listIds),
    searchIds: splitList(get('searchIds', [])),
    onePerCompany: options.onePerCompany === true,
    digest: options.digest === true,
    digestLines: typeof options.digestLines === 'number' && options.digestLines > 0 ? options.digestLines : 20,
  };
}
