import { n8nClock } from '../transport/clock';
import { MemoryDedupeStore, type DedupeStore } from '@company-data/core/webhooks';
import { credentialSecrets } from './secret-cache';

/**
 * Where the trigger remembers event ids. Each is a DedupeStore (packages/core/webhooks/dedupe.ts), asked with
 * checkAndAdd or newIds, which say what a duplicate is.
 *
 * - memoryCheck: per n8n process, per workflow node. Drops a redelivery before any execution starts,
 *   but is lost on restart and not shared between queue-mode webhook processes.
 * - processedDataStore: n8n's processed-data store (database table, shared by all processes, survives
 *   restarts), bounded to the newest maxEntries ids, checked by one process at a time. n8n offers it in
 *   execute() contexts; the trigger's execute() step runs inside the execution that a webhook starts.
 * - staticDataStore: for the poll trigger, whose static data n8n saves after every poll.
 */

export const DEDUPE_MAX_ENTRIES = 10_000;

const stores = new Map<string, MemoryDedupeStore>();

/** The key of one trigger node's ids: both stores keep them per workflow and node. */
export function triggerKey(ctx: { getWorkflow(): { id?: string }; getNode(): { id: string } }): string {
  return `${ctx.getWorkflow().id ?? ''}:${ctx.getNode().id}`;
}

/** n8n's answer to one delivery (an HTTP response), as far as the memory needs it. */
export interface DeliveryAnswer {
  statusCode: number;
  once(event: 'finish' | 'close', listener: () => void): unknown;
}

/**
 * This process's memory check for one delivery: a new id is recorded at once, so a copy arriving
 * meanwhile is dropped before any execution starts. The id is forgotten again when n8n's answer to
 * this delivery is not a 2xx, or never goes out: n8n answers after it queued the execution, so an
 * error answer means the event may not run (its database or Redis failed), and the service's retry
 * must not meet a memory that calls it a copy. With routing by event id that retry comes back here.
 */
export function memoryCheck(key: string, answer: DeliveryAnswer | undefined): Pick<DedupeStore, 'checkAndAdd'> {
  let store = stores.get(key);
  if (!store) {
    store = new MemoryDedupeStore({ maxEntries: DEDUPE_MAX_ENTRIES });
    stores.set(key, store);
  }
  const s = store;
  return {
    async checkAndAdd(id) {
      if (!s.checkAndAddNow(id)) return false;
      if (typeof answer?.once === 'function') {
        let finished = false;
        answer.once('finish', () => {
          finished = true;
          if (answer.statusCode < 200 || answer.statusCode >= 300) s.forget(id);
        });
        answer.once('close', () => {
          if (!finished) s.forget(id);
        });
      }
      return true;
    },
  };
}

/** Test hook: forget all process-memory ids and kept secrets, as a restart would. */
export function resetProcessMemory(): void {
  stores.clear();
  credentialSecrets.clear();
}

export interface ProcessedDataHelpers {
  checkProcessedAndRecord(
    items: Array<string | number>,
    scope: Scope,
    options: { mode: 'entries'; maxEntries?: number },
  ): Promise<{ new: Array<string | number>; processed: Array<string | number> }>;
  clearAllProcessedItems(scope: Scope, options: { mode: 'entries' }): Promise<void>;
  getProcessedDataCount(scope: Scope, options: { mode: 'entries' }): Promise<number>;
}
type Scope = 'node' | 'workflow';

export function hasProcessedData(helpers: unknown): helpers is ProcessedDataHelpers {
  const h = helpers as Partial<ProcessedDataHelpers> | undefined;
  return (
    typeof h?.checkProcessedAndRecord === 'function' &&
    typeof h.clearAllProcessedItems === 'function' &&
    typeof h.getProcessedDataCount === 'function'
  );
}

const ENTRIES = { mode: 'entries' } as const;
const PROCESSED_DATA_ATTEMPTS = 3;
/** The one entry of the turn row (the workflow-scope row of n8n's store) while a process holds the turn. */
export const TURN_ENTRY = 'company-data-trigger:turn';
/** A turn held this long (a process killed while holding it) is taken away. */
const TURN_STALE_MS = 30_000;
/** The longest pause between two tries for the turn. */
const TURN_PAUSE_MAX_MS = 20;

const isUniqueViolation = (e: unknown) => /unique|duplicate key/i.test((e as Error)?.message ?? '');
// DeduplicationHelper.validateMode: the row was written in another mode, so another node uses the slot.
const isOtherMode = (e: unknown) => /incompatible setting/i.test((e as Error)?.message ?? '');

