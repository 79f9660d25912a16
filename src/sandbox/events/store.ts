import { SandboxError } from './errors';

/** An event as sent and as polled: the same object (spec, Events). */
export interface SandboxEvent {
  id: string;
  type: 'monitoring.change' | 'search.matches' | 'webhook.test';
  created_at: string;
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

/** Events of one account, oldest first. */
export class EventLog {
  private readonly events: SandboxEvent[] = [];
  private readonly byId = new Map<string, SandboxEvent>();

  append(e: SandboxEvent): void {
    if (this.byId.has(e.id)) return;
    this.events.push(e);
    this.byId.set(e.id, e);
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
    if (after === null) throw new SandboxError(400, 'invalid_parameter', 'after must be an event id like evt_123', 'after');
    const keep = (e: SandboxEvent) =>
      e.type === 'monitoring.change' &&
      eventNumber(e.id)! > after &&
      (!q.list_id || (e.data.lists as Array<{ id: string }>).some((l) => l.id === q.list_id)) &&
      (!q.category?.length || q.category.includes(e.data.category));
    return page(this.events.filter(keep), q.limit, q.after ?? null);
  }

  /** GET /searches/{id}/matches: that search's search.matches events after the cursor. */
  matchesPage(searchId: string, q: { after?: string; limit?: number }): Page<SandboxEvent> {
    let after: [number, number] = [-1, -1];
    if (q.after !== undefined) {
      const pos = matchesPosition(q.after, searchId);
      if (!pos) throw new SandboxError(400, 'invalid_parameter', `after must be an event id of this search like evt_${searchId}_20261120_1`, 'after');
      after = pos;
    }
    const keep = (e: SandboxEvent) => {
      if (e.type !== 'search.matches' || e.data.search.id !== searchId) return false;
      const pos = matchesPosition(e.id, searchId)!;
      return pos[0] > after[0] || (pos[0] === after[0] && pos[1] > after[1]);
    };
    return page(this.events.filter(keep), q.limit, q.after ?? null);
  }
}

function page(rows: SandboxEvent[], limit = DEFAULT_LIMIT, cursor: string | null): Page<SandboxEvent> {
  const data = rows.slice(0, limit);
  return { data, meta: { next_cursor: data.length ? data[data.length - 1]!.id : cursor, has_more: rows.length > data.length } };
}
