import type { Clock } from '@company-data/core/transport';

/** The real clock: Date.now and a timer-based sleep. Library and CLI only; n8n nodes bring their own. */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms))),
};