type Turn = 'taken' | 'busy' | 'foreign';

/**
 * Takes the turn: inserts the workflow-scope row. n8n's insert of a new row is the one store operation
 * that fails atomically when another process did the same (unique key workflowId + context), so exactly
 * one process holds the turn; the others see the row and wait.
 */
async function tryTurn(h: ProcessedDataHelpers): Promise<Turn> {
  // Read before write: waiting processes only read, so the holder's writes are not slowed down.
  const count = await h.getProcessedDataCount('workflow', ENTRIES);
  if (count > 1) return 'foreign'; // the turn row holds exactly one entry
  if (count === 1) return 'busy';
  try {
    const res = await h.checkProcessedAndRecord([TURN_ENTRY], 'workflow', ENTRIES);
    return res.new.length > 0 ? 'taken' : 'busy';
  } catch (error) {
    if (isUniqueViolation(error)) return 'busy';
    if (isOtherMode(error)) return 'foreign';
    // Any other failure of the store never leaves this module: checkBatch catches it, warns, and lets the
    // events pass unchecked (the store's failure policy above). No node is at hand here to wrap it in.
    // eslint-disable-next-line @n8n/community-nodes/require-node-api-error
    throw error;
  }
}

type Warn = (message: string) => void;

/**
 * One process's side of the turn across processes (see tryTurn): waiting for it, taking over a stale one,
 * giving it back. The warning that another node uses the turn row is given once per key for the process.
 */
class TurnTaker {
  private readonly warnedForeign = new Set<string>();

  constructor(
    private readonly now: () => number,
    private readonly staleMs: number,
    private readonly pause: (ms: number) => Promise<void>,
  ) {}

  /** Waits for the turn (each try is a database round trip); false when another node uses the row. */
  async take(h: ProcessedDataHelpers, key: string, warn: Warn): Promise<boolean> {
    let since = this.now();
    for (let tries = 1; ; tries++) {
      const turn = await tryTurn(h);
      if (turn === 'taken') return true;
      if (turn === 'foreign') {
        this.warnForeignOnce(key, warn);
        return false;
      }
      if (this.now() - since > this.staleMs) {
        warn(
          `the turn to check events was held for over ${Math.round(this.staleMs / 1000)} s (a process stopped while holding it); taking it over`,
        );
        await h.clearAllProcessedItems('workflow', ENTRIES);
        since = this.now();
        continue;
      }
      // A turn lasts a few database round trips: a short, growing pause keeps waiting processes from
      // asking the database without end during a burst.
      await this.pause(Math.min(2 * tries, TURN_PAUSE_MAX_MS));
    }
  }

  /** Gives the turn back; should that fail, the next process takes it over once it is stale. */
  async giveBack(h: ProcessedDataHelpers, warn: Warn): Promise<void> {
    await h
      .clearAllProcessedItems('workflow', ENTRIES)
      .catch((error: unknown) =>
        warn(
          `could not give back the turn to check events (${(error as Error).message}); it is taken over after ${Math.round(this.staleMs / 1000)} s`,
        ),
      );
  }

  private warnForeignOnce(key: string, warn: Warn): void {
    if (this.warnedForeign.has(key)) return;
    this.warnedForeign.add(key);
    warn(
      "another node of this workflow uses n8n's workflow-wide duplicate store (a Remove Duplicates node with scope Workflow?), so n8n processes cannot take turns checking events: set that node's scope to Node",
    );
  }
}

