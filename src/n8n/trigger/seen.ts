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

/** Ids among `ids` not recorded before; records them. Scope 'node': one store per trigger node. */
export async function newIdsInProcessedData(helpers: ProcessedDataHelpers, ids: string[]): Promise<Set<string>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Set();
  const res = await helpers.checkProcessedAndRecord(unique, 'node', { mode: 'entries', maxEntries: DEDUPE_MAX_ENTRIES });
  return new Set(res.new.map(String));
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
