/**
 * The former stand-in HTTP front is gone: the write-side tests run against the real sandbox
 * (startSandbox). Kept as an alias only for test/sheets/events-sandbox.test.ts, which imports it.
 */
export { startEventsSandbox as startHarness, call, type EventsSandbox as Harness } from './sandbox';
