import type { Clock } from './transport';

export interface RateLimiterOptions {
  /** Requests allowed per window. Default 10 (the service's limit per key). */
  requests?: number;
  /** Window length in ms. Default 1000. */
  perMs?: number;
  /** Extra ms added to the window for clock granularity. Default 10. */
  marginMs?: number;
}

/** Call when the request has finished (answer read or failed); with false when it was not sent after all. */
export type Release = (sent?: boolean) => void;

/** Round trips remembered for the fastest-round-trip estimate. */
const RTT_SAMPLES = 64;

interface Slot {
  start: number;
  /** When the answer arrived; undefined while in flight. */
  finish?: number;
}

/**
 * Proactive sliding-window limiter: at most `requests` per window, counted from when each request
 * STARTED plus how much later than usual it may have reached the service.
 *
 * The service counts a request when it arrives, somewhere between our start and our answer. Counting
 * from the answers is always safe but caps the rate at requests / (window + round trip): 0.77 of the
 * limit with a 300 ms round trip. Counting from the starts keeps the rate at the limit whatever the
 * round trip, but lets requests bunch up at the service when some take longer to get there than
 * others (cold connections, a busy event loop: 12 of 25 landed inside one second over loopback).
 * So a request's slot is held for one window after its start plus its EXCESS: its round trip beyond
 * the fastest one seen lately, the most it can have been delayed on its way compared to the others.
 * A constant round trip costs nothing; until a window's worth of round trips is known the excess is
 * the whole round trip, i.e. the window counts from the answer. While a request is in flight its
 * excess grows, so its slot is freed before its answer only when the fastest round trip is longer
 * than the window (a distant service). Decision recorded in docs/decisions/lookup-and-billing.md, "Rate counting".
 *
 * A burst of `requests` goes out at once. Waiters are served first come, first served. One limiter is
 * shared by all calls of a client. pause(ms) holds the whole queue (a 429 with Retry-After).
 */
export class RateLimiter {
  private readonly requests: number;
  private readonly windowMs: number;
  private readonly slots: Slot[] = [];
  private readonly rtts: number[] = [];
  private fastest = 0;
  private pausedUntil = 0;
  private tail: Promise<void> = Promise.resolve();
  private wakeOnAnswer: (() => void) | undefined;

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
          let wakeAt = Infinity;
          for (let j = this.slots.length - 1; j >= 0; j--) {
            const free = this.freeAt(this.slots[j]!, now);
            if (free <= now) this.slots.splice(j, 1);
            else wakeAt = Math.min(wakeAt, free);
          }
          if (now >= this.pausedUntil && this.slots.length < this.requests) return this.take(now);
          // Re-checked after sleeping: a longer pause may have been set meanwhile.
          // Until the fastest round trip is known, each answer can move every slot's free time: wait for the next one.
          const learning = this.rtts.length < this.requests && this.slots.some((sl) => sl.finish === undefined);
          const answer = () => new Promise<void>((r) => (this.wakeOnAnswer = r));
          if (now < this.pausedUntil) await this.clock.sleep(this.pausedUntil - now);
          else if (wakeAt === Infinity) await answer();
          else if (learning) await Promise.race([answer(), this.clock.sleep(wakeAt - now)]);
          else await this.clock.sleep(wakeAt - now);
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

  /** When the slot may be reused; Infinity while only its answer can tell. */
  private freeAt(s: Slot, now: number): number {
    if (s.finish !== undefined) return s.start + this.windowMs + Math.max(0, s.finish - s.start - this.fastest);
    // In flight: free one window after its start if by then it is not yet later than the fastest round trip.
    const at = s.start + this.windowMs;
    return now - s.start <= this.fastest && at - s.start <= this.fastest ? at : Infinity;
  }

  private take(now: number): Release {
    const slot: Slot = { start: now };
    this.slots.push(slot);
    return (sent = true) => {
      if (slot.finish !== undefined || !this.slots.includes(slot)) return;
      if (!sent) {
        this.slots.splice(this.slots.indexOf(slot), 1);
      } else {
        slot.finish = this.clock.now();
        this.rtts.push(slot.finish - slot.start);
        if (this.rtts.length > RTT_SAMPLES) this.rtts.shift();
        // One answer alone says nothing about how much others vary.
        this.fastest = this.rtts.length >= this.requests ? Math.min(...this.rtts) : 0;
      }
      const wake = this.wakeOnAnswer;
      this.wakeOnAnswer = undefined;
      wake?.();
    };
  }
}
