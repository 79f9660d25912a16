/** What a service facade knows of the execution calling it and of the world that persists around it. */
import type { Spreadsheet } from './spreadsheet-model';

export type AuthMode = 'NONE' | 'LIMITED' | 'FULL';

export interface TriggerData {
  uid: string;
  handler: string;
  user: string;
  source: 'CLOCK' | 'SPREADSHEETS';
  eventType: string;
  /** Time-driven: when it runs next; undefined once a one-off trigger has run. */
  dueAt?: number;
  everyMs?: number;
}

export interface UiRecord {
  menus: { name: string; items: { caption: string; functionName: string }[] }[];
  sidebars: { user: string; title: string; html: string }[];
  dialogs: { user: string; title: string; html: string }[];
  toasts: string[];
  alerts: string[];
}

/** The world's persistent parts and its shared machinery, as the facades reach them. */
export interface WorldState {
  readonly spreadsheet: Spreadsheet;
  readonly userStores: Map<string, Map<string, string>>;
  readonly documentStore: Map<string, string>;
  readonly scriptStore: Map<string, string>;
  readonly triggerList: TriggerData[];
  readonly ui: UiRecord;
  /** The project's HTML files by name without extension (HtmlService.createHtmlOutputFromFile). */
  readonly htmlFiles: Map<string, string>;
  /** The manifest's oauthScopes; undefined when no appsscript.json was given (nothing is checked). */
  readonly scopes?: string[];
  readonly addon: boolean;
  readonly fetchLatencyMs: number;
  readonly urlFetchDailyQuota: number;
  /** UrlFetch calls per user in the current 24-hour window. */
  readonly fetchCounts: Map<string, { since: number; count: number }>;
  readonly locks: LockTableLike;
  nextUid(): string;
}

export interface LockTableLike {
  holds(scope: string, exec: Exec): boolean;
  acquire(scope: string, exec: Exec, timeoutMs: number): Promise<boolean>;
  release(scope: string, exec: Exec): void;
}

/** One execution as the facades see it. */
export interface Exec {
  readonly id: number;
  readonly user: string;
  readonly authMode: AuthMode;
  readonly trigger: boolean;
  readonly activeSheet?: string;
  readonly world: WorldState;
  readonly logs: string[];
  fetches: number;
  now(): number;
  /** Moves this execution's virtual time on (and the world's clock with it). */
  advance(ms: number): void;
  /** Sets this execution's virtual time to at least t (a wait that ended then). */
  reach(t: number): void;
  /** Throws as Google does when the call is out of the execution's reach (AuthMode.NONE, a scope the manifest lacks). */
  require(what: string, scope: string | string[]): void;
  /** Per-execution cache (CacheService: evicted between executions in this stand-in). */
  readonly cache: Map<string, { value: string; expires: number }>;
}

export const SCOPES = {
  currentOnly: 'https://www.googleapis.com/auth/spreadsheets.currentonly',
  spreadsheets: 'https://www.googleapis.com/auth/spreadsheets',
  external: 'https://www.googleapis.com/auth/script.external_request',
  containerUi: 'https://www.googleapis.com/auth/script.container.ui',
  scriptApp: 'https://www.googleapis.com/auth/script.scriptapp',
};
