/**
 * A clock's own way to wait: resolves after `ms`. Given a signal, it may free its timer when the signal
 * aborts (the CLI clears its setTimeout, n8n uses sleepWithAbort); it need not resolve then, and must not
 * reject: waking the waiter is sleepUnlessAborted's part.
 */
export type PlainSleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/**
 * The one abortable wait of the core and every door: waits `ms` on the clock's plain sleep, or less when
 * the signal aborts. Resolves either way and never rejects: the caller looks at its signal to see what
 * woke it. The core calls no timer itself; each door's clock brings the sleep.
 */
export async function sleepUnlessAborted(sleep: PlainSleep, ms: number, signal?: AbortSignal): Promise<void> {
  if (!signal) return await sleep(ms);
  if (signal.aborted) return;
  let onAbort!: () => void;
  const aborted = new Promise<void>((resolve) => {
    onAbort = resolve;
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    await Promise.race([sleep(ms, signal), aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
