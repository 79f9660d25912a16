import type { Clock } from './transport';

export interface RateLimiterOptions {
  /** Requests allowed per window. Default 10 (the service's limit per key). */
  requests?: number;
  /** Window length in ms. Default 1000. */
  perMs?: number;
  /** Extra ms added to the window for clock granularity. Default 10. */
  marginMs?: number;
}

/** Call when the request has finished (answer read or failed); frees its slot one window later. */
export type Release = () => void;

/**
 * Proactive sliding-window limiter, counted from when requests FINISH: a slot is taken when a
 * request starts and freed one window after its answer arrived. The service sees a request at some
 * moment before we see the answer, so no window of the service can hold more than `requests` of
 * ours, whatever the network delays (counting from our start times let 13 of 25 land inside one
 * second over loopback, measured in test/integration/transport.test.ts).
 * A burst of 10 goes out at once. Waiters are served first come, first served. One limiter is
 * shared by all calls of a client. pause(ms) holds the whole queue (a 429 with Retry-After).
 */
export class RateLimiter {
  private readonly requests: number;
  private readonly windowMs: number;
  /** Finish time of each slot taken in the last window; Infinity while the request is in flight. */
  private readonly slots: number[] = [];
  private pausedUntil = 0;
  private tail: Promise<void> = Promise.resolve();
  private wakeInFlight: (() => void) | undefined;

  constructor(
    private readonly clock: Clock,
    opts: RateLimiterOptions = {},
  ) {
    const requests = opts.requests ?? 10;
    const perMs = opts.perMs ?? 1000;
    if (!Number.isInteger(requests) || requests < 1) throw new RangeError('rate limit requests must be a whole number of 1 or more');
    if (!(perMs > 0)) throw new RangeError('rate limit window must be more than 0 ms');
    this.requests = requests;
    this.windowMs = perMs + (opts.marginMs ?? 10);
  }

  /** Resolves when the caller may start its request, with the function to call when it finished. */
  acquire(): Promise<Release> {
    const prev = this.tail;
    let done!: () => void;
    this.tail = new Promise<void>((r) => (done = r));
    return prev.then(async () => {
      try {
        for (;;) {
          const now = this.clock.now();
          this.prune(now);
          if (now >= this.pausedUntil && this.slots.length < this.requests) return this.take();
          if (now < this.pausedUntil) {
            // Re-checked after sleeping: a longer pause may have been set meanwhile.
            await this.clock.sleep(this.pausedUntil - now);
            continue;
          }
          const earliest = Math.min(...this.slots);
          if (earliest === Infinity) await new Promise<void>((r) => (this.wakeInFlight = r));
          else await this.clock.sleep(earliest + this.windowMs - now);
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

  private take(): Release {
    this.slots.push(Infinity);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      // In-flight slots are alike, so finishing any one of them is the same as finishing this one.
      const j = this.slots.indexOf(Infinity);
      if (j >= 0) this.slots[j] = this.clock.now();
      const wake = this.wakeInFlight;
      this.wakeInFlight = undefined;
      wake?.();
    };
  }

  private prune(now: number): void {
    for (let j = this.slots.length - 1; j >= 0; j--) if (this.slots[j]! + this.windowMs <= now) this.slots.splice(j, 1);
  }
}
