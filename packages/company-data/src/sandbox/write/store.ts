import { ApiError } from '../http/errors';

/** An event as sent and as polled: the same object (spec, Events). */
export interface SandboxEvent {
  id: string;
  type: 'monitoring.change' | 'search.matches' | 'webhook.test';
  created_at: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- event payloads differ per type
  data: Record<string, any>;
}

export interface Page<T> {
  data: T[];
  meta: { next_cursor: string | null; has_more: boolean };
}

const DEFAULT_LIMIT = 25;

/** evt_<number> ids sort by number; anything else is not a monitoring cursor. */
export function eventNumber(id: string): number | null {
  const m = /^evt_(\d+)$/.exec(id);
  return m ? Number(m[1]) : null;
}

/** Position of a search.matches id (evt_<srch>_<YYYYMMDD>_<part>) in time: date, then part. */
function matchesPosition(id: string, searchId: string): [number, number] | null {
  const m = new RegExp(`^evt_${searchId}_(\\d{8})_(\\d+)$`).exec(id);
  return m ? [Number(m[1]), Number(m[2])] : null;
}

/** First index in `rows` (ascending by `key`) whose key is after `after`. */
function firstAfter<K>(rows: readonly SandboxEvent[], key: (e: SandboxEvent) => K, after: K, later: (a: K, b: K) => boolean): number {
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (later(key(rows[mid]!), after)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** Up to limit + 1 rows from `start` that pass `keep` (one more than a page tells whether there is more). */
function collect(rows: readonly SandboxEvent[], start: number, keep: (e: SandboxEvent) => boolean, limit: number): SandboxEvent[] {
  const out: SandboxEvent[] = [];
  for (let k = start; k < rows.length && out.length <= limit; k++) if (keep(rows[k]!)) out.push(rows[k]!);
  return out;
}

const laterPosition = (a: [number, number], b: [number, number]) => a[0] > b[0] || (a[0] === b[0] && a[1] > b[1]);

/**
 * Events of one account, oldest first. Monitoring events (evt_<n>, n counting up) and each saved
 * search's matches are also kept in their own lists, in the order they were made, which is their
 * cursor order: a poll finds its place by binary search instead of filtering the whole log.
 */
export class EventLog {
  private readonly events: SandboxEvent[] = [];
  private readonly byId = new Map<string, SandboxEvent>();
  private readonly monitoring: SandboxEvent[] = [];
  private readonly matches = new Map<string, SandboxEvent[]>();

  append(e: SandboxEvent): void {
    if (this.byId.has(e.id)) return;
    this.events.push(e);
    this.byId.set(e.id, e);
    if (e.type === 'monitoring.change' && eventNumber(e.id) !== null) this.monitoring.push(e);
    if (e.type === 'search.matches') {
      const searchId = String(e.data.search?.id);
      if (matchesPosition(e.id, searchId)) {
        const list = this.matches.get(searchId);
        if (list) list.push(e);
        else this.matches.set(searchId, [e]);
      }
    }
  }

  get(id: string): SandboxEvent | undefined {
    return this.byId.get(id);
  }

  all(): readonly SandboxEvent[] {
    return this.events;
  }

  /**
   * GET /monitoring/events: monitoring.change events after the cursor (exclusive), filtered, oldest
   * first. next_cursor is the last id returned, or the cursor given when nothing new came, so a poller
   * can always send back what it got.
   */
  monitoringPage(q: { after?: string; limit?: number; list_id?: string; category?: string[] }): Page<SandboxEvent> {
    const after = q.after === undefined ? -1 : eventNumber(q.after);
    if (after === null) throw new ApiError(400, 'invalid_parameter', 'after must be an event id like evt_123', 'after');
    const keep = (e: SandboxEvent) =>
      (!q.list_id || (e.data.lists as Array<{ id: string }>).some((l) => l.id === q.list_id)) &&
      (!q.category?.length || q.category.includes(e.data.category));
    const start = firstAfter(
      this.monitoring,
      (e) => eventNumber(e.id)!,
      after,
      (a, b) => a > b,
    );
    return page(collect(this.monitoring, start, keep, q.limit ?? DEFAULT_LIMIT), q.limit, q.after ?? null);
  }

  /** GET /searches/{id}/matches: that search's search.matches events after the cursor. */
  matchesPage(searchId: string, q: { after?: string; limit?: number }): Page<SandboxEvent> {
    let after: [number, number] = [-1, -1];
    if (q.after !== undefined) {
      const pos = matchesPosition(q.after, searchId);
      if (!pos)
        throw new ApiError(400, 'invalid_parameter', `after must be an event id of this search like evt_${searchId}_20261120_1`, 'after');
      after = pos;
    }
    const rows = this.matches.get(searchId) ?? [];
    const start = firstAfter(rows, (e) => matchesPosition(e.id, searchId)!, after, laterPosition);
    return page(
      collect(rows, start, () => true, q.limit ?? DEFAULT_LIMIT),
      q.limit,
      q.after ?? null,
    );
  }
}

function page(rows: SandboxEvent[], limit = DEFAULT_LIMIT, cursor: string | null): Page<SandboxEvent> {
  const data = rows.slice(0, limit);
  return { data, meta: { next_cursor: data.length ? data[data.length - 1]!.id : cursor, has_more: rows.length > data.length } };
}
