import type { Clock } from './transport';

export interface RateLimiterOptions {
  /** Requests allowed per window. Default 10 (the service's limit per key). */
  requests?: number;
  /** Window length in ms. Default 1000. */
  perMs?: number;
  /** Extra ms added to the window for clock granularity and uneven network delays. Default 20. */
  marginMs?: number;
}

/**
 * Proactive sliding-window limiter counted from when requests START: at most `requests` starts in
 * any window of perMs + marginMs. The round trip does not count, so with a distant service (or a
 * slow answer) more than `requests` may be in flight, and the rate stays at the limit whatever the
 * latency (decision in docs/assumptions.md, "Lookup engine": counting from the answers capped the
 * rate at requests / (window + round trip), 0.77 of the limit at 300 ms).
 * The margin absorbs uneven delays on the way to the service; when they are larger and the service
 * still answers 429, the client pauses the whole queue for its Retry-After (pause()).
 * A burst of `requests` goes out at once. Waiters are served first come, first served. One limiter
 * is shared by all calls of a client.
 */
export class RateLimiter {
  private readonly requests: number;
  private readonly windowMs: number;
  /** Start times of the requests of the last window, oldest first. */
  private readonly starts: number[] = [];
  private pausedUntil = 0;
  private tail: Promise<void> = Promise.resolve();

  constructor(
    private readonly clock: Clock,
    opts: RateLimiterOptions = {},
  ) {
    const requests = opts.requests ?? 10;
    const perMs = opts.perMs ?? 1000;
    if (!Number.isInteger(requests) || requests < 1) throw new RangeError('rate limit requests must be a whole number of 1 or more');
    if (!(perMs > 0)) throw new RangeError('rate limit window must be more than 0 ms');
    this.requests = requests;
    this.windowMs = perMs + (opts.marginMs ?? 20);
  }

  /** Resolves when the caller may start its request. */
  acquire(): Promise<void> {
    const prev = this.tail;
    let done!: () => void;
    this.tail = new Promise<void>((r) => (done = r));
    return prev.then(async () => {
      try {
        for (;;) {
          const now = this.clock.now();
          while (this.starts.length && this.starts[0]! + this.windowMs <= now) this.starts.shift();
          if (now >= this.pausedUntil && this.starts.length < this.requests) {
            this.starts.push(now);
            return;
          }
          // Re-checked after sleeping: a longer pause may have been set meanwhile.
          const until = now < this.pausedUntil ? this.pausedUntil : this.starts[0]! + this.windowMs;
          await this.clock.sleep(until - now);
        }
      } finally {
        done();
      }
    });
  }

  /** Holds every waiting and future request for at least `ms` from now. */
  pause(ms: number): void {
    if (!(ms > 0)) return;
    this.pausedUntil = Math.max(this.pausedUntil, this.clock.now() + ms);
  }
}
