import type { IDataObject } from 'n8n-workflow';
import type { LookupResult } from '@company-data/core/schemas/company';
import type { AnswerScope, OpenAnswerStore, PaidAnswerStore } from '@company-data/core/sheets/ports';
import { progressStore } from '@company-data/core/sheets/progress-store';

/** Where in the node's static data the answers are: one entry per table and options. */
const ROOT = 'companyDataPaidAnswers';
const DAY_MS = 86_400_000;
/** Kept answers of other tables or options are dropped after this long: they will not be asked for again. */
const FORGET_AFTER_DAYS = 30;

interface Progress {
  /** When the answers were last added to. */
  at: number;
  answers: Record<string, LookupResult>;
}

export const STATIC_DATA_LOCATION = "the node's workflow static data (n8n saves it when a production execution ends)";

const scopeKey = (s: AnswerScope) => JSON.stringify([s.tableId, s.service, s.limit, s.lang ?? null]);

/**
 * The engine's store of paid answers, in n8n: the answers a run paid for and has not yet saved to the
 * sheet, kept in the node's workflow static data. The sheet itself is the main store (answers are saved
 * to it as they arrive, and a rerun skips rows holding an answer for their key); this keeps the answers
 * a sheet refused (a save refused mid-run, a quota or sign-in that did not come back), so the next run
 * bills nothing for them. n8n saves static data at the end of a production execution, failed ones
 * included, and not at all in a manual run: docs/decisions/lookup-and-billing.md, "Where paid answers are kept elsewhere", says why this is still the place.
 */
export function staticDataAnswerStore(staticData: IDataObject): OpenAnswerStore {
  return (scope: AnswerScope): PaidAnswerStore => {
    const now = scope.now();
    const all = ((staticData[ROOT] as Record<string, Progress> | undefined) ?? {}) as Record<string, Progress>;
    const key = scopeKey(scope);
    const maxAgeMs = (scope.maxAgeDays ?? FORGET_AFTER_DAYS) * DAY_MS;
    let pruned = false;
    for (const [k, p] of Object.entries(all)) {
      // Answers older than the run may reuse are not handed out (they may have changed), nor kept.
      if (now - p.at > FORGET_AFTER_DAYS * DAY_MS || (k === key && (maxAgeMs <= 0 || now - p.at > maxAgeMs))) {
        delete all[k];
        pruned = true;
      }
    }
    const progress = all[key];
    // n8n sees a change of static data through its top-level keys only: assigning the root again marks it changed.
    const touch = () => (staticData[ROOT] = all as unknown as IDataObject);
    const answer = (k: string) => progress?.answers[k];
    return progressStore({
      location: STATIC_DATA_LOCATION,
      answer,
      record(paid) {
        const p = (all[key] ??= { at: scope.now(), answers: {} });
        for (const { key: k, answer: a } of paid) p.answers[k] = a;
        p.at = scope.now();
        touch();
      },
      finish(keepProgress) {
        // Written back only when something changed: n8n then saves the workflow when the execution ends.
        if (!keepProgress && all[key]) {
          delete all[key];
          touch();
        } else if (pruned) touch();
      },
    });
  };
}
