import type { SheetsClock } from './ports';

/** Waiting for something another run holds (a lease, a writer lock): up to maxMs, ended early by the signal (a Stop). */
export interface LeaseWait {
  maxMs: number;
  signal?: AbortSignal;
}

/** How often a wait looks again: after firstMs, then twice as long each time up to longestMs (both equal: an even pace). */
export interface LookPace {
  firstMs: number;
  longestMs: number;
}

export interface TakeWhenFree {
  /** The refusals that mean "held by another run, look again later"; any other is the answer at once. */
  busy(error: unknown): boolean;
  clock: Pick<SheetsClock, 'now' | 'sleep'>;
  /** Without it, one look: a refusal is the answer. */
  wait: LeaseWait | undefined;
  pace: LookPace;
}

/**
 * Takes with `take`; while the refusal is `busy` and the wait allows, looks again after a pause growing by
 * `pace`. Any other refusal, a Stop, or a next look that would come after the wait's end gives the last refusal
 * as it is. Sleeps only through the clock (the core has no timer of its own).
 */
export async function takeWhenFree<T>(take: () => Promise<T>, { busy, clock, wait, pace }: TakeWhenFree): Promise<T> {
  const until = clock.now() + (wait?.maxMs ?? 0);
  for (let pause = pace.firstMs; ; pause = Math.min(pause * 2, pace.longestMs)) {
    const got = await take().then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
    if ('value' in got) return got.value;
    if (!busy(got.error) || wait?.signal?.aborted || clock.now() + pause > until) throw got.error;
    await clock.sleep(pause, wait?.signal);
  }
}
