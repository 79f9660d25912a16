/**
 * What the Sheets engine needs from the world, and nothing more. The engine (enrich, the Google Sheets
 * table, the events writer) is pure code in the core; the CLI fills these ports with files, timers,
 * undici and google-auth-library (packages/company-data/src/sheets), the n8n node with n8n's helpers
 * and credential. Every port is small on purpose: an adapter is a few lines.
 *
 * The HTTP transport is the core's own (packages/core/transport.ts): the Google table sends Sheets REST
 * v4 through it, as the client sends the service's requests.
 */
import type { LookupCache } from '../bulk-lookup';
import type { Lang } from '../schemas/common';
import type { Clock } from '../transport';
import type { LeaseSheets } from './lease/port';

export type { Transport, TransportRequest, TransportResponse } from '../transport';

/**
 * Time, and waiting that can be called off. `sleep` resolves after `ms`, or at once when `signal`
 * aborts (it resolves then, never rejects: the caller looks at what woke it). A save loop waits on it
 * for "the next save is due" and aborts it when answers arrive or the run ends.
 */
export interface SheetsClock extends Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * Optional: starts measuring how long this process was busy (blocking its event loop, not waiting)
   * and returns a function giving the milliseconds busy since. A save that blocks (an XLSX file written)
   * spaces the next one by 50 times that; without it saves are spaced by the table's saveEveryMs only.
   * The CLI measures with performance.eventLoopUtilization.
   */
  busy?(): () => number;
}

/** Which answers a store may give: those paid for under the same service, table and options. */
export interface AnswerScope {
  /** The table's identity (Table.id): the progress of an interrupted run belongs to it. */
  tableId: string;
  /** Which service answered (its base URL): answers of different services are never mixed. */
  service: string;
  /** Matches per query the answers were asked with. */
  limit: number;
  lang?: Lang;
  /** Reuse answers paid for in earlier runs when younger than this many days (default 30; 0: never). */
  maxAgeDays?: number;
  /** Milliseconds since the epoch, for the answers' age (the engine's clock). */
  now(): number;
}

/**
 * Where paid answers are kept, so nothing paid for is paid again: the progress of this table's run
 * (answers paid for but not yet saved to the table; the CLI's resume journal) and the answers of
 * earlier runs (the CLI's answer cache). It is the lookup pipeline's cache (resolveLookups), so its
 * reads are synchronous: an adapter loads what it needs in `open` (or `prepare`, told every key once).
 * `record` is called as each paid request's answers arrive, before they reach the table: an adapter
 * makes them durable there (the CLI appends and fsyncs).
 */
export interface PaidAnswerStore extends LookupCache {
  /** Distinct queries answered so far from this table's progress / from earlier runs' answers. */
  readonly fromJournal: number;
  readonly fromCache: number;
  /** Which of these keys have a free answer, without counting them as used. */
  free(keys: readonly string[]): string[];
  /**
   * The run is over. keepProgress: it did not finish (interrupted, failed), so this table's progress
   * must outlive it; else the progress may go (every answer is in the table now). Answers of earlier
   * runs are kept either way.
   */
  finish(keepProgress: boolean): void | Promise<void>;
  /** Where the answers are kept, for the user ("~/.company-data/state"): named by a failed run's report. */
  readonly location: string;
}

/** Opens the store of one run. May be async (an adapter that loads from a database first). */
export type OpenAnswerStore = (scope: AnswerScope) => PaidAnswerStore | Promise<PaidAnswerStore>;

/** What a table is, to a lock: its identity, its label for messages, and the file it saves to (file tables). */
export interface LockedTable {
  readonly id: string;
  readonly label: string;
  readonly file?: string;
  /**
   * A table in a spreadsheet others share (Google Sheets): where its sheet's lease is kept, the lock
   * every door and machine sees (lease/lease.ts). withSheetLease takes it beside the door's own lock.
   */
  leaseTarget?(): Promise<{ sheets: LeaseSheets; sheetTitle: string }>;
}

