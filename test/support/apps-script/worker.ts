/**
 * One Apps Script execution, in a worker thread of its own (bundled by esbuild when a world starts, see
 * execution.ts). The script runs in a fresh vm context holding only the language's builtins and Apps
 * Script's globals; every call of a service method is a synchronous call to the test's thread, where the
 * services live: the request goes out by postMessage, this thread sleeps in Atomics.wait until the answer
 * is on its port, and reads it with receiveMessageOnPort. So UrlFetchApp can be answered by a server the
 * test started, and the test can edit the spreadsheet between two calls.
 */
import { parentPort, receiveMessageOnPort, workerData, type MessagePort } from 'node:worker_threads';
import vm from 'node:vm';
import type { CallMessage, DoneMessage, Reply, WorkerInput } from './protocol';

/**
 * Runs inside the script's context, so that values, objects and errors the script sees are of its own
 * realm (instanceof Date, instanceof Error, Array.isArray all hold). `invoke` and `now` are this thread's.
 */
const BOOT = String.raw`(function (invoke, now) {
  var RealDate = Date;
  var ids = new WeakMap();
  var protos = {};
  function encode(value) {
    return JSON.stringify(value === undefined ? null : value, function (k, v) {
      var raw = this[k];
      if (raw instanceof RealDate) return { $d: raw.getTime() };
      if (raw !== null && typeof raw === 'object' && ids.has(raw)) return { $h: ids.get(raw) };
      if (typeof raw === 'function') return undefined;
      return v;
    });
  }
  function decode(text) {
    if (text === undefined) return undefined;
    return JSON.parse(text, function (k, v) {
      if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
      if ('$d' in v) return new RealDate(v.$d);
      if ('$h' in v) return wrap(v);
      return v;
    });
  }
  function call(h, m, args) {
    var r = invoke(h, m, encode(args));
    if (r.e !== undefined) {
      var err = new Error(r.e);
      err.name = 'Exception';
      throw err;
    }
    return decode(r.v);
  }
  function protoOf(type, methods) {
    if (protos[type]) return protos[type];
    var proto = { toString: function () { return type; } };
    methods.forEach(function (m) {
      proto[m] = function () { return call(ids.get(this), m, Array.prototype.slice.call(arguments)); };
    });
    return (protos[type] = proto);
  }
  function wrap(spec) {
    var o = Object.create(protoOf(spec.$t, spec.$m || []));
    if (spec.$p) Object.keys(spec.$p).forEach(function (k) { o[k] = spec.$p[k]; });
    ids.set(o, spec.$h);
    return o;
  }
  var VirtualDate = new Proxy(RealDate, {
    construct: function (t, args, nt) { return Reflect.construct(t, args.length ? args : [now()], nt); },
    apply: function () { return new RealDate(now()).toString(); },
  });
  RealDate.now = function () { return now(); };
  globalThis.Date = VirtualDate;
  return { encode: encode, decode: decode };
})`;

type Boot = { encode(v: unknown): string; decode(text: string | undefined): unknown };

const input = workerData as WorkerInput;
const flag = new Int32Array(input.signal);
const port = input.port as MessagePort;
let virtualNow = input.now;
let seq = 0;

function invoke(h: number | string, m: string, a: string): Reply {
  const n = ++seq;
  Atomics.store(flag, 0, 0);
  parentPort!.postMessage({ kind: 'call', seq: n, h, m, a } satisfies CallMessage);
  Atomics.wait(flag, 0, 0);
  const got = receiveMessageOnPort(port);
  if (!got) throw new Error(`stand-in: no answer on the port to call ${n} (${m})`);
  const reply = got.message as Reply;
  if (reply.seq !== n) throw new Error(`stand-in: the answer to call ${reply.seq} came for call ${n} (${m})`);
  virtualNow = reply.now;
  return reply;
}

function done(msg: Omit<DoneMessage, 'kind'>): void {
  parentPort!.postMessage({ kind: 'done', ...msg } satisfies DoneMessage);
  // Stay alive until the test's thread, having read the answer, terminates this worker: an exit of its
  // own could reach the test's thread before the answer does.
  setInterval(() => undefined, 60_000);
}

const messageOf = (e: unknown) => (typeof e === 'object' && e !== null && 'message' in e ? String((e as Error).message) : String(e));

/** A returned Promise is awaited; when the microtasks are done and it is still pending, nothing can settle it (no timers, no event loop for the script). */
async function settle(value: unknown): Promise<unknown> {
  if (typeof value !== 'object' || value === null || typeof (value as { then?: unknown }).then !== 'function') return value;
  const pending = Symbol('pending');
  const never = new Promise((resolve) => setImmediate(() => resolve(pending)));
  const out = await Promise.race([value as Promise<unknown>, never]);
  if (out === pending) throw new Error('The function returned a Promise that never settled');
  return out;
}

async function main(): Promise<void> {
  const context = vm.createContext({}, { name: 'apps-script' });
  for (const name of ['WebAssembly', 'SharedArrayBuffer']) vm.runInContext(`delete globalThis.${name}`, context);
  const boot = vm.runInContext(BOOT, context)(invoke, () => virtualNow) as Boot;
  const globals = boot.decode(input.globals) as Record<string, unknown>;
  for (const [name, value] of Object.entries(globals)) (context as Record<string, unknown>)[name] = value;
  try {
    for (const file of input.files) vm.runInContext(file.code, context, { filename: file.name });
    const fn = (context as Record<string, unknown>)[input.fn];
    if (typeof fn !== 'function') return done({ ok: false, e: `Script function not found: ${input.fn}` });
    const args = boot.decode(input.args) as unknown[];
    const value = await settle(fn(...args));
    done({ ok: true, v: boot.encode(value) });
  } catch (e) {
    done({ ok: false, e: messageOf(e) });
  }
}

void main();
