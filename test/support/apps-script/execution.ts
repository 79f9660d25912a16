/**
 * One execution in the test's thread: starts its worker (worker.ts, bundled once by esbuild), answers its
 * service calls (the facades), keeps its virtual time, and ends it: when the function returns or throws,
 * when a service call comes past the time limit ("Exceeded maximum execution time": the script can't
 * catch it, Google ends the execution), or when the world closes.
 */
import { buildSync } from 'esbuild';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MessageChannel, Worker } from 'node:worker_threads';
import { MESSAGES, ScriptException } from './errors';
import type { AuthMode, Exec, WorldState } from './execution-context';
import { Facade, HandleTable, methodsOf } from './facade';
import { LockServiceFacade } from './lock-service';
import { ConsoleFacade, LoggerFacade, SessionFacade } from './logging';
import { CacheServiceFacade, PropertiesServiceFacade } from './properties';
import type { CallMessage, DoneMessage, Reply, WorkerInput } from './protocol';
import { ScriptAppService } from './script-app';
import { SpreadsheetAppService } from './spreadsheet-app';
import { HtmlServiceFacade } from './ui';
import { UrlFetchAppService } from './url-fetch';
import { UtilitiesService } from './utilities';

export interface ExecutionResult {
  ok: boolean;
  value?: unknown;
  error?: string;
  virtualMs: number;
  fetches: number;
  logs: string[];
}

export interface ExecutionSettings {
  user: string;
  trigger: boolean;
  activeSheet?: string;
  authMode: AuthMode;
  limitMs: number;
  realTimeLimitMs: number;
  onServiceCall?: (call: { service: string; method: string; count: number; user: string }) => void;
}

function workerPath(): string {
  try {
    const here = fileURLToPath(new URL('./worker.ts', import.meta.url));
    if (existsSync(here)) return here;
  } catch {
    // bundled as CommonJS (the benchmarks): import.meta.url is empty; the repository root is the cwd
  }
  return join(process.cwd(), 'test/support/apps-script/worker.ts');
}

let workerCode: string | undefined;
function workerSource(): string {
  workerCode ??= buildSync({
    entryPoints: [workerPath()],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    write: false,
    logLevel: 'error',
  }).outputFiles[0]!.text;
  return workerCode;
}

const messageOf = (e: unknown) => (e instanceof Error ? e.message : String(e));

export class Execution implements Exec {
  readonly logs: string[] = [];
  readonly cache = new Map<string, { value: string; expires: number }>();
  readonly handles = new HandleTable();
  fetches = 0;
  private elapsed = 0;
  private readonly startedAt: number;
  private counts = new Map<string, number>();
  private worker?: Worker;
  private finished = false;
  private resolveDone!: (r: ExecutionResult) => void;
  readonly done = new Promise<ExecutionResult>((r) => (this.resolveDone = r));
  private readonly signal = new SharedArrayBuffer(4);
  private readonly channel = new MessageChannel();
  private realTimer?: NodeJS.Timeout;

  constructor(
    readonly id: number,
    readonly world: WorldState & { now(): number; sawTime(t: number): void; ended(e: Execution): void },
    private settings: ExecutionSettings,
  ) {
    this.startedAt = world.now();
  }
  get user() {
    return this.settings.user;
  }
  get authMode() {
    return this.settings.authMode;
  }
  get trigger() {
    return this.settings.trigger;
  }
  get activeSheet() {
    return this.settings.activeSheet;
  }
  now(): number {
    return this.startedAt + this.elapsed;
  }
  advance(ms: number): void {
    this.elapsed += ms;
    this.world.sawTime(this.now());
  }
  reach(t: number): void {
    if (t > this.now()) this.advance(t - this.now());
  }
  require(what: string, scope: string | string[]): void {
    const scopes = Array.isArray(scope) ? scope : [scope];
    const label = scopes.join(', ') || 'authorization';
    if (this.authMode === 'NONE') throw new ScriptException(MESSAGES.notPermittedCall(what, label));
    const granted = this.world.scopes;
    if (granted && scopes.length && !scopes.some((s) => granted.includes(s)))
      throw new ScriptException(MESSAGES.notPermittedCall(what, label));
  }

