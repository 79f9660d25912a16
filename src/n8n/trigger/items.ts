import { buildDigest } from '@company-data/core/digest';
import { changeSummary, matchCompanySummary, matchesSummary, testSummary, type SummaryLang } from '@company-data/core/event-summary';
import { isJsonObject } from '@company-data/core/json';

export const triggerEventTypes = ['monitoring.change', 'search.matches', 'webhook.test'] as const;
export type TriggerEventType = (typeof triggerEventTypes)[number];

export interface TriggerOptions {
  /** Event types that start the workflow. Empty: all. */
  events: TriggerEventType[];
  lang: SummaryLang;
  /** monitoring.change filters; each empty list means "any". */
  categories: string[];
  kinds: string[];
  tones: string[];
  /** Only changes naming one of these lists (lst_ ids). */
  listIds: string[];
  /** search.matches: only events of these saved searches (srch_ ids). Empty: all. */
  searchIds: string[];
  /** search.matches: one item per company instead of one per event. */
  onePerCompany: boolean;
  /** Poll Trigger: one item per poll with a digest of its monitoring changes (digestItems). */
  digest?: boolean;
  digestLines?: number;
}

export const defaultTriggerOptions: TriggerOptions = {
  events: [...triggerEventTypes],
  lang: 'en',
  categories: [],
  kinds: [],
  tones: [],
  listIds: [],
  searchIds: [],
  onePerCompany: false,
};

type Rec = Record<string, unknown>;
export type TriggerItem = Rec & { summary: string };

/** Splits "a, b,c" into trimmed, non-empty values (n8n string fields for lists of ids and kinds). */
export function splitList(value: unknown): string[] {
  if (Array.isArray(value))
    return value
      .map(String)
      .map((s) => s.trim())
      .filter(Boolean);
  if (typeof value !== 'string') return [];
  return value
    .split(/[,\s]+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

function wanted(type: string, opts: TriggerOptions): boolean {
  return opts.events.length === 0 || (opts.events as string[]).includes(type);
}

function changePasses(data: Rec, opts: TriggerOptions): boolean {
  if (opts.categories.length && !opts.categories.includes(String(data.category))) return false;
  if (opts.kinds.length && !opts.kinds.includes(String(data.kind))) return false;
  if (opts.tones.length && !opts.tones.includes(String(data.tone))) return false;
  if (opts.listIds.length) {
    const lists = Array.isArray(data.lists) ? data.lists : [];
    if (!lists.some((l) => isJsonObject(l) && opts.listIds.includes(String(l.id)))) return false;
  }
  return true;
}

/**
 * Items for one event, after the node's filters: [] when the event is filtered out.
 * Each item is the event itself with `summary` first; a split search.matches item keeps the event's
 * shape with data.company (one) instead of data.companies, like monitoring.change.
 */
export function eventToItems(event: unknown, opts: TriggerOptions): TriggerItem[] {
  if (!isJsonObject(event) || typeof event.type !== 'string' || !wanted(event.type, opts)) return [];
  const data = isJsonObject(event.data) ? event.data : {};
  switch (event.type) {
    case 'monitoring.change': {
      if (!isJsonObject(data.company) || !changePasses(data, opts)) return [];
      return [{ summary: changeSummary(event as never, opts.lang), ...event }];
    }
    case 'search.matches': {
      if (!isJsonObject(data.search)) return [];
      if (opts.searchIds.length && !opts.searchIds.includes(String(data.search.id))) return [];
      if (!opts.onePerCompany) return [{ summary: matchesSummary(event as never, opts.lang), ...event }];
      const { companies: list, ...rest } = data;
      const companies = Array.isArray(list) ? list.filter(isJsonObject) : [];
      return companies.map((company) => ({
        summary: matchCompanySummary(data.search as { name: string }, company as never, opts.lang),
        ...event,
        data: { ...rest, company },
      }));
    }
    case 'webhook.test':
      return [{ summary: testSummary(opts.lang), ...event }];
    default:
      // A type this version does not know: pass it on only when the user chose "all events".
      return opts.events.length === triggerEventTypes.length || opts.events.length === 0
        ? [{ summary: `${event.type} ${String(event.id ?? '')}`.trim(), ...event }]
        : [];
  }
}

/**
 * "One Digest per Poll": the poll's monitoring changes (after the filters) become one item, first, holding the
 * digest as `summary` (the field a chat node posts) and `digest`, its counts and the events; other items (saved
 * search matches) follow as they were. No changes: the other items only.
 */
export function digestItems(items: TriggerItem[], opts: TriggerOptions): TriggerItem[] {
  if (!opts.digest) return items;
  const changes = items.filter((i) => i.type === 'monitoring.change');
  if (changes.length === 0) return items;
  const events = changes.map((item) => {
    const event: Rec = { ...item };
    delete event.summary;
    return event;
  });
  const digest = digestItem(events, opts);
  return [digest, ...items.filter((i) => i.type !== 'monitoring.change')];
}

/**
 * The digest item of these monitoring changes: `summary` (the field a chat node posts) and `digest` hold the
 * text, then its counts and the events. Also what Write Events to Rows outputs for the changes new to its sheet.
 */
export function digestItem(events: Rec[], opts: Pick<TriggerOptions, 'lang' | 'digestLines'>): TriggerItem {
  const d = buildDigest(events, { lang: opts.lang, maxLines: opts.digestLines });
  return {
    summary: d.text,
    type: 'monitoring.digest',
    digest: d.text,
    total: d.total,
    companies: d.companies,
    tones: d.tones,
    kinds: d.kinds,
    shown: d.shown,
    more: d.more,
    events,
  };
}
