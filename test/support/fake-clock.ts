import type { Clock } from '@company-data/core/transport';

/** Lets pending promise callbacks run (a macrotask turn drains all microtasks). */
export const flush = () => new Promise<void>((r) => setImmediate(r));

/** Virtual time for tests: sleep() resolves only when advance() passes its deadline. */
export class FakeClock implements Clock {
  t: number;
  readonly sleeps: number[] = [];
  private timers: { at: number; resolve: () => void }[] = [];

  constructor(start = 1_700_000_000_000) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  sleep(ms: number): Promise<void> {
    this.sleeps.push(ms);
    return new Promise((resolve) => this.timers.push({ at: this.t + Math.max(0, ms), resolve }));
  }

  get pending(): number {
    return this.timers.length;
  }

  /** Moves time forward by ms, firing timers in order and letting their callbacks run. */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    await this.fireUntil(end);
    this.t = end;
    await flush();
  }

  /** Runs until no timer is pending (or the safety bound is hit). */
  async runAll(maxMs = 3_600_000): Promise<void> {
    await this.fireUntil(this.t + maxMs);
    await flush();
  }

  /** Fires the pending timers due by `end`, in time order, letting each callback run before the next. */
  private async fireUntil(end: number): Promise<void> {
    for (;;) {
      await flush();
      this.timers.sort((a, b) => a.at - b.at);
      const next = this.timers[0];
      if (!next || next.at > end) break;
      this.timers.shift();
      this.t = next.at;
      next.resolve();
    }
  }
}

/** A clock whose sleep returns at once after moving time forward: for tests where waits only need to be recorded. */
export class AutoClock implements Clock {
  readonly sleeps: number[] = [];
  constructor(public t = 1_700_000_000_000) {}
  now(): number {
    return this.t;
  }
  async sleep(ms: number): Promise<void> {
    this.sleeps.push(ms);
    this.t += Math.max(0, ms);
  }
}
