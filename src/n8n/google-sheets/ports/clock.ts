import * as workflow from 'n8n-workflow';
import { sleep } from 'n8n-workflow';
import type { SheetsClock } from '@company-data/core/sheets/ports';

/** The longest single wait when n8n has no sleepWithAbort: Stop is seen within this. */
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
 * Waits `ms`, or less when a signal aborts: resolves either way, never rejects (the caller looks at its
 * signals). n8n's lint forbids timer globals; this uses n8n-workflow's sleepWithAbort where it exists,
 * else n8n-workflow's sleep in slices of a quarter second, looking at the signals between them.
 */
export async function abortableSleep(ms: number, signals: ReadonlyArray<AbortSignal | undefined>): Promise<void> {
  const live = signals.filter((s): s is AbortSignal => s !== undefined);
  const aborted = () => live.some((s) => s.aborted);
  if (ms <= 0 || aborted()) return;
  const withAbort = n8nSleepWithAbort();
  if (withAbort) {
    const signal = live.length <= 1 ? live[0] : AbortSignal.any(live);
    // sleepWithAbort rejects only when its signal aborts (ManualExecutionCancelledError): the wake-up asked for.
    await withAbort(ms, signal).catch(() => aborted());
    return;
  }
  const end = Date.now() + ms;
  for (let left = ms; left > 0 && !aborted(); left = end - Date.now()) await sleep(Math.min(SLICE_MS, left));
}

/**
 * The Sheets engine's clock in n8n: every wait (Google's quota, the save loop) also ends when the
 * execution is stopped, so Stop ends a 429 storm within a second.
 */
export function n8nSheetsClock(executionSignal: AbortSignal | undefined): SheetsClock {
  return {
    now: () => Date.now(),
    sleep: async (ms: number, signal?: AbortSignal) => await abortableSleep(ms, [executionSignal, signal]),
  };
}
