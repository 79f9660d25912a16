/**
 * A strict stand-in of Google Apps Script for one spreadsheet (the contract: APPS-SCRIPT-HARNESS.md).
 * Each run is an execution in a worker thread with a fresh global scope (execution.ts, worker.ts); the
 * services live here, in the test's thread: the spreadsheet (spreadsheet-model.ts), properties and
 * triggers persist across executions, nothing else does. Time is virtual: a clock shared by all
 * executions, moved by UrlFetchApp (fetchLatencyMs a request), Utilities.sleep and lock waits.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { TriggerData, UiRecord, WorldState } from './execution-context';
import { Execution, type ExecutionResult } from './execution';
import { LockTable } from './lock-service';
import { MESSAGES } from './errors';
import { OWNER, Spreadsheet, type SpreadsheetModel } from './spreadsheet-model';

export type { ExecutionResult } from './execution';
export type { SpreadsheetModel, AddSheetOptions } from './spreadsheet-model';
export { MESSAGES };

export interface RunOptions {
  /** Default 'owner@example.com'; properties and locks are per user/document. */
  user?: string;
  /** Run as a time-driven trigger: getUi() throws, the active sheet is the first. */
  trigger?: boolean;
  /** For menu/sidebar runs: which sheet is active. */
  activeSheet?: string;
  /** onOpen may be NONE: PropertiesService, UrlFetchApp, ScriptApp (and the spreadsheet) throw. */
  authMode?: 'NONE' | 'LIMITED' | 'FULL';
}

export interface AppsScriptWorld {
  readonly spreadsheet: SpreadsheetModel;
  readonly clock: { now(): number; advance(ms: number): void };
  run(fn: string, args?: unknown[], opts?: RunOptions): Promise<ExecutionResult>;
  /** Advances the virtual clock to the earliest due time-driven trigger and runs its handler. undefined when none. */
  runNextTrigger(): Promise<ExecutionResult | undefined>;
  triggers(): { handler: string; user: string; dueAt?: number; everyHours?: number }[];
  userProperties(user?: string): Record<string, string>;
  documentProperties(): Record<string, string>;
  /** Menus added, sidebars and dialogs shown, toasts and alerts (the stand-in's own addition). */
  readonly ui: UiRecord;
  /** Executions finished so far (the stand-in's own addition: benchmarks count them). */
  readonly executions: number;
  close(): Promise<void>;
}

export interface WorldOptions {
  /** The built .js files, evaluated in file-name order in ONE fresh global scope per execution; .html files serve HtmlService; an appsscript.json's oauthScopes are enforced. */
  files: string[];
  /** Virtual ms each UrlFetchApp request costs (fetchAll: the max of its batch); default 0. */
  fetchLatencyMs?: number;
  /** Default 20,000 (consumer). */
  urlFetchDailyQuota?: number;
  /** Default 360,000: past it, the next service call ends the execution with "Exceeded maximum execution time". */
  executionLimitMs?: number;
  /** Called (in the test's thread) before each service call; lets a test play a colleague editing mid-run. count: this method's calls so far in the execution, this one included. */
  onServiceCall?: (call: { service: string; method: string; count: number; user: string }) => void;
  /** Add-on limits on triggers (one per type per user per document, hourly at most); default true. */
  addon?: boolean;
  /** Virtual start time; default 2026-11-20T09:00:00Z (the sandbox's today). */
  start?: number;
  /** The stand-in's guard against a script that never returns, in real ms; default 120,000. */
  realTimeLimitMs?: number;
  /** Triggers' total runtime a day per user (Google's quota: 90 minutes for a consumer account, 6 hours for Workspace); default 90 minutes. */
  triggerRuntimeDailyMs?: number;
  /** Simultaneous executions per user (Google's quota: 30). */
  maxSimultaneousExecutions?: number;
}

/** An execution Google does not start. */
const refused = (error: string): ExecutionResult => ({ ok: false, error, virtualMs: 0, fetches: 0, logs: [] });

const DEFAULT_START = Date.UTC(2026, 10, 20, 9, 0, 0);

export function createAppsScriptWorld(opts: WorldOptions): AppsScriptWorld {
  return new World(opts);
}

class World implements AppsScriptWorld {
  readonly spreadsheet = new Spreadsheet();
  readonly userStores = new Map<string, Map<string, string>>();
  readonly documentStore = new Map<string, string>();
  readonly scriptStore = new Map<string, string>();
  readonly triggerList: TriggerData[] = [];
  readonly ui: UiRecord = { menus: [], sidebars: [], dialogs: [], toasts: [], alerts: [] };
  readonly htmlFiles = new Map<string, string>();
  readonly fetchCounts = new Map<string, { since: number; count: number }>();
  readonly scopes?: string[];
  readonly addon: boolean;
  readonly fetchLatencyMs: number;
  readonly urlFetchDailyQuota: number;
  readonly locks: LockTable;
  executions = 0;
  private worldNow: number;
  private running = new Set<Execution>();
  private scripts: { name: string; code: string }[] = [];
  private ids = 0;
  private closed = false;
  /** Trigger runtime per user in the current 24-hour window. */
  private triggerRuntime = new Map<string, { since: number; ms: number }>();
  readonly clock = { now: () => this.worldNow, advance: (ms: number) => this.sawTime(this.worldNow + ms) };

