import { describe, expect, it } from 'vitest';
import { takeWhenFree } from '../../../packages/core/sheets/take-when-free';

/** A clock whose sleep moves time on at once and notes each pause. */
const steppingClock = () => {
  const pauses: number[] = [];
  const clock = {
    t: 0,
    now: () => clock.t,
    sleep: async (ms: number) => {
      pauses.push(ms);
      clock.t += ms;
    },
  };
  return { clock, pauses };
};
const busy = (error: unknown) => (error as Error).message === 'busy';
const refusing = (free: (looks: number) => boolean, refusal = 'busy') => {
  let looks = 0;
  return async () => {
    if (free(++looks)) return `taken at look ${looks}`;
    throw new Error(refusal);
  };
};

describe('takeWhenFree: waiting for something another run holds', () => {
  it('looks again after pauses that double up to the longest, and gives the refusal when the next look would pass the end', async () => {
    const { clock, pauses } = steppingClock();
    const take = refusing(() => false);
    await expect(takeWhenFree(take, { busy, clock, wait: { maxMs: 30_000 }, pace: { firstMs: 1000, longestMs: 10_000 } })).rejects.toThrow(
      'busy',
    );
    expect(pauses).toEqual([1000, 2000, 4000, 8000, 10_000]);
  });

  it('keeps an even pace when first and longest are equal, and takes once free', async () => {
    const { clock, pauses } = steppingClock();
    const got = await takeWhenFree(
      refusing((n) => n === 4),
      { busy, clock, wait: { maxMs: 60_000 }, pace: { firstMs: 200, longestMs: 200 } },
    );
    expect(got).toBe('taken at look 4');
    expect(pauses).toEqual([200, 200, 200]);
  });

  it('gives any other refusal at once, and without a wait or after a Stop looks only once', async () => {
    const pace = { firstMs: 1000, longestMs: 10_000 };
    const { clock, pauses } = steppingClock();
    await expect(
      takeWhenFree(
        refusing(() => false, 'quota'),
        { busy, clock, wait: { maxMs: 60_000 }, pace },
      ),
    ).rejects.toThrow('quota');
    await expect(
      takeWhenFree(
        refusing(() => false),
        { busy, clock, wait: undefined, pace },
      ),
    ).rejects.toThrow('busy');
    const stop = new AbortController();
    stop.abort();
    await expect(
      takeWhenFree(
        refusing(() => false),
        { busy, clock, wait: { maxMs: 60_000, signal: stop.signal }, pace },
      ),
    ).rejects.toThrow('busy');
    expect(pauses).toEqual([]);
  });
});
