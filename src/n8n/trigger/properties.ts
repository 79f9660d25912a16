import type { INodeProperties } from 'n8n-workflow';
import { monitoringCategories, tones } from '../../core/schemas/events';
import { splitList, triggerEventTypes, type TriggerEventType, type TriggerOptions } from './items';

const title = (s: string) => s[0]!.toUpperCase() + s.slice(1);

const eventOptions: Record<TriggerEventType, { name: string; description: string }> = {
  'monitoring.change': { name: 'Monitoring Change', description: 'A watched company changed' },
  'search.matches': { name: 'Saved Search Matches', description: 'Companies started to match a saved search (every morning)' },
  'webhook.test': { name: 'Test Event', description: 'Sent by Webhook > Send Test Event' },
};

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
  options: [
    { name: 'English', value: 'en' },
    { name: 'Estonian', value: 'et' },
  ],
  default: 'en',
  description: 'Language of the ready-to-post "summary" sentence on every item',
};

const filtersProperty: INodeProperties = {
  displayName: 'Change Filters',
  name: 'filters',
  type: 'collection',
  placeholder: 'Add Filter',
  default: {},
  displayOptions: { show: { events: ['monitoring.change'] } },
  options: [
    {
      displayName: 'Categories',
      name: 'categories',
      type: 'multiOptions',
      options: monitoringCategories.map((value) => ({ name: title(value), value })),
      default: [],
      description: 'Only changes in these categories. Empty: all.',
    },
    {
      displayName: 'Kinds',
      name: 'kinds',
      type: 'string',
      default: '',
      placeholder: 'tax_debt, status_changed',
      description: 'Only these kinds of change, separated by commas. Empty: all.',
    },
    {
      displayName: 'List IDs',
      name: 'listIds',
      type: 'string',
      default: '',
      placeholder: 'lst_8f2k1, lst_9a7b2',
      description: 'Only changes of companies on these monitoring lists, separated by commas. Empty: all lists.',
    },
    {
      displayName: 'Tones',
      name: 'tones',
      type: 'multiOptions',
      options: tones.map((value) => ({ name: title(value), value })),
      default: [],
      description: 'Only changes that are bad, good or neutral for the company. Empty: all.',
    },
  ],
};

const onePerCompanyOption: INodeProperties = {
  displayName: 'One Item per Company',
  name: 'onePerCompany',
  type: 'boolean',
  default: false,
  description: 'Whether to output one item per newly matching company instead of one item per saved-search event',
};

/** The Options collection of both triggers: the one-item-per-company switch plus each trigger's own option. */
function optionsCollection(own: INodeProperties): INodeProperties {
  return { displayName: 'Options', name: 'options', type: 'collection', placeholder: 'Add Option', default: {}, options: [onePerCompanyOption, own] };
}

export const webhookTriggerProperties: INodeProperties[] = [
  {
    displayName:
      'The account has one webhook address. Activating this workflow points it here and keeps the signing secret; deactivating turns sending off. Without a public HTTPS address, use the Company Data Poll Trigger.',
    name: 'notice',
    type: 'notice',
    default: '',
  },
  eventsProperty(triggerEventTypes),
  languageProperty,
  filtersProperty,
  optionsCollection({
    displayName: 'Take Over Existing Webhook',
    name: 'takeOver',
    type: 'boolean',
    default: false,
    description:
      'Whether to point the account\'s webhook here even when it already sends events to another address (another workflow or system then gets none)',
  }),
];

export const pollTriggerProperties: INodeProperties[] = [
  eventsProperty(['monitoring.change', 'search.matches']),
  {
    displayName: 'Saved Search IDs',
    name: 'searchIds',
    type: 'string',
    default: '',
    placeholder: 'srch_4hd82, srch_9kq1',
    displayOptions: { show: { events: ['search.matches'] } },
    description: 'Saved searches whose new matches to read, separated by commas. Empty: no saved-search matches are read.',
  },
  languageProperty,
  filtersProperty,
  optionsCollection({
    displayName: 'Start From',
    name: 'startFrom',
    type: 'options',
    options: [
      { name: 'Now', value: 'now', description: 'Only events that arrive after activation' },
      { name: 'Oldest Kept Event', value: 'oldest', description: 'Every event the service still keeps, then new ones' },
    ],
    default: 'now',
    description: 'Where the first poll starts',
  }),
];

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
    onePerCompany: options.onePerCompany === true,
  };
}