async function checkAndRecord(h: ProcessedDataHelpers, ids: string[], maxEntries: number): Promise<Set<string>> {
  let lastError: unknown;
  for (let attempt = 1; attempt <= PROCESSED_DATA_ATTEMPTS; attempt++) {
    try {
      const res = await h.checkProcessedAndRecord(ids, 'node', { mode: 'entries', maxEntries });
      return new Set(res.new.map(String));
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError;
}

interface Waiter {
  helpers: ProcessedDataHelpers;
  ids: string[];
  warn: Warn;
  settle(fresh: Set<string>): void;
}

/** One turn for the ids of every waiter in `batch`; the helpers of its first waiter, whose execution is still running, do the work. */
async function checkBatch(turns: TurnTaker, key: string, batch: Waiter[]): Promise<Set<string>> {
  const { helpers, warn } = batch[0]!;
  const ids = [...new Set(batch.flatMap((w) => w.ids))];
  let turn = false;
  try {
    turn = await turns.take(helpers, key, warn);
    return await checkAndRecord(helpers, ids, DEDUPE_MAX_ENTRIES);
  } catch (error) {
    warn(
      `n8n's processed-data store failed (${(error as Error)?.message ?? String(error)}); events ${ids.join(', ')} pass on unchecked for repeats`,
    );
    return new Set(ids);
  } finally {
    if (turn) await turns.giveBack(helpers, warn);
  }
}

/**
 * The store of one n8n process (tests make one per simulated process).
 *
 * n8n's processed-data store keeps all ids of a node in ONE row and updates it by read, change, write
 * with no lock (DeduplicationHelper.handleHashedItems): two processes updating it at once both read
 * the old list, and the later write drops the ids of the earlier one; two checking the same id at once
 * both find it new. So every check of the node's ids runs inside a turn that only one process holds at
 * a time: processes take turns through the workflow-scope row (see tryTurn and TurnTaker), and within a
 * process the calls that arrive while a turn is awaited or held wait together and are checked in the next
 * turn as one batch. A worker running ten executions at once thus takes one turn for all ten instead of ten
 * turns in a row, which is what bounds events per second in a burst. Should the store fail, every id
 * counts as new and `warn` says so: an alert delivered twice is better than one lost.
 */
export function processedDataStore({
  now = () => Date.now(),
  staleMs = TURN_STALE_MS,
  pause = (ms: number): Promise<void> => n8nClock().sleep(ms),
} = {}) {
  const turns = new TurnTaker(now, staleMs, pause);
  const waiting = new Map<string, Waiter[]>();

  /** Checks batches for `key` until no call waits; the calls that arrive meanwhile form the next batch. */
  async function drain(key: string, queue: Waiter[]): Promise<void> {
    while (queue.length > 0) {
      const batch = queue.splice(0);
      // checkBatch handles the store's failures itself; this only keeps callers from waiting forever on a bug.
      const fresh = await checkBatch(turns, key, batch).catch(() => new Set(batch.flatMap((w) => w.ids)));
      // Two copies of one event in one batch: the first call gets it, the later ones see a repeat.
      for (const w of batch) w.settle(new Set(w.ids.filter((id) => fresh.delete(id))));
    }
    waiting.delete(key);
  }

  /** Ids among `ids` not recorded before; records them. Scope 'node': one list per trigger node. */
  return function newIds(helpers: ProcessedDataHelpers, key: string, ids: string[], warn: Warn): Promise<Set<string>> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return Promise.resolve(new Set());
    return new Promise((settle) => {
      const waiter = { helpers, ids: unique, warn, settle };
      const queue = waiting.get(key);
      if (queue) return void queue.push(waiter);
      const first = [waiter];
      waiting.set(key, first);
      void drain(key, first);
    });
  };
}

/** This process's store, used by the trigger node. */
export const newIdsInProcessedData = processedDataStore();

/**
 * n8n's processed-data store as a DedupeStore for one trigger node (`key`) in one execution
 * (`helpers`): checkAndAddMany is one batched turn (processedDataStore). The trigger only ever checks
 * and records together, so has() and add() are left out (each would cost a turn of its own).
 */
export function processedDataDedupe(
  helpers: ProcessedDataHelpers,
  key: string,
  warn: (message: string) => void,
  newIdsIn = newIdsInProcessedData,
): Pick<DedupeStore, 'checkAndAdd' | 'checkAndAddMany'> {
  const checkAndAddMany = (ids: readonly string[]) => newIdsIn(helpers, key, [...ids], warn);
  return {
    checkAndAdd: async (id) => (await checkAndAddMany([id])).has(id),
    checkAndAddMany,
  };
}

export const STATIC_SEEN_MAX = 2_000;

/**
 * The poll trigger's seen ids: a MemoryDedupeStore (the newest `max`, no age limit: the poll only
 * meets an id again while it is near the cursor) filled from the list in its static data. commit()
 * writes the list back with a top-level assignment, which n8n's change tracking of static data always notices.
 */
export function staticDataStore(state: { seen?: unknown }, max = STATIC_SEEN_MAX): { store: MemoryDedupeStore; commit(): void } {
  const ids = Array.isArray(state.seen) ? state.seen.filter((x): x is string => typeof x === 'string') : [];
  const store = new MemoryDedupeStore({ maxEntries: max, ttlMs: Infinity, ids });
  return {
    store,
    commit() {
      state.seen = store.ids();
    },
  };
}
