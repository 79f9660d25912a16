import { performance } from 'node:perf_hooks';
import type { SheetsClock } from '@company-data/core/sheets/ports';

/**
 * The real clock: Date.now, a timer-based sleep that an AbortSignal cuts short, and the event loop's busy
 * time (performance.eventLoopUtilization). Library and CLI only; n8n nodes bring their own.
 */
export const systemClock: SheetsClock = {
  now: () => Date.now(),
  sleep: (ms: number, signal?: AbortSignal) =>
    new Promise<void>((resolve) => {
      if (signal?.aborted) return resolve();
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      signal?.addEventListener('abort', done, { once: true });
    }),
  busy: () => {
    const from = performance.eventLoopUtilization();
    return () => performance.eventLoopUtilization(from).active;
  },
};
