// The check harness shared by the end-to-end scripts: named checks that fail one at a time, cleanup that
// runs on every path (a failed check, an exception, Ctrl-C), and the "N passed, N failed" closing line CI reads.
import { sleep } from './n8n.mjs';

/**
 * @param {unknown} cond
 * @param {string} message
 * @returns {asserts cond}
 */
export function assert(cond, message) {
  if (!cond) throw new Error(message);
}

/**
 * Compares as JSON.
 * @param {unknown} actual
 * @param {unknown} expected
 * @param {string} what
 */
export function assertEqual(actual, expected, what) {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e) throw new Error(`${what}: expected ${e}, got ${a}`);
}

/**
 * Polls `ok` until it returns a truthy value, which is returned.
 * @template T
 * @param {string} what
 * @param {() => T | Promise<T>} ok
 * @param {{ timeoutMs?: number, everyMs?: number }} [opts]
 * @returns {Promise<NonNullable<T>>}
 */
export async function waitFor(what, ok, { timeoutMs = 30_000, everyMs = 250 } = {}) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await ok();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await sleep(everyMs);
  }
}

/**
 * One run of checks. `cleanups` take async stop functions (run newest first, once); `finish(main)` runs
 * main, cleans up, prints the closing line and exits 1 when any check failed or main threw.
 * @param {{ log?: (m: string) => void, traceLines?: number }} [opts]
 */
export function checkRun({ log = (m) => process.stdout.write(`${m}\n`), traceLines = 8 } = {}) {
  const t0 = Date.now();
  const secs = (from = t0) => `${((Date.now() - from) / 1000).toFixed(1)} s`;
  /** @type {{ name: string, ok: boolean, err?: unknown }[]} */
  const results = [];
  /** @type {(() => Promise<unknown>)[]} */
  const cleanups = [];
  /** @type {Promise<void> | undefined} */
  let cleaning;
  const cleanup = () =>
    (cleaning ??= (async () => {
      for (const fn of cleanups.reverse()) await fn().catch((e) => log(`cleanup: ${errorText(e, 'message')}`));
    })());
  for (const sig of ['SIGINT', 'SIGTERM']) {
    process.once(sig, () => {
      log(`\n${sig}: stopping`);
      const force = setTimeout(() => process.exit(130), 20_000);
      force.unref();
      cleanup().finally(() => process.exit(130));
    });
  }

  /**
   * Runs one named check; a thrown error fails it, the run goes on.
   * @param {string} name
   * @param {() => unknown} fn
   */
  async function check(name, fn) {
    const start = Date.now();
    try {
      await fn();
      results.push({ name, ok: true });
      log(`  ok    ${name} (${secs(start)})`);
    } catch (err) {
      results.push({ name, ok: false, err });
      log(`  FAIL  ${name} (${secs(start)})\n        ${errorText(err, 'stack').split('\n').slice(0, traceLines).join('\n        ')}`);
    }
  }

  /** @param {() => Promise<unknown>} main */
  async function finish(main) {
    /** @type {unknown} */
    let fatal;
    try {
      await main();
    } catch (err) {
      fatal = err;
      log(`\nSTOPPED: ${errorText(err, 'stack')}`);
    }
    await cleanup();
    const passed = results.filter((r) => r.ok).length;
    const failed = results.length - passed + (fatal ? 1 : 0);
    log(`\n${passed} passed, ${failed} failed (${secs()} in all)`);
    process.exit(failed ? 1 : 0);
  }

  return { secs, log, check, cleanups, finish };
}

/**
 * A thrown value's stack or message, or the value itself as text (anything can be thrown).
 * @param {unknown} err
 * @param {'stack' | 'message'} part
 */
export function errorText(err, part) {
  return String((err instanceof Error ? err[part] : undefined) ?? err);
}
