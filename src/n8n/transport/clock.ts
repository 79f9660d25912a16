import * as workflow from 'n8n-workflow';
import { sleep } from 'n8n-workflow';
import { sleepUnlessAborted, type PlainSleep } from '@company-data/core/sleep';
import type { SheetsClock } from '@company-data/core/sheets/ports';

/** The longest single wait when n8n has no sleepWithAbort: a stopped wait's timer lives no longer than this. */
const SLICE_MS = 250;

type SleepWithAbort = (ms: number, signal?: AbortSignal) => Promise<void>;

/**
 * n8n-workflow 1.x has sleepWithAbort; n8n 2.x's (2.41) does not, and a community node loads the n8n-workflow
 * of the n8n it runs in. Looked up when called, so the same bundle runs in both.
 */
const n8nSleepWithAbort = (): SleepWithAbort | undefined => {
  const f = 'sleepWithAbort' in workflow ? (workflow as { sleepWithAbort?: unknown }).sleepWithAbort : undefined;
  return typeof f === 'function' ? (f as SleepWithAbort) : undefined;
};

/**
 * n8n's timers (its lint forbids timer globals): sleepWithAbort where it exists, else n8n-workflow's sleep
 * in slices of a quarter second, so a stopped wait leaves no long timer behind. Waking the waiter on an
 * abort is the core's sleepUnlessAborted.
 */
const n8nSleep: PlainSleep = async (ms, signal) => {
  if (ms <= 0) return;
  const withAbort = n8nSleepWithAbort();
  // sleepWithAbort rejects only when its signal aborts (ManualExecutionCancelledError): the wake-up asked for.
  if (withAbort) return await withAbort(ms, signal).catch(() => undefined);
  const end = Date.now() + ms;
  for (let left = ms; left > 0 && !signal?.aborted; left = end - Date.now()) await sleep(Math.min(SLICE_MS, left));
};

/**
 * The n8n nodes' one clock. Given the execution's cancel signal, every wait (Google's quota, the save
 * loop, a lock's turn) also ends when the execution is stopped, so Stop ends a 429 storm within a second;
 * the Company Data client's clock has none (its requests' own retries are not cut short by Stop).
 */
export function n8nClock(executionSignal?: AbortSignal): SheetsClock {
  return {
    now: () => Date.now(),
    sleep: async (ms: number, signal?: AbortSignal) => {
      const live = [executionSignal, signal].filter((s): s is AbortSignal => s !== undefined);
      await sleepUnlessAborted(n8nSleep, ms, live.length <= 1 ? live[0] : AbortSignal.any(live));
    },
  };
}
