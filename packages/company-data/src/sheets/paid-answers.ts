import { tableStateFile } from './state-dir';
import type { PaidAnswerStore } from '@company-data/core/sheets/ports';
import type { Lang } from '@company-data/core/schemas/common';
import type { LookupResult } from '@company-data/core/schemas/company';
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

/**
 * Where the Sheets enrich gets answers without paying again, and where it records every answer it
 * pays for: the resume journal of this table (exact, discarded once the table is saved) and the answer
 * cache shared by all runs. It is the lookup pipeline's cache (resolveLookups): journal first, then the
 * answer cache; each request's answers are written to both as it arrives, before they reach the table.
 */
export class PaidAnswers implements PaidAnswerStore {
  private readonly journal: LookupJournal;
  private readonly cache: AnswerCache;
  /** Distinct queries answered from the journal of an interrupted run / from the answer cache. */
  fromJournal = 0;
  fromCache = 0;

  /** The state folder, for a failed run's report. */
  readonly location: string;

  constructor(private readonly o: PaidAnswersOptions) {
    this.location = o.stateDir;
    this.journal = new LookupJournal(tableStateFile(o.stateDir, 'enrich', o.tableId), {
      v: 1,
      table: o.tableId,
      limit: o.limit,
      lang: o.lang ?? null,
    });
    this.cache = new AnswerCache({
      stateDir: o.stateDir,
      service: o.service,
      limit: o.limit,
      lang: o.lang,
      maxAgeDays: o.maxAgeDays,
      now: o.now,
    });
  }

  /** Indexes the answer cache for the keys the journal does not answer (the file is read once, for just these). */
  prepare(keys: readonly string[]): void {
    this.cache.load(new Set(keys.filter((k) => !this.journal.get(k))));
  }

  /** Which of these keys have a free answer (journal, or cache within max age), without counting them as used. */
  free(keys: readonly string[]): string[] {
    this.prepare(keys);
    return keys.filter((k) => this.journal.get(k) !== undefined || this.cache.has(k));
  }

  has(key: string): boolean {
    const hit = this.journal.get(key) !== undefined ? 'journal' : this.cache.has(key) ? 'cache' : undefined;
    if (hit === 'journal') this.fromJournal++;
    else if (hit === 'cache') this.fromCache++;
    return hit !== undefined;
  }

  /** The free answer of a key (read once: the journal forgets it in memory); undefined when none, or its line was damaged on disk. */
  get(key: string): LookupResult | undefined {
    const j = this.journal.take(key);
    if (j) {
      this.fromJournal++;
      return j;
    }
    const c = this.cache.get(key)?.answer;
    if (c) this.fromCache++;
    return c;
  }

  /** Answers are recorded per request (record); a single one is recorded alike. */
  set(key: string, answer: LookupResult): void {
    this.record([{ key, answer }]);
  }

  /** The answers of one paid request: one journal write and fsync, one cache append. */
  record(paid: readonly { key: string; answer: LookupResult }[]): void {
    if (!paid.length) return;
    const lines = this.cache.lines(paid);
    this.journal.add(lines);
    this.journal.sync();
    this.cache.add(paid, lines);
  }

  /** Closes the files; the journal is only kept when the run did not finish. */
  finish(keepJournal: boolean): void {
    this.cache.close();
    if (keepJournal) this.journal.close();
    else this.journal.discard();
  }
}