  constructor(private opts: WorldOptions) {
    this.worldNow = opts.start ?? DEFAULT_START;
    this.addon = opts.addon ?? true;
    this.fetchLatencyMs = opts.fetchLatencyMs ?? 0;
    this.urlFetchDailyQuota = opts.urlFetchDailyQuota ?? 20_000;
    this.locks = new LockTable(
      () => this.running,
      () => this.worldNow,
      (t) => this.sawTime(t),
    );
    for (const file of [...opts.files].sort((a, b) => basename(a).localeCompare(basename(b)))) {
      const name = basename(file);
      const text = readFileSync(file, 'utf8');
      if (name === 'appsscript.json') this.scopes = (JSON.parse(text) as { oauthScopes?: string[] }).oauthScopes;
      else if (name.endsWith('.html')) this.htmlFiles.set(name.slice(0, -5), text);
      else if (name.endsWith('.js') || name.endsWith('.gs')) this.scripts.push({ name, code: text });
    }
  }

  triggers(): { handler: string; user: string; dueAt?: number; everyHours?: number }[] {
    return this.triggerList.map((t) => ({
      handler: t.handler,
      user: t.user,
      dueAt: t.dueAt,
      ...(t.everyMs ? { everyHours: t.everyMs / 3_600_000 } : {}),
    }));
  }

  nextUid(): string {
    return String(1_000_000 + ++this.ids);
  }
  now(): number {
    return this.worldNow;
  }
  sawTime(t: number): void {
    if (t <= this.worldNow) return;
    this.worldNow = t;
    this.locks.expire();
  }
  ended(e: Execution): void {
    this.running.delete(e);
    this.executions++;
    this.locks.releaseAll(e);
  }

  run(fn: string, args: unknown[] = [], o: RunOptions = {}): Promise<ExecutionResult> {
    if (this.closed) return Promise.reject(new Error('the Apps Script world is closed'));
    const user = o.user ?? OWNER;
    const mine = [...this.running].filter((e) => e.user === user).length;
    if (mine >= (this.opts.maxSimultaneousExecutions ?? 30)) return Promise.resolve(refused(MESSAGES.tooManySimultaneous));
    const exec = new Execution(++this.ids, this, {
      user: o.user ?? OWNER,
      trigger: !!o.trigger,
      activeSheet: o.activeSheet,
      authMode: o.authMode ?? 'FULL',
      limitMs: this.opts.executionLimitMs ?? 360_000,
      realTimeLimitMs: this.opts.realTimeLimitMs ?? 120_000,
      onServiceCall: this.opts.onServiceCall,
    });
    this.running.add(exec);
    return exec.start(this.scripts, fn, args);
  }

  async runNextTrigger(): Promise<ExecutionResult | undefined> {
    const due = this.triggerList
      .filter((t) => t.source === 'CLOCK' && t.dueAt !== undefined)
      .sort((a, b) => (a.dueAt as number) - (b.dueAt as number))[0];
    if (!due) return undefined;
    const at = due.dueAt as number;
    this.sawTime(at);
    due.dueAt = due.everyMs ? at + due.everyMs : undefined;
    const d = new Date(this.worldNow);
    const event = {
      authMode: 'FULL',
      triggerUid: due.uid,
      year: d.getUTCFullYear(),
      month: d.getUTCMonth() + 1,
      'day-of-month': d.getUTCDate(),
      hour: d.getUTCHours(),
      minute: d.getUTCMinutes(),
      second: d.getUTCSeconds(),
      timezone: 'UTC',
    };
    const spent = this.runtimeOf(due.user);
    if (spent.ms >= (this.opts.triggerRuntimeDailyMs ?? 90 * 60_000)) return refused(MESSAGES.triggerRuntime);
    const r = await this.run(due.handler, [event], { user: due.user, trigger: true });
    spent.ms += r.virtualMs;
    return r;
  }

  private runtimeOf(user: string): { since: number; ms: number } {
    let t = this.triggerRuntime.get(user);
    if (!t || this.worldNow - t.since >= 24 * 3_600_000) this.triggerRuntime.set(user, (t = { since: this.worldNow, ms: 0 }));
    return t;
  }

  userProperties(user = OWNER): Record<string, string> {
    return Object.fromEntries(this.userStores.get(user) ?? []);
  }
  documentProperties(): Record<string, string> {
    return Object.fromEntries(this.documentStore);
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.running].map((e) => e.kill('The Apps Script world was closed')));
  }
}

export type { WorldState };
