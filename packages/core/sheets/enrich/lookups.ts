import { QueryDedupe, resolveLookups, type LookupSettled, type SendQuery } from '../../bulk-lookup';
import type { CompanyDataError } from '../../errors';
import { PreflightError } from '../checks/preflight';
import { say, setting, SheetsError } from '../errors';
import { sectionText } from './profile-sections';
import { summaryFields } from './options';
import type { Layout } from './layout';
import type { EnrichRun, Outcome } from './run-state';

/** The spending cap's refusal: nothing was sent. */
const overCap = (max: number, wouldBill: number) =>
  new SheetsError({
    code: 'over_billing_cap',
    field: 'maxBilledQueries',
    rule: `is ${max}, but this run would bill ${wouldBill} unique queries`,
    hint: say`Raise ${setting('maxBilledQueries')}, or enrich fewer rows. Nothing was sent and nothing was billed.`,
  });

/**
 * The lookups of one run, through the one pipeline (resolveLookups, with the store of paid answers as
 * its cache): each distinct query settled once into its cells, in chunks sent while the table is still
 * read (or all at once behind the spending cap); then the profile sections of each matched company, one
 * request each, in the order the lookups settle.
 */
export class Lookups {
  readonly dedupe = new QueryDedupe();
  readonly totals = { requests: 0, billed: 0, stopped: false, done: 0 };
  private readonly chunkRequests: number[] = [];
  readonly chunks: Promise<void>[] = [];
  private readonly sectionQueue: { key: string; outcome: Outcome }[] = [];
  private sectionsDone: Promise<void> = Promise.resolve();

  constructor(
    private readonly run: EnrichRun,
    /** The layout, known once the header is read (before anything is sent). */
    private readonly layout: () => Layout,
  ) {}

  private get sections() {
    return this.run.opts.sections ?? [];
  }

  private lang() {
    return this.run.opts.lang ?? this.run.opts.client.lang;
  }

  private readonly onSettled = (key: string, st: LookupSettled) => {
    const run = this.run;
    this.totals.done++;
    let o: Outcome;
    if (st.status === 'error') {
      run.noteError(st.error);
      o = { status: 'error', reason: st.error.message, error: st.error };
    } else {
      const company = st.answer.matches?.[0];
      o = {
        status: st.status,
        reason: st.detail ?? '',
        fields: this.layout().fieldCols.map(({ f }) => (company ? summaryFields[f](company) : '')),
        code: company?.registry_code,
      };
    }
    if (o.code !== undefined && this.sections.length) this.sectionQueue.push({ key, outcome: o });
    else run.outcomes.set(key, o);
    run.changed.notify();
  };

  /** Sends these queries as one chunk; with a cap, nothing is sent unless all of them fit under it. */
  send(qs: SendQuery[], cap?: { max: number; sending: () => void }): void {
    const run = this.run;
    if (run.failure || run.stopAll || qs.length === 0) return;
    const i = this.chunkRequests.push(0) - 1;
    this.chunks.push(
      resolveLookups(run.opts.client.lookupSender(), qs, {
        limit: 1,
        lang: this.lang(),
        cache: run.answers,
        ...(cap ? { maxBilledQueries: cap.max, overCap, onSending: cap.sending } : {}),
        shouldStop: () => run.stopSending() || run.aborted(),
        ...(run.opts.signal ? { signal: run.opts.signal } : {}),
        onSettled: this.onSettled,
        onProgress: (p) => {
          this.chunkRequests[i] = p.requests;
          const requests = this.chunkRequests.reduce((a, b) => a + b, 0);
          run.opts.onProgress?.({ done: this.totals.done, total: this.dedupe.unique.size, requests });
        },
      })
        .then(
          (r) => {
            this.totals.requests += r.requests;
            this.totals.billed += r.billedQueries;
            this.totals.stopped ||= r.stopped;
          },
          (e: unknown) => void (run.failure ??= { error: e }),
        )
        .finally(() => run.changed.notify()),
    );
  }

  /** Sends every distinct query behind the spending cap; resolves once the cap is passed (or nothing was sent). */
  async sendCapped(max: number | undefined): Promise<void> {
    let sending!: () => void;
    const passed = new Promise<void>((r) => (sending = r));
    const sent = this.chunks.length;
    this.send(this.dedupe.queries(), { max: max!, sending });
    // Nothing to send (every row answered already) starts no chunk, and nothing would ever say the cap passed.
    if (this.chunks.length > sent) await Promise.race([passed, ...this.chunks]);
  }

  /** What a dry run would send and bill: nothing is sent, no answer is read. */
  async dryRun(): Promise<void> {
    const run = this.run;
    try {
      const r = await resolveLookups(run.opts.client.lookupSender(), this.dedupe.queries(), {
        limit: 1,
        lang: this.lang(),
        cache: run.answers,
        maxBilledQueries: run.opts.maxBilledQueries,
        overCap,
        dryRun: true,
      });
      run.countPaid(r.requests, r.billedQueries);
      run.report.profileRequests = this.sections.length ? this.dedupe.unique.size : 0;
    } finally {
      await run.answers.finish(true);
    }
  }

