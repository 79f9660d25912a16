// The check harness shared by the end-to-end scripts: named checks that fail one at a time, cleanup that
// runs on every path (a failed check, an exception, Ctrl-C), and the "N passed, N failed" closing line CI reads.
import { sleep } from './n8n.mjs';

export function assert(cond, message) {
  if (!cond) throw new Error(message);
}

export function assertEqual(actual, expected, what) {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e) throw new Error(`${what}: expected ${e}, got ${a}`);
}

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
 */
export function checkRun({ log = (m) => process.stdout.write(`${m}\n`), traceLines = 8 } = {}) {
  const t0 = Date.now();
  const secs = (from = t0) => `${((Date.now() - from) / 1000).toFixed(1)} s`;
  const results = [];
  const cleanups = [];
  let cleaning;
  const cleanup = () =>
    (cleaning ??= (async () => {
      for (const fn of cleanups.reverse()) await fn().catch((e) => log(`cleanup: ${e.message}`));
    })());
  for (const sig of ['SIGINT', 'SIGTERM']) {
    process.once(sig, () => {
      log(`\n${sig}: stopping`);
      const force = setTimeout(() => process.exit(130), 20_000);
      force.unref();
      cleanup().finally(() => process.exit(130));
    });
  }

  /** Runs one named check; a thrown error fails it, the run goes on. */
  async function check(name, fn) {
    const start = Date.now();
    try {
      await fn();
      results.push({ name, ok: true });
      log(`  ok    ${name} (${secs(start)})`);
    } catch (err) {
      results.push({ name, ok: false, err });
      log(
        `  FAIL  ${name} (${secs(start)})\n        ${String(err?.stack ?? err)
          .split('\n')
          .slice(0, traceLines)
          .join('\n        ')}`,
      );
    }
  }

  async function finish(main) {
    let fatal;
    try {
      await main();
    } catch (err) {
      fatal = err;
      log(`\nSTOPPED: ${err?.stack ?? err}`);
    }
    await cleanup();
    const passed = results.filter((r) => r.ok).length;
    const failed = results.length - passed + (fatal ? 1 : 0);
    log(`\n${passed} passed, ${failed} failed (${secs()} in all)`);
    process.exit(failed ? 1 : 0);
  }

  return { secs, log, check, cleanups, finish };
}
