import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/core/limiter';
import { FakeClock, flush } from '../support/fake-clock';

/** Starts n acquisitions at once and records when (virtual ms from start) and in which order each got through. */
function race(limiter: RateLimiter, clock: FakeClock, n: number) {
  const t0 = clock.now();
  const log: { i: number; at: number }[] = [];
  const all = Promise.all(Array.from({ length: n }, (_, i) => limiter.acquire().then(() => void log.push({ i, at: clock.now() - t0 }))));
  return { log, all };
}

describe('RateLimiter', () => {
  it('lets 10 through at once, then one per window slot (default 10/s)', async () => {
    const clock = new FakeClock();
    const limiter = new RateLimiter(clock);
    const { log, all } = race(limiter, clock, 25);
    await clock.runAll();
    await all;
    const times = log.map((l) => l.at);
    expect(times.slice(0, 10)).toEqual(Array(10).fill(0));
    expect(times.slice(10, 20)).toEqual(Array(10).fill(1020));
    expect(times.slice(20)).toEqual(Array(5).fill(2040));
  });

  it('never lets more than N start in any window', async () => {
    const clock = new FakeClock();
    const limiter = new RateLimiter(clock, { requests: 3, perMs: 500, marginMs: 0 });
    const { log, all } = race(limiter, clock, 20);
    await clock.runAll();
    await all;
    const times = log.map((l) => l.at);
    for (const t of times) expect(times.filter((u) => u >= t && u < t + 500).length).toBeLessThanOrEqual(3);
    expect(times[times.length - 1]).toBe(6 * 500);
  });

  it('serves waiters first come, first served', async () => {
    const clock = new FakeClock();
    const limiter = new RateLimiter(clock, { requests: 2, perMs: 100 });
    const { log, all } = race(limiter, clock, 9);
    await clock.runAll();
    await all;
    expect(log.map((l) => l.i)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('pause() holds the whole queue, including waiters already sleeping', async () => {
    const clock = new FakeClock();
    const limiter = new RateLimiter(clock, { requests: 1, perMs: 100, marginMs: 0 });
    const { log, all } = race(limiter, clock, 3);
    await flush();
    expect(log.map((l) => l.at)).toEqual([0]);
    limiter.pause(2000);
    await clock.runAll();
    await all;
    expect(log.map((l) => l.at)).toEqual([0, 2000, 2100]);
  });

  it('does not wait when under the limit, and spreads later calls', async () => {
    const clock = new FakeClock();
    const limiter = new RateLimiter(clock, { requests: 2, perMs: 1000, marginMs: 0 });
    await limiter.acquire();
    await clock.advance(600);
    await limiter.acquire();
    const third = limiter.acquire();
    let done = false;
    void third.then(() => (done = true));
    await clock.advance(399);
    expect(done).toBe(false);
    await clock.advance(1);
    expect(done).toBe(true);
  });

  it('counts the window from the start, so answers slower than the window do not hold the next requests back', async () => {
    const clock = new FakeClock();
    const limiter = new RateLimiter(clock, { requests: 2, perMs: 1000, marginMs: 0 });
    const t0 = clock.now();
    await limiter.acquire();
    await limiter.acquire();
    // Neither request has been answered (nothing tells the limiter); the third starts one window later.
    let third = -1;
    const p = limiter.acquire().then(() => void (third = clock.now() - t0));
    await clock.advance(999);
    expect(third).toBe(-1);
    await clock.advance(1);
    await p;
    expect(third).toBe(1000);
  });

  it('adds the margin to the window', async () => {
    const clock = new FakeClock();
    const limiter = new RateLimiter(clock);
    const { log, all } = race(limiter, clock, 11);
    await clock.runAll();
    await all;
    expect(log[10]!.at).toBe(1020);
  });

  it('rejects nonsense settings', () => {
    expect(() => new RateLimiter(new FakeClock(), { requests: 0 })).toThrow(/1 or more/);
    expect(() => new RateLimiter(new FakeClock(), { perMs: 0 })).toThrow(/more than 0/);
  });
});
