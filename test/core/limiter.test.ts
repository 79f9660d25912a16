import { describe, expect, it } from 'vitest';
import { RateLimiter } from '@company-data/core/limiter';
import { FakeClock, flush } from '../support/fake-clock';

/** Starts n acquisitions at once and records when (virtual ms from start) and in which order each got through. */
function race(limiter: RateLimiter, clock: FakeClock, n: number) {
  const t0 = clock.now();
  const log: { i: number; at: number }[] = [];
  // Each request finishes the moment it starts (release at once), as with an instant answer.
  const all = Promise.all(
    Array.from({ length: n }, (_, i) =>
      limiter.acquire().then((release) => {
        log.push({ i, at: clock.now() - t0 });
        release();
      }),
    ),
  );
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
    expect(times.slice(10, 20)).toEqual(Array(10).fill(1010));
    expect(times.slice(20)).toEqual(Array(5).fill(2020));
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
    (await limiter.acquire())();
    await clock.advance(600);
    (await limiter.acquire())();
    const third = limiter.acquire();
    let done = false;
    void third.then(() => (done = true));
    await clock.advance(399);
    expect(done).toBe(false);
    await clock.advance(1);
    expect(done).toBe(true);
  });

  it('counts the window from when a request finished, so slow answers cannot bunch up at the service', async () => {
    const clock = new FakeClock();
    const limiter = new RateLimiter(clock, { requests: 2, perMs: 1000, marginMs: 0 });
    const r1 = await limiter.acquire();
    const r2 = await limiter.acquire();
    let third = -1;
    const p = limiter.acquire().then((r) => {
      third = clock.now();
      r();
    });
    // Both still in flight after 1.5 s: nobody else may start.
    await clock.advance(1500);
    expect(third).toBe(-1);
    r1();
    const finished = clock.now();
    await clock.advance(999);
    expect(third).toBe(-1);
    await clock.advance(1);
    await p;
    expect(third).toBe(finished + 1000);
    r2();
  });

  it('a release called twice frees one slot only', async () => {
    const clock = new FakeClock();
    const limiter = new RateLimiter(clock, { requests: 2, perMs: 1000, marginMs: 0 });
    const r1 = await limiter.acquire();
    const r2 = await limiter.acquire();
    r1();
    r1();
    let got = false;
    void limiter.acquire().then(() => (got = true));
    await clock.advance(999);
    expect(got).toBe(false);
    r2();
  });

  it('with a steady round trip, counts from the starts: the next window does not wait for the round trip', async () => {
    const clock = new FakeClock();
    const limiter = new RateLimiter(clock, { requests: 2, perMs: 1000, marginMs: 0 });
    const t0 = clock.now();
    const starts: number[] = [];
    // Every request takes 300 ms; 8 of them in a row.
    const one = async () => {
      const release = await limiter.acquire();
      starts.push(clock.now() - t0);
      await clock.sleep(300);
      release();
    };
    const all = Promise.all(Array.from({ length: 8 }, one));
    await clock.runAll();
    await all;
    // Once the first window's round trips are known (300 ms each, no excess), one window apart.
    expect(starts).toEqual([0, 0, 1000, 1000, 2000, 2000, 3000, 3000]);
  });

  it('holds a slot longer by how much later than the fastest its answer came', async () => {
    const clock = new FakeClock();
    const limiter = new RateLimiter(clock, { requests: 2, perMs: 1000, marginMs: 0 });
    const t0 = clock.now();
    // Two instant answers teach the fastest round trip (0 ms).
    for (const r of [await limiter.acquire(), await limiter.acquire()]) r();
    await clock.advance(1010);
    const slow = await limiter.acquire();
    const quick = await limiter.acquire();
    await clock.advance(10);
    quick();
    await clock.advance(90);
    slow(); // 100 ms more than the fastest: it may have reached the service up to 100 ms late
    const at: number[] = [];
    const next = Promise.all([limiter.acquire(), limiter.acquire()].map((p) => p.then(() => void at.push(clock.now() - t0))));
    await clock.runAll();
    await next;
    expect(at).toEqual([2020, 2110]);
  });

  it('lets more than N be in flight when the fastest round trip is longer than the window', async () => {
    const clock = new FakeClock();
    const limiter = new RateLimiter(clock, { requests: 2, perMs: 1000, marginMs: 0 });
    let inFlight = 0;
    let most = 0;
    const one = async () => {
      const release = await limiter.acquire();
      most = Math.max(most, ++inFlight);
      await clock.sleep(2500);
      inFlight--;
      release();
    };
    const all = Promise.all(Array.from({ length: 12 }, one));
    await clock.runAll();
    await all;
    expect(most).toBeGreaterThanOrEqual(5);
  });

  it('a request given up before it was sent frees its slot at once and teaches nothing', async () => {
    const clock = new FakeClock();
    const limiter = new RateLimiter(clock, { requests: 1, perMs: 1000, marginMs: 0 });
    (await limiter.acquire())(false);
    let got = false;
    void limiter.acquire().then(() => (got = true));
    await flush();
    expect(got).toBe(true);
  });

  it('rejects nonsense settings', () => {
    expect(() => new RateLimiter(new FakeClock(), { requests: 0 })).toThrow(/1 or more/);
    expect(() => new RateLimiter(new FakeClock(), { perMs: 0 })).toThrow(/more than 0/);
  });
});
