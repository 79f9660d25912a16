/**
 * Virtual time of the sandbox: now = anchor + (real time since anchor) × scale.
 * Advancing or setting the clock moves the anchor; changing the scale re-anchors first, so time never jumps
 * back. Everything time-dependent in the sandbox (detection runs, morning runs, retry schedule, dates in
 * answers) reads this clock, never Date.now(), so tests can move through days in milliseconds.
 */

export interface SandboxClock {
  /** Virtual time, ms since the epoch. */
  now(): number;
  /** Virtual time as an ISO 8601 UTC string with milliseconds. */
  iso(): string;
  readonly scale: number;
  advance(ms: number): void;
  /** Jump to a virtual time; going back is refused (events and schedules assume time moves forward). */
  setTo(ms: number): void;
  setScale(scale: number): void;
  /** Called after every advance / setTo / setScale, so schedulers re-arm their timers. */
  onChange(listener: () => void): () => void;
  /** Real milliseconds until the virtual time `at` at the current scale (0 when due). */
  realDelayUntil(at: number): number;
}

export interface ClockOptions {
  /** Virtual start time, ms (default: real now). */
  start?: number;
  /** Virtual ms per real ms (default 1). */
  scale?: number;
  /** Real time source; injectable for unit tests. */
  realNow?: () => number;
}

/**
 * Fastest time runs: a virtual day in under a second. Every scheduled run between two instants is
 * carried out, so a faster clock would only queue runs faster than they can be done.
 */
export const MAX_TIME_SCALE = 100_000;
/**
 * Largest single move of the clock: a year and a day covers every schedule of the service (daily runs,
 * monthly billing, the day-long delivery retries). An advance carries out each run it passes, so a
 * move of a thousand years would keep the server busy for hours.
 */
export const MAX_ADVANCE_SECONDS = 366 * 86_400;

export function createClock(opts: ClockOptions = {}): SandboxClock {
  const realNow = opts.realNow ?? Date.now;
  let anchorVirtual = opts.start ?? realNow();
  let anchorReal = realNow();
  let scale = checkScale(opts.scale ?? 1);
  const listeners = new Set<() => void>();

  const now = () => anchorVirtual + (realNow() - anchorReal) * scale;
  const reanchor = () => {
    anchorVirtual = now();
    anchorReal = realNow();
  };
  const changed = () => {
    for (const l of [...listeners]) l();
  };

  return {
    now: () => Math.floor(now()),
    iso: () => new Date(Math.floor(now())).toISOString(),
    get scale() {
      return scale;
    },
    advance(ms) {
      if (!Number.isFinite(ms) || ms < 0) throw new RangeError('advance must be 0 or more milliseconds');
      reanchor();
      anchorVirtual += ms;
      changed();
    },
    setTo(ms) {
      reanchor();
      if (!Number.isFinite(ms) || ms < anchorVirtual) throw new RangeError('the clock can only move forward');
      anchorVirtual = ms;
      changed();
    },
    setScale(s) {
      checkScale(s);
      reanchor();
      scale = s;
      changed();
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    realDelayUntil(at) {
      return Math.max(0, Math.ceil((at - now()) / scale));
    },
  };
}

function checkScale(s: number): number {
  if (!Number.isFinite(s) || s <= 0 || s > MAX_TIME_SCALE) throw new RangeError(`time_scale must be above 0 and at most ${MAX_TIME_SCALE}`);
  return s;
}

/**
 * Runs a callback at virtual times. One real timer for the earliest due time, re-armed whenever the clock
 * changes, so an advance of the clock fires everything that became due at once.
 */
export class VirtualTimer {
  private handle: NodeJS.Timeout | undefined;
  private unsubscribe: () => void;
  private closed = false;

  constructor(
    private readonly clock: SandboxClock,
    /** Next virtual time anything is due, or null when nothing is scheduled. */
    private readonly nextDue: () => number | null,
    /** Called when due; must make progress (nextDue moves on) so the loop ends. */
    private readonly fire: () => void,
  ) {
    this.unsubscribe = clock.onChange(() => this.arm());
  }

  arm(): void {
    if (this.closed) return;
    if (this.handle) clearTimeout(this.handle);
    this.handle = undefined;
    const due = this.nextDue();
    if (due === null) return;
    // Timers beyond ~24.8 days overflow; re-arming every hour is harmless.
    const delay = Math.min(this.clock.realDelayUntil(due), 3_600_000);
    this.handle = setTimeout(() => {
      this.handle = undefined;
      if (this.clock.now() >= due) this.fire();
      this.arm();
    }, delay);
    this.handle.unref?.();
  }

  close(): void {
    this.closed = true;
    this.unsubscribe();
    if (this.handle) clearTimeout(this.handle);
  }
}
