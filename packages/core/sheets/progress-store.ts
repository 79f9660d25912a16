/**
 * A store of paid answers that holds one run's progress only (no answer cache of earlier runs): n8n keeps it in
 * the workflow's static data, the Google Sheets add-on in a hidden sheet. The reading half is the same for
 * every such store and lives here: an answer handed out (or promised by `has`) counts once as free
 * (`fromJournal`). The adapter says where answers are kept (`answer`, `record`, `finish`, `location`).
 */
import type { LookupResult } from '../schemas/company';
import type { PaidAnswerStore } from './ports';

export interface ProgressKeeping {
  /** Where the answers are kept, for the user. */
  location: string;
  /** The answer paid for this key in this run's progress, if any. */
  answer(key: string): LookupResult | undefined;
  /** Makes one request's answers durable before they reach the table. */
  record(paid: readonly { key: string; answer: LookupResult }[]): void;
  finish(keepProgress: boolean): void | Promise<void>;
}

export function progressStore(keeping: ProgressKeeping): PaidAnswerStore {
  const served = new Set<string>();
  const { answer } = keeping;
  return {
    location: keeping.location,
    fromCache: 0,
    get fromJournal() {
      return served.size;
    },
    free: (keys) => keys.filter((k) => answer(k) !== undefined),
    has(k) {
      if (answer(k) === undefined) return false;
      served.add(k);
      return true;
    },
    get(k) {
      const a = answer(k);
      if (a !== undefined) served.add(k);
      return a;
    },
    set(k, a) {
      keeping.record([{ key: k, answer: a }]);
    },
    record(paid) {
      if (paid.length) keeping.record(paid);
    },
    finish: (keepProgress) => keeping.finish(keepProgress),
  };
}
