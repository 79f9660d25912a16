/**
 * Remembers event ids already handled: the service may deliver the same event more than once, and
 * receivers skip ids already stored (spec, Events). Implement it over a database for several workers.
 *
 * The one shape of "have we seen this event": every receiver in this repository (the n8n triggers'
 * memory, n8n's processed-data store, the poll trigger's static data) asks it through checkAndAdd or
 * newIds below. A store that can check many ids in one go (one database round trip) adds checkAndAddMany.
 */
export interface DedupeStore {
  has(id: string): Promise<boolean>;
  add(id: string): Promise<void>;
  /** Records the id and says whether it was new (true) or seen before (false). */
  checkAndAdd(id: string): Promise<boolean>;
  /** Optional: checkAndAdd for many ids at once; the ids among them not seen before (see newIds). */
  checkAndAddMany?(ids: readonly string[]): Promise<Set<string>>;
}

/**
 * The ids among `ids` not seen before, recorded now: the one definition of a duplicate. An id seen
 * before is a duplicate, and so is a second copy of an id within `ids` (its first copy is the new one).
 * Uses the store's checkAndAddMany when it has one, else checkAndAdd id by id, in order.
 */
export async function newIds(store: Pick<DedupeStore, 'checkAndAdd' | 'checkAndAddMany'>, ids: readonly string[]): Promise<Set<string>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Set();
  if (store.checkAndAddMany) return store.checkAndAddMany(unique);
  const fresh = new Set<string>();
  for (const id of unique) if (await store.checkAndAdd(id)) fresh.add(id);
  return fresh;
}

/**
 * Stores asked in turn, nearest first (a process's memory, then a shared database): an id is new only
 * when every layer finds it new, and a layer that calls it seen ends the check (the layers after it
 * are not asked and record nothing).
 */
export function layeredDedupe(layers: ReadonlyArray<Pick<DedupeStore, 'checkAndAdd'>>): Pick<DedupeStore, 'checkAndAdd'> {
  return {
    async checkAndAdd(id) {
      for (const layer of layers) if (!(await layer.checkAndAdd(id))) return false;
      return true;
    },
  };
}

export interface MemoryDedupeStoreOptions {
  /** Most ids kept; the oldest are dropped first. Default 10 000. */
  maxEntries?: number;
  /**
   * How long an id is kept, ms. Default 48 hours: the service retries a delivery for about 22 hours
   * (1 min to 12 h apart, 8 attempts), so a duplicate cannot arrive later than that.
   */
  ttlMs?: number;
  clock?: { now(): number };
  /** Ids known before (oldest first), e.g. read back from where they were kept; recorded as of now. */
  ids?: Iterable<string>;
}

/** In-memory default: bounded by count and age. Lost on restart; fine for one process. */
export class MemoryDedupeStore implements DedupeStore {
  private readonly seen = new Map<string, number>();
  private readonly maxEntries: number;
  private readonly ttlMs: number;
  private readonly clock: { now(): number };

  constructor(opts: MemoryDedupeStoreOptions = {}) {
    this.maxEntries = opts.maxEntries ?? 10_000;
    this.ttlMs = opts.ttlMs ?? 48 * 3600_000;
    this.clock = opts.clock ?? { now: () => Date.now() };
    if (!Number.isInteger(this.maxEntries) || this.maxEntries < 1) throw new RangeError('maxEntries must be a whole number of 1 or more');
    for (const id of opts.ids ?? []) this.record(id);
  }

  /** The ids kept, oldest first (to keep them somewhere and pass them back as `ids`). */
  ids(): string[] {
    this.expire();
    return [...this.seen.keys()];
  }

  get size(): number {
    this.expire();
    return this.seen.size;
  }

  async has(id: string): Promise<boolean> {
    this.expire();
    return this.seen.has(id);
  }

  async add(id: string): Promise<void> {
    this.record(id);
  }

  async checkAndAdd(id: string): Promise<boolean> {
    return this.checkAndAddNow(id);
  }

  async checkAndAddMany(ids: readonly string[]): Promise<Set<string>> {
    const fresh = new Set<string>();
    for (const id of ids) if (this.checkAndAddNow(id)) fresh.add(id);
    return fresh;
  }

  /**
   * checkAndAdd without the promise: check and record happen in one step, so two copies of an event
   * arriving at once in one process cannot both be new.
   */
  checkAndAddNow(id: string): boolean {
    this.expire();
    if (this.seen.has(id)) return false;
    this.record(id);
    return true;
  }

  /** Drops the id, so that it counts as new again. */
  forget(id: string): void {
    this.seen.delete(id);
  }

  private record(id: string): void {
    this.expire();
    // Re-inserting moves the id to the newest end of the Map's insertion order.
    this.seen.delete(id);
    this.seen.set(id, this.clock.now());
    while (this.seen.size > this.maxEntries) this.seen.delete(this.seen.keys().next().value as string);
  }

  private expire(): void {
    const cutoff = this.clock.now() - this.ttlMs;
    for (const [id, at] of this.seen) {
      if (at > cutoff) break;
      this.seen.delete(id);
    }
  }
}
