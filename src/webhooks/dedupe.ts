/**
 * Remembers event ids already handled: the service may deliver the same event more than once, and
 * receivers skip ids already stored (spec, Events). Implement it over a database for several workers.
 */
export interface DedupeStore {
  has(id: string): Promise<boolean>;
  add(id: string): Promise<void>;
  /** Records the id and says whether it was new (true) or seen before (false). */
  checkAndAdd(id: string): Promise<boolean>;
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
