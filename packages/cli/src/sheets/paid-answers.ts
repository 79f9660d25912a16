import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { lookupInBatches, type LookupBatchesOptions, type LookupBatchesResult, type LookupSender, type SendQuery } from '../../../../src/core/bulk-lookup';
import type { Lang } from '../../../../src/core/schemas/common';
import type { LookupResult } from '../../../../src/core/schemas/company';
import { AnswerCache } from './answer-cache';
import { LookupJournal } from './lookup-journal';

export interface PaidAnswersOptions {
  stateDir: string;
  /** The table's identity: the resume journal belongs to it. */
  tableId: string;
  /** Which service answers (see AnswerCacheOptions.service). */
  service: string;
  limit: number;
  lang?: Lang;
  /** Reuse cached answers younger than this many days (default 30; 0: none). */
  maxAgeDays?: number;
  now?: () => number;
}

export interface AnswerPlan {
  /** Answered in an interrupted run on this table (the journal): free whatever their age. */
  fromJournal: string[];
  /** Answered in an earlier run on any table, younger than max-age: free. */
  fromCache: string[];
  /** To pay for. */
  toPay: string[];
}

/**
 * Where the Sheets enrich gets answers without paying again, and where it records every answer it
 * pays for: the resume journal of this table (exact, discarded once the table is saved) and the answer
 * cache shared by all runs. Both are written as each request is answered, whatever the order, before
 * the answer reaches the table.
 */
export class PaidAnswers {
  private readonly journal: LookupJournal;
  private readonly cache: AnswerCache;

  constructor(private readonly o: PaidAnswersOptions) {
    this.journal = new LookupJournal(join(o.stateDir, `enrich-${createHash('sha256').update(o.tableId).digest('hex').slice(0, 16)}.jsonl`), {
      v: 1,
      table: o.tableId,
      limit: o.limit,
      lang: o.lang ?? null,
    });
    this.cache = new AnswerCache({ stateDir: o.stateDir, service: o.service, limit: o.limit, lang: o.lang, maxAgeDays: o.maxAgeDays, now: o.now });
  }

  plan(keys: readonly string[]): AnswerPlan {
    const plan: AnswerPlan = { fromJournal: [], fromCache: [], toPay: [] };
    const notJournalled = keys.filter((k) => {
      if (!this.journal.get(k)) return true;
      plan.fromJournal.push(k);
      return false;
    });
    this.cache.load(new Set(notJournalled));
    for (const k of notJournalled) (this.cache.has(k) ? plan.fromCache : plan.toPay).push(k);
    return plan;
  }

  /** The free answer of a key the plan found (read once: the journal forgets it in memory); undefined when its line was damaged on disk. */
  take(key: string): LookupResult | undefined {
    return this.journal.take(key) ?? this.cache.get(key)?.answer;
  }

  /**
   * Pays for `queries` with requests in flight up to the rate limit, with the limit and language the
   * journal and cache were opened for; each query settles in the order sent (lookupInBatches).
   */
  pay(send: LookupSender, queries: readonly SendQuery[], o: Pick<LookupBatchesOptions, 'onQuerySettled' | 'onProgress'> & { shouldStop: () => boolean }): Promise<LookupBatchesResult> {
    return lookupInBatches(send, queries, {
      limit: this.o.limit,
      lang: this.o.lang,
      shouldStop: o.shouldStop,
      onAnswered: (out) => {
        const paid = out.queries.flatMap((q, j) => (out.answers[j] ? [{ key: q.key, answer: out.answers[j] }] : []));
        const lines = this.cache.lines(paid);
        this.journal.add(lines);
        this.journal.sync();
        this.cache.add(paid, lines);
      },
      onQuerySettled: o.onQuerySettled,
      onProgress: o.onProgress,
    });
  }

  /** Closes the files; the journal is only kept when the run did not finish. */
  finish(keepJournal: boolean): void {
    this.cache.close();
    if (keepJournal) this.journal.close();
    else this.journal.discard();
  }
}
