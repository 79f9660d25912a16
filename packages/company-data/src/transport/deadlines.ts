/** A pending deadline: `expire` runs once when the monotonic time `at` (ms) has passed, unless removed first. */
export interface Deadline {
  readonly at: number;
  expire(): void;
}

/** setTimeout cannot wait longer than this (a longer delay fires at once). */
const MAX_DELAY_MS = 2 ** 31 - 1;

/**
 * The overall deadlines of all requests of one transport on ONE timer. A timer per request (plus an
 * AbortController for it) cost more than the rest of the transport on a 0.2 ms loopback call. Here a
 * request that finishes only leaves the set: the timer stays armed for the earliest deadline ever
 * added and, when it fires, expires what is due and re-arms for the earliest one still pending, so
 * back-to-back requests with the same time-out never touch the timer. The timer is unref'd: an
 * in-flight request keeps the process alive through its socket, a finished one must not.
 */
export class DeadlineTimer {
  private readonly pending = new Set<Deadline>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private armedAt = Infinity;

  constructor(private readonly now: () => number = () => performance.now()) {}

  add(d: Deadline): void {
    this.pending.add(d);
    if (d.at < this.armedAt) this.arm(d.at);
  }

  remove(d: Deadline): void {
    this.pending.delete(d);
  }

  /** Deadlines still pending. */
  get size(): number {
    return this.pending.size;
  }

  /** Whether the timer is armed (it may outlive the last pending deadline until it fires once). */
  get armed(): boolean {
    return this.timer !== undefined;
  }

  /** Forgets every deadline without expiring it and disarms the timer. */
  stop(): void {
    this.pending.clear();
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.armedAt = Infinity;
  }

  private arm(at: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.armedAt = at;
    // Ceil and at least 1 ms: a timer may fire up to a millisecond before performance.now() reaches `at`;
    // then onTimer finds nothing due and re-arms for the remainder.
    this.timer = setTimeout(this.onTimer, Math.min(MAX_DELAY_MS, Math.max(1, Math.ceil(at - this.now()))));
    this.timer.unref?.();
  }

  private readonly onTimer = (): void => {
    this.timer = undefined;
    this.armedAt = Infinity;
    const now = this.now();
    let next = Infinity;
    for (const d of this.pending) {
      if (d.at <= now) {
        this.pending.delete(d);
        d.expire();
      } else if (d.at < next) next = d.at;
    }
    if (next < this.armedAt) this.arm(next);
  };
}
