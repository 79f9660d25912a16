/**
 * `company-data watch`, the list half: the core's syncList with its state kept in a file of the state
 * folder (written atomically). Decisions in docs/decisions/watch.md, "The sheet's companies and the list".
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import {
  parseWatchListState,
  syncList as syncListCore,
  type ListSyncResult,
  type SyncListOptions as CoreSyncListOptions,
  type WatchListStatePort,
} from '@company-data/core/watch/sync-list';
import { writeFileAtomic } from '../files/atomic-file';
import { tableStateFile } from './state-dir';

export type { ListSyncResult, WatchListClient } from '@company-data/core/watch/sync-list';

/** The state file of one watched table in the state folder. */
export function watchStateFile(stateDir: string, tableId: string): string {
  return tableStateFile(stateDir, 'watch', tableId).replace(/\.jsonl$/, '.json');
}

/** The state port over one file: a missing or damaged file reads as no state. */
export function fileWatchState(path: string): WatchListStatePort {
  return {
    get() {
      if (!existsSync(path)) return undefined;
      try {
        return parseWatchListState(JSON.parse(readFileSync(path, 'utf8')));
      } catch {
        return undefined;
      }
    },
    put(state) {
      mkdirSync(dirname(path), { recursive: true });
      writeFileAtomic(path, JSON.stringify(state));
    },
  };
}

export interface SyncListOptions extends Omit<CoreSyncListOptions, 'state'> {
  stateDir: string;
  /** The watched table's id: the state file is named after it. */
  tableId: string;
}

/** Makes the list hold exactly `codes`, its state in the state folder. */
export function syncList(opts: SyncListOptions): Promise<ListSyncResult> {
  const { stateDir, tableId, ...rest } = opts;
  return syncListCore({ ...rest, state: fileWatchState(watchStateFile(stateDir, tableId)) });
}