/** A lock held; released once, when the writer is done. */
export interface HeldLock {
  release(): void | Promise<void>;
  /**
   * A lock that can be lost while held (a sheet's lease, taken over once it expired): the error that
   * ends the writer, else undefined. Asked before each paid request (synchronous: the limiter asks it).
   */
  lost?(): Error | undefined;
  /** The same before each write, renewing the lock when due: throws once it is lost. */
  check?(): Promise<void>;
}

/**
 * One writer per table, whoever starts it (enrich, events-to-sheet, either twice). `acquire` takes the
 * lock or throws an error naming who holds it; it never waits for it. `alsoGuards` names further things
 * the writer owns (the events writer's ledger), locked with the table. The CLI locks with files in a
 * folder per machine; n8n, whose executions of one workflow may run on several workers, with what it has
 * (a workflow's static data, or none: a node may pass no lock and say so in its docs). Across doors
 * and machines, withSheetLease (lease/lease-locks.ts) adds the lease the spreadsheet itself holds.
 */
export interface WriterLocks {
  acquire(table: LockedTable, alsoGuards?: readonly string[]): HeldLock | Promise<HeldLock>;
}

/**
 * Google's access token, from wherever the caller signs in: google-auth-library in the CLI (a service
 * account key, a signed-in account, an access token), n8n's credential in the node.
 * Optional for the Google table: a transport that signs its own requests (n8n's authenticated request
 * helper with the user's OAuth2 credential) carries the auth itself, and the table sends none.
 */
export interface GoogleTokenSource {
  /** Headers that authorize one request, e.g. { authorization: 'Bearer …' }. Never logged or put in errors. */
  authorize(): Promise<Record<string, string>>;
  /**
   * The token was refused (401): drop it, so the next authorize() gets a new one. False when it cannot be
   * renewed (a bare access token): the 401 is then reported with on401. Errors of the sign-in itself
   * (a revoked key) are thrown as they are, worded for the user.
   */
  renew(): Promise<boolean>;
  /** The service account's email, when one signs in: the address to share a spreadsheet with, in messages. */
  readonly account?: string;
  /** What a 401 that survives renew means for these credentials, in the user's words. */
  readonly on401?: string;
}

/**
 * Durable record of which events are in a sheet (the events writer's ledger; the CLI keeps it in a
 * JSON-lines file). Each method that records returns once what it recorded survives a crash.
 *   begin: an event's rows are about to be appended (they are kept, to be appended again after a crash);
 *          beginMany: the same for a batch of events appended together
 *   finish: the sheet accepted them
 *   setCursor: the poll position (the last event stored)
 * A begin without finish is "pending": on open the writer settles it with the sheet's event_id column.
 */
export interface EventLedgerStore {
  readonly done: ReadonlySet<string>;
  readonly pending: ReadonlyMap<string, LedgerRows>;
  readonly cursor: string | undefined;
  /** Older done ids were dropped by a compaction: ids in the sheet but not here are expected. */
  readonly compacted: boolean;
  /** Bytes the ledger takes, for compaction; 0 when the store does not grow. */
  readonly size: number;
  /** Reads it again (the writer calls it once it holds the lock). */
  load(): void | Promise<void>;
  begin(id: string, rows: LedgerRows): void | Promise<void>;
  /**
   * Optional: the intent of a batch of events in one durable write (the CLI: one fsync for the batch);
   * without it the writer calls begin for each.
   */
  beginMany?(entries: readonly { id: string; rows: LedgerRows }[]): void | Promise<void>;
  finish(id: string): void | Promise<void>;
  finishMany(ids: readonly string[]): void | Promise<void>;
  setCursor(after: string): void | Promise<void>;
  /** Keeps the newest keepDone done ids, every pending event and the cursor. */
  compact(keepDone: number): LedgerCompaction | Promise<LedgerCompaction>;
  close(): void | Promise<void>;
}

export interface LedgerCompaction {
  bytesBefore: number;
  bytesAfter: number;
  /** Done ids left out (older than the window). */
  dropped: number;
}

/**
 * An event's rows as a ledger holds them until they are in the sheet: column name → text, so a restart
 * after the user moved, added or deleted columns still puts each value under its header. Ledgers of
 * older versions kept arrays in the sheet's column order: read as they are.
 */
export type LedgerRows = readonly Readonly<Record<string, string>>[] | readonly (readonly string[])[];
