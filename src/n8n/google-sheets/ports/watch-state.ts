import type { IDataObject } from 'n8n-workflow';
import { parseWatchListState, type WatchListState, type WatchListStatePort } from '@company-data/core/watch/sync-list';

/** Where in the node's static data Keep Current keeps its lists: one entry per watched sheet. */
const ROOT = 'companyDataWatchLists';

/**
 * Keep Current's state port in n8n: the list's id, name and members per watched sheet, in the node's workflow
 * static data. n8n saves it when a production execution ends, not after a manual run: then the list is found
 * again by its name and its members read (one request more), so nothing is duplicated.
 */
export function staticDataWatchState(staticData: IDataObject, sheetKey: string): WatchListStatePort {
  const all = () => (staticData[ROOT] as Record<string, unknown> | undefined) ?? {};
  return {
    get: () => parseWatchListState(all()[sheetKey]),
    put(state: WatchListState) {
      const before = all()[sheetKey];
      // Unchanged: not written, so n8n does not save the workflow for nothing.
      if (before !== undefined && JSON.stringify(before) === JSON.stringify(state)) return;
      // n8n sees a change of static data through its top-level keys only: assigning the root again marks it changed.
      staticData[ROOT] = { ...all(), [sheetKey]: { ...state } } as IDataObject;
    },
  };
}
