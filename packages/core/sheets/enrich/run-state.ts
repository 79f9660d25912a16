import type { CompanyDataError } from '../../errors';
import type { LookupStatus } from '../../lookup';
import type { HeldLock, PaidAnswerStore } from '../ports';
import type { EnrichReport, SheetsEnrichOptions } from './options';

/** Wakes whoever waits for news (an answer, a finished chunk, the end). */
export class Changed {
  private waiters: (() => void)[] = [];
  wait(): Promise<void> {
    return new Promise((r) => this.waiters.push(r));
  }
  notify(): void {
    if (this.waiters.length) for (const w of this.waiters.splice(0)) w();
  }
}

/** One distinct query's cells, worked out once however many rows share it. */
export interface Outcome {
  status: LookupStatus;
  reason: string;
  fields?: string[];
  code?: string;
  error?: CompanyDataError;
}

/** What one row gets: its edits (the layout's columns), cells of a person kept, and whether it waits for an answer. */
export interface RowResult {
  edits?: [number, string][];
  kept: number;
  /** The key whose answer the row waits for. */
  waiting?: string;
  /** A row whose key this run did not look up (someone inserted it or edited its key meanwhile). */
  leftAlone?: boolean;
}

/** An empty report of a run about to start. */
export function emptyReport(dryRun: boolean): EnrichReport {
  return {
    keyColumn: '',
    rows: 0,
    rowsInScope: 0,
    uniqueQueries: 0,
    fromJournal: 0,
    fromCache: 0,
    requests: 0,
    billedQueries: 0,
    profileRequests: 0,
    matched: 0,
    noMatch: 0,
    vatGroups: 0,
    skipped: 0,
    invalid: 0,
    errors: 0,
    keptCells: 0,
    leftAlone: 0,
    personColumns: [],
    legacyRows: 0,
    dryRun,
    interrupted: false,
  };
}

/**
 * What the parts of one run share: the outcomes of the distinct queries as they settle, the profile
 * sections fetched, the first failure, and the flags that end the lookups and the saves.
 */
export class EnrichRun {
  readonly outcomes = new Map<string, Outcome>();
  readonly changed = new Changed();
  readonly sectionCells = new Map<string, string[] | { error: CompanyDataError }>();
  readonly report: EnrichReport;
  failure: { error: unknown } | undefined;
  /** Nothing more is sent (a failure). */
  stopAll = false;
  /** Every lookup chunk is over (sections may still run). */
  lookupsOver = false;
  /** Lookups and sections are over: the last save is due. */
  allOver = false;

  constructor(
    readonly opts: SheetsEnrichOptions,
    readonly answers: PaidAnswerStore,
    private readonly lock?: HeldLock,
  ) {
    this.report = emptyReport(!!opts.dryRun);
  }

  /** Nothing more may be sent: a failure, or the writer's lock lost (its lease taken over), which becomes the failure. */
  stopSending(): boolean {
    const lost = this.lock?.lost?.();
    if (lost && !this.failure) {
      this.failure = { error: lost };
      this.stopAll = true;
      this.changed.notify();
    }
    return this.stopAll;
  }

  aborted(): boolean {
    return this.opts.signal?.aborted === true;
  }

  /** The first error goes into the report, so a run whose rows all failed says why (the client keeps secrets out of it). */
  noteError(e: unknown): void {
    if (this.report.firstError || !e) return;
    const err = e as Partial<CompanyDataError>;
    this.report.firstError = { code: err.code ?? 'unknown', message: err.message ?? String(e), ...(err.hint ? { hint: err.hint } : {}) };
  }

  /** Throws the failure when there is one (a refused save, a lookup that failed past its retries). */
  check(): void {
    if (this.failure) throw this.failure.error;
  }

  /** What was sent and billed, and what came free, into the report. */
  countPaid(requests: number, billed: number): void {
    this.report.requests = requests;
    this.report.billedQueries = billed;
    this.report.fromJournal = this.answers.fromJournal;
    this.report.fromCache = this.answers.fromCache;
  }
}
