import { MemoryDedupeStore } from '../../webhooks';

/**
 * Where the trigger remembers event ids.
 *
 * - processMemory: per n8n process, per workflow node. Drops a redelivery before any execution starts,
 *   but is lost on restart and not shared between queue-mode webhook processes.
 * - n8nProcessedData: n8n's processed-data store (database table, shared by all processes, survives
 *   restarts), bounded to the newest maxEntries ids. n8n offers it in execute() contexts; the
 *   trigger's execute() step runs inside the execution that a webhook starts (see the node).
 * - staticDataRing: for the poll trigger, whose static data n8n saves after every poll.
 */

export const DEDUPE_MAX_ENTRIES = 10_000;

const stores = new Map<string, MemoryDedupeStore>();

/** The key of one trigger node's ids: both stores keep them per workflow and node. */
export function triggerKey(ctx: { getWorkflow(): { id?: string }; getNode(): { id: string } }): string {
  return `${ctx.getWorkflow().id ?? ''}:${ctx.getNode().id}`;
}

export function processMemory(key: string): (id: string) => Promise<boolean> {
  let store = stores.get(key);
  if (!store) {
    store = new MemoryDedupeStore({ maxEntries: DEDUPE_MAX_ENTRIES });
    stores.set(key, store);
  }
  const s = store;
  return (id) => s.checkAndAdd(id);
}

/** Test hook: forget all process-memory ids, as a restart would. */
export function resetProcessMemory(): void {
  stores.clear();
}

export interface ProcessedDataHelpers {
  checkProcessedAndRecord(items: Array<string | number>, scope: 'node' | 'workflow', options: { mode: 'entries'; maxEntries?: number }): Promise<{ new: Array<string | number>; processed: Array<string | number> }>;
}

export function hasProcessedData(helpers: unknown): helpers is ProcessedDataHelpers {
  return typeof (helpers as Partial<ProcessedDataHelpers> | undefined)?.checkProcessedAndRecord === 'function';
}

/** Calls with the same key run one after another in this process; other keys do not wait. */
const queues = new Map<string, Promise<void>>();
function oneAtATime<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const run = (queues.get(key) ?? Promise.resolve()).then(fn);
  const tail = run.then(
    () => undefined,
    () => undefined,
  );
  queues.set(key, tail);
  void tail.then(() => {
    if (queues.get(key) === tail) queues.delete(key);
  });
  return run;
}

const PROCESSED_DATA_ATTEMPTS = 3;

/**
 * Ids among `ids` not recorded before; records them. Scope 'node': one store per trigger node.
 *
 * n8n's store is read-modify-write with no lock: two executions of one node that check at once both
 * find no row and both insert it (the second fails on the unique key), or both update it and one
 * id is lost. So calls for one node (`key`) take turns within this process, and a failed call is
 * tried again, which finds the row another process has just inserted. Should the store still fail,
 * every id counts as new and `warn` says so: an alert delivered twice is better than one lost.
 */
export async function newIdsInProcessedData(helpers: ProcessedDataHelpers, key: string, ids: string[], warn: (message: string) => void): Promise<Set<string>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Set();
  return oneAtATime(key, async () => {
    let lastError: unknown;
    for (let attempt = 1; attempt <= PROCESSED_DATA_ATTEMPTS; attempt++) {
      try {
        const res = await helpers.checkProcessedAndRecord(unique, 'node', { mode: 'entries', maxEntries: DEDUPE_MAX_ENTRIES });
        return new Set(res.new.map(String));
      } catch (error) {
        lastError = error;
      }
    }
    warn(`n8n's processed-data store failed ${PROCESSED_DATA_ATTEMPTS} times (${(lastError as Error)?.message ?? String(lastError)}); events ${unique.join(', ')} pass on unchecked for repeats`);
    return new Set(unique);
  });
}

export const STATIC_SEEN_MAX = 2_000;

/**
 * Bounded list of seen ids in the poll trigger's static data. commit() writes the list back with a
 * top-level assignment, which n8n's change tracking of static data always notices.
 */
export function staticDataRing(state: { seen?: unknown }, max = STATIC_SEEN_MAX): { isNew(id: string): boolean; commit(): void } {
  const list: string[] = Array.isArray(state.seen) ? state.seen.filter((x): x is string => typeof x === 'string') : [];
  const set = new Set(list);
  return {
    isNew(id) {
      if (set.has(id)) return false;
      set.add(id);
      list.push(id);
      while (list.length > max) set.delete(list.shift()!);
      return true;
    },
    commit() {
      state.seen = [...list];
    },
  };
}
