import { describe, expect, it } from 'vitest';
import { sleepUnlessAborted, type PlainSleep } from '@company-data/core/sleep';

/** A clock whose sleeps end only when the test says so, recording what each was given. */
function heldClock() {
  const calls: { ms: number; signal?: AbortSignal; wake: () => void }[] = [];
  const sleep: PlainSleep = (ms, signal) => new Promise<void>((wake) => calls.push({ ms, signal, wake }));
  return { sleep, calls };
}

describe('sleepUnlessAborted: the one abortable wait, over a clock’s plain sleep', () => {
  it('without a signal it is the clock’s sleep', async () => {
    const c = heldClock();
    let done = false;
    const waiting = sleepUnlessAborted(c.sleep, 1500).then(() => (done = true));
    expect(c.calls.map((x) => [x.ms, x.signal])).toEqual([[1500, undefined]]);
    await Promise.resolve();
    expect(done).toBe(false);
    c.calls[0]!.wake();
    await waiting;
    expect(done).toBe(true);
  });

  it('an abort ends a sleep the clock never ends, and the clock is given the signal to free its timer', async () => {
    const c = heldClock();
    const stop = new AbortController();
    const waiting = sleepUnlessAborted(c.sleep, 60_000, stop.signal);
    expect(c.calls[0]!.signal).toBe(stop.signal);
    stop.abort();
    await expect(waiting).resolves.toBeUndefined();
  });

  it('an aborted signal does not sleep at all; a clock that rejects on abort does not make it reject', async () => {
    const c = heldClock();
    const stop = new AbortController();
    stop.abort();
    await sleepUnlessAborted(c.sleep, 60_000, stop.signal);
    expect(c.calls).toHaveLength(0);

    const live = new AbortController();
    const rejecting: PlainSleep = (_ms, signal) =>
      new Promise<void>((_, reject) => signal?.addEventListener('abort', () => reject(new Error('cancelled')), { once: true }));
    const waiting = sleepUnlessAborted(rejecting, 60_000, live.signal);
    live.abort();
    await expect(waiting).resolves.toBeUndefined();
  });

  it('leaves no listener on a long-lived signal once the sleep is over', async () => {
    const c = heldClock();
    const stop = new AbortController();
    let added = 0;
    let removed = 0;
    const add = stop.signal.addEventListener.bind(stop.signal);
    const remove = stop.signal.removeEventListener.bind(stop.signal);
    stop.signal.addEventListener = ((...a: Parameters<typeof add>) => (added++, add(...a))) as typeof add;
    stop.signal.removeEventListener = ((...a: Parameters<typeof remove>) => (removed++, remove(...a))) as typeof remove;
    const waiting = sleepUnlessAborted(c.sleep, 10, stop.signal);
    c.calls[0]!.wake();
    await waiting;
    expect([added, removed]).toEqual([1, 1]);
  });
});
