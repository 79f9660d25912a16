import { eventToItems, type TriggerItem, type TriggerOptions } from './items';
import { staticDataStore } from './seen';

/** One page of a cursor read (GET /monitoring/events, GET /searches/{id}/matches). */
export interface CursorRead {
  items: unknown[];
  /** Where to continue; null only when nothing was ever read. */
  cursor: string | null;
  hasMore: boolean;
}

export interface PollApi {
  events(after: string | undefined, limit: number): Promise<CursorRead>;
  matches(searchId: string, after: string | undefined, limit: number): Promise<CursorRead>;
}

/** Saved in the poll trigger's static data, which n8n persists after each poll. */
export interface PollState {
  /** Per source ("events", "search:<id>"): the id to read after. */
  cursors?: Record<string, string>;
  /** Sources already started, so an empty first read is not mistaken for a first run later. */
  started?: string[];
  seen?: unknown;
}

export interface PollSource {
  key: string;
  read(after: string | undefined, limit: number): Promise<CursorRead>;
}

export interface PollSettings {
  /** Which events; options.searchIds says which saved searches' matches are read. */
  options: TriggerOptions;
  /** 'now': the first poll only marks where to start; 'oldest': the first poll returns every kept event. */
  startFrom: 'now' | 'oldest';
  /** Manual "test" run: read without moving cursors, return at most `manualMax` newest events. */
  manual: boolean;
  manualMax?: number;
  pageSize?: number;
  /** Pages per source per poll; the rest is read on the next poll. */
  maxPages?: number;
}

export function pollSources(api: PollApi, settings: Pick<PollSettings, 'options'>): PollSource[] {
  const types = settings.options.events;
  const all = types.length === 0;
  const sources: PollSource[] = [];
  if (all || types.includes('monitoring.change')) sources.push({ key: 'events', read: (after, limit) => api.events(after, limit) });
  if (all || types.includes('search.matches')) {
    for (const id of settings.options.searchIds)
      sources.push({ key: `search:${id}`, read: (after, limit) => api.matches(id, after, limit) });
  }
  return sources;
}

/**
 * One poll over all sources. Returns the items (possibly none) and updates `state` in place:
 * cursors move past everything read, and seen ids are kept so an event that shows up again is skipped.
 */
export async function pollOnce(sources: PollSource[], state: PollState, settings: PollSettings): Promise<TriggerItem[]> {
  const pageSize = settings.pageSize ?? 100;
  const maxPages = settings.maxPages ?? 20;
  const cursors = { ...(state.cursors ?? {}) };
  const started = new Set(state.started ?? []);
  const seen = staticDataStore(state);
  const items: TriggerItem[] = [];
  const manualEvents: unknown[] = [];

  for (const source of sources) {
    const firstRun = !started.has(source.key);
    const skipHistory = firstRun && settings.startFrom === 'now';
    let after = cursors[source.key];
    for (let page = 0; page < (skipHistory || settings.manual ? Infinity : maxPages); page++) {
      const res = await source.read(after, pageSize);
      for (const event of res.items) {
        const id = (event as { id?: unknown }).id;
        if (settings.manual) {
          manualEvents.push(event);
          continue;
        }
        if (typeof id !== 'string' || !(await seen.store.checkAndAdd(id)) || skipHistory) continue;
        items.push(...eventToItems(event, settings.options));
      }
      if (res.cursor !== null) after = res.cursor;
      if (!res.hasMore || res.items.length === 0) break;
    }
    if (!settings.manual) {
      if (after !== undefined) cursors[source.key] = after;
      started.add(source.key);
    }
  }

  if (settings.manual) {
    // A test run shows what the trigger would produce, newest events first, and changes nothing.
    const newest = manualEvents.slice(-(settings.manualMax ?? 5)).reverse();
    return newest.flatMap((e) => eventToItems(e, settings.options));
  }
  state.cursors = cursors;
  state.started = [...started];
  seen.commit();
  return items;
}