  /** Answers, never billed (the cap is 0), for rows of the old version whose answers are free. */
  sendFree(moving: SendQuery[]): void {
    const run = this.run;
    if (!moving.length) return;
    this.chunks.push(
      resolveLookups(run.opts.client.lookupSender(), moving, {
        limit: 1,
        lang: this.lang(),
        cache: run.answers,
        maxBilledQueries: 0,
        shouldStop: () => run.stopSending() || run.aborted(),
        ...(run.opts.signal ? { signal: run.opts.signal } : {}),
        onSettled: this.onSettled,
      })
        .then(
          () => undefined,
          // A cached line found damaged after all: refused before paying; those rows keep their old columns.
          () => undefined,
        )
        .finally(() => run.changed.notify()),
    );
  }

  /** Starts fetching profile sections as lookups settle (not in a dry run, nor without sections). */
  startSections(): void {
    if (this.run.opts.dryRun || !this.sections.length) return;
    this.sectionsDone = this.sectionWork().catch((e: unknown) => void (this.run.failure ??= { error: e }));
  }

  private async sectionWork(): Promise<void> {
    const run = this.run;
    for (let i = 0; ; ) {
      if (run.failure || run.stopAll) return;
      if (i === this.sectionQueue.length) {
        if (run.lookupsOver) return;
        await run.changed.wait();
        continue;
      }
      // Stopped: rows whose sections were not fetched stay as they are, for the next run (their answers are in the store).
      if (run.aborted()) return;
      const { key, outcome } = this.sectionQueue[i++]!;
      if (!run.sectionCells.has(outcome.code!)) await this.fetchSections(outcome.code!);
      run.outcomes.set(key, outcome);
      run.changed.notify();
    }
  }

  private async fetchSections(code: string): Promise<void> {
    const run = this.run;
    try {
      const res = await run.opts.client.companies.get({
        registry_code: code,
        include: [...this.sections],
        ...(run.opts.lang ? { lang: run.opts.lang } : {}),
      });
      const profile = res.data as Record<string, unknown>;
      run.sectionCells.set(
        code,
        this.layout().sectionCols.map(({ s }) => sectionText(s, profile[s])),
      );
    } catch (e) {
      run.noteError(e);
      run.sectionCells.set(code, { error: e as CompanyDataError });
    }
    run.report.profileRequests++;
  }

  /** Resolves once every chunk and the sections are over; allOver is set then (also on failure). */
  everything(): Promise<void> {
    const run = this.run;
    return (async () => {
      await Promise.all(this.chunks);
      run.lookupsOver = true;
      run.changed.notify();
      await this.sectionsDone;
    })().finally(() => {
      run.allOver = true;
      run.changed.notify();
    });
  }

  /** The outcome of a key once it is there (undefined when the run ended without it). */
  async outcomeOf(key: string): Promise<Outcome | undefined> {
    const run = this.run;
    for (;;) {
      run.check();
      const o = run.outcomes.get(key);
      if (o || run.allOver) return o;
      await run.changed.wait();
    }
  }

  /** The end of a run that did not fail: what was paid, whether it was stopped, and the rows by outcome. */
  countInto(sendRows: ReadonlyMap<string, number>): void {
    const run = this.run;
    const report = run.report;
    run.countPaid(this.totals.requests, this.totals.billed);
    report.interrupted = this.totals.stopped || run.aborted();
    const counter = { matched: 'matched', vat_group: 'vatGroups', no_match: 'noMatch', skipped: 'skipped' } as const;
    for (const [key, rows] of sendRows) {
      const o = run.outcomes.get(key);
      if (!o) continue;
      if (o.error) report.errors += rows;
      else {
        report[counter[o.status as keyof typeof counter]] += rows;
        const sec = o.code !== undefined ? run.sectionCells.get(o.code) : undefined;
        if (sec && 'error' in sec) report.errors += rows;
      }
    }
  }

  /**
   * Ends the run on an error: nothing more is sent, requests in flight finish (their answers reach the
   * store), the progress is kept. After paying began, the error carries the report (reportOfFailedRun).
   */
  async fail(e: unknown, paying: boolean): Promise<never> {
    const run = this.run;
    run.stopAll = true;
    run.changed.notify();
    await Promise.all(this.chunks);
    run.lookupsOver = true;
    run.changed.notify();
    await this.sectionsDone;
    await run.answers.finish(true);
    if (paying && !(e instanceof PreflightError) && e && typeof e === 'object') {
      run.countPaid(this.totals.requests, this.totals.billed);
      run.report.interrupted = true;
      run.report.failed = { keptAnswers: this.totals.billed, stateDir: run.answers.location };
      Object.defineProperty(e, 'enrichReport', { value: run.report, enumerable: false, configurable: true });
    }
    throw e;
  }
}