  private globals(): Record<string, Facade> {
    return {
      SpreadsheetApp: new SpreadsheetAppService(this),
      UrlFetchApp: new UrlFetchAppService(this),
      PropertiesService: new PropertiesServiceFacade(this),
      CacheService: new CacheServiceFacade(this),
      LockService: new LockServiceFacade(this),
      ScriptApp: new ScriptAppService(this),
      Utilities: new UtilitiesService(this),
      HtmlService: new HtmlServiceFacade(this),
      Session: new SessionFacade(this),
      Logger: new LoggerFacade(this),
      console: new ConsoleFacade(this),
    };
  }

  start(files: { name: string; code: string }[], fn: string, args: unknown[]): Promise<ExecutionResult> {
    const globals = Object.fromEntries(Object.entries(this.globals()).map(([name, f]) => [name, this.handles.register(f, name)]));
    const input: WorkerInput = {
      signal: this.signal,
      port: this.channel.port2,
      files,
      fn,
      args: this.handles.encode(args),
      globals: JSON.stringify(globals),
      now: this.now(),
    };
    const worker = new Worker(workerSource(), { eval: true, workerData: input, transferList: [this.channel.port2] });
    this.worker = worker;
    worker.on('message', (m: CallMessage | DoneMessage) => {
      if (m.kind === 'done') this.finish(m.ok ? { ok: true, value: this.handles.decode(m.v) } : { ok: false, error: m.e });
      else this.serve(m).catch((e: unknown) => this.finish({ ok: false, error: `stand-in: ${messageOf(e)}` }));
    });
    worker.on('error', (e) => this.finish({ ok: false, error: messageOf(e) }));
    worker.on('exit', (code) =>
      this.finish({ ok: false, error: `stand-in: the execution's worker exited (code ${code}) without an answer` }),
    );
    this.realTimer = setTimeout(
      () => this.finish({ ok: false, error: `stand-in: the execution ran over ${this.settings.realTimeLimitMs} ms of real time` }),
      this.settings.realTimeLimitMs,
    );
    return this.done;
  }

  private async serve(m: CallMessage): Promise<void> {
    const target = this.handles.get(m.h);
    const service = target?._type ?? String(m.h);
    const key = `${service}.${m.m}`;
    const count = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, count);
    this.settings.onServiceCall?.({ service, method: m.m, count, user: this.user });
    if (this.elapsed > this.settings.limitMs) return this.finish({ ok: false, error: MESSAGES.timeLimit });
    let reply: Reply;
    try {
      if (!target || !methodsOf(target).includes(m.m)) throw new ScriptException(`${key} is not a function`);
      const args = this.handles.decode(m.a) as unknown[];
      const value: unknown = await (target as unknown as Record<string, (...a: unknown[]) => unknown>)[m.m]!(...args);
      reply = { seq: m.seq, now: this.now(), v: this.handles.encode(value) };
    } catch (e) {
      reply = { seq: m.seq, now: this.now(), e: messageOf(e) };
    }
    if (this.finished) return;
    this.channel.port1.postMessage(reply);
    const flag = new Int32Array(this.signal);
    Atomics.store(flag, 0, 1);
    Atomics.notify(flag, 0);
  }

  finish(r: Omit<ExecutionResult, 'virtualMs' | 'fetches' | 'logs'>): void {
    if (this.finished) return;
    this.finished = true;
    clearTimeout(this.realTimer);
    this.world.ended(this);
    this.channel.port1.close();
    void this.worker?.terminate().catch(() => undefined);
    this.resolveDone({ ...r, virtualMs: this.elapsed, fetches: this.fetches, logs: this.logs });
  }

  async kill(reason: string): Promise<void> {
    this.finish({ ok: false, error: reason });
    await this.worker?.terminate().catch(() => undefined);
  }
}
