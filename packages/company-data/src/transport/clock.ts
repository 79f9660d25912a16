import { performance } from 'node:perf_hooks';
import { sleepUnlessAborted, type PlainSleep } from '@company-data/core/sleep';
import type { SheetsClock } from '@company-data/core/sheets/ports';

/** A timer; an aborted signal clears it, so a stopped wait holds the process no longer (the waking is the core's). */
const timerSleep: PlainSleep = (ms, signal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(
      () => {
        signal?.removeEventListener('abort', free);
        resolve();
      },
      Math.max(0, ms),
    );
    const free = () => clearTimeout(timer);
    signal?.addEventListener('abort', free, { once: true });
  });

/**
 * The real clock: Date.now, a timer-based sleep that an AbortSignal cuts short (the core's
 * sleepUnlessAborted), and the event loop's busy time (performance.eventLoopUtilization). Library and CLI
 * only; n8n nodes bring their own.
 */
export const systemClock: SheetsClock = {
  now: () => Date.now(),
  sleep: (ms: number, signal?: AbortSignal) => sleepUnlessAborted(timerSleep, ms, signal),
  busy: () => {
    const from = performance.eventLoopUtilization();
    return () => performance.eventLoopUtilization(from).active;
  },
};
