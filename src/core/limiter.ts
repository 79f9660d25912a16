import type { Clock } from './transport';

export interface RateLimiterOptions {
  /** Requests allowed per window. Default 10 (the service's limit per key). */
  requests?: number;
  /** Window length in ms. Default 1000. */
  perMs?: number;
  /**
   * Extra spacing added to the window so that network jitter between our start and the service's
   * arrival time cannot push an 11th request into the service's second. Default 20 ms.
   */
  marginMs?: number;
}

/**
 * Proactive sliding-window limiter: at most `requests` starts in any window of `perMs`, so a burst
 * of 10 goes out at once and the 11th waits until the first is a window old. This is accepted by a
 * service counting per fixed second, per sliding window or with a token bucket of the same rate.
 * Waiters are served strictly first come, first served. One limiter is shared by all calls of a client.
 * pause(ms) holds the whole queue, used when a 429 says Retry-After.
 */
export class RateLimiter {
  private readonly requests: number;
  private readonly windowMs: number;
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

  /** Resolves when the caller may start its request; the start is counted at that moment. */
  acquire(): Promise<void> {
    const prev = this.tail;
    let release!: () => void;
    this.tail = new Promise<void>((r) => (release = r));
    return prev.then(async () => {
      try {
        for (;;) {
          const now = this.clock.now();
          const wait = this.readyAt(now) - now;
          if (wait <= 0) {
            this.starts.push(now);
            if (this.starts.length > this.requests) this.starts.shift();
            return;
          }
          // Re-checked after sleeping: a pause may have been set meanwhile.
          await this.clock.sleep(wait);
        }
      } finally {
        release();
      }
    });
  }

  /** Holds every waiting and future request for at least `ms` from now. */
  pause(ms: number): void {
    if (!(ms > 0)) return;
    this.pausedUntil = Math.max(this.pausedUntil, this.clock.now() + ms);
  }

  /** When the next request may start (ms since epoch). */
  private readyAt(now: number): number {
    let at = Math.max(now, this.pausedUntil);
    if (this.starts.length >= this.requests) at = Math.max(at, this.starts[this.starts.length - this.requests]! + this.windowMs);
    return at;
  }
}
