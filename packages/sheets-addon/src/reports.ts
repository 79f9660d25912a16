/**
 * What each entry point answers: a plain object (the sidebar and tests read it), with status done,
 * continuing (a continuation is scheduled) or refused (nothing done, or stopped with what it paid kept),
 * and the progress of the run under way, kept in the document's properties so the sidebar can ask for it
 * with a call that returns a plain value. Never a key: reports are built from counts and messages the
 * core keeps free of secrets.
 */
import type { EnrichReport } from '@company-data/core/sheets/enrich/options';

export type Status = 'done' | 'continuing' | 'refused';

export interface AddonReport {
  status: Status;
  /** One sentence for the person in the sheet. */
  message: string;
  sheetName?: string;
  keyColumn?: string;
  rows?: number;
  uniqueQueries?: number;
  billedQueries?: number;
  /** Answers paid earlier (an interrupted run's) used for free. */
  freeAnswers?: number;
  matched?: number;
  noMatch?: number;
  errors?: number;
  checks?: { check: string; ok: boolean | null; text: string }[];
  [more: string]: unknown;
}

const LAST = 'companyData.lastReport';
const PROGRESS = 'companyData.progress';

export function enrichFigures(r: EnrichReport) {
  return {
    keyColumn: r.keyColumn,
    rows: r.rows,
    rowsInScope: r.rowsInScope,
    uniqueQueries: r.uniqueQueries,
    billedQueries: r.billedQueries,
    requests: r.requests,
    freeAnswers: r.fromJournal + r.fromCache,
    matched: r.matched,
    noMatch: r.noMatch,
    invalid: r.invalid,
    skipped: r.skipped,
    errors: r.errors,
    keptCells: r.keptCells,
    leftAlone: r.leftAlone,
    ...(r.firstError ? { firstError: r.firstError.message } : {}),
    ...(r.checks ? { checks: r.checks.map((c) => ({ check: c.check, ok: c.ok ?? null, text: c.text })) } : {}),
  };
}

/** Keeps the report for the sidebar ("last run") and clears the progress. */
export function remember(report: AddonReport): AddonReport {
  const p = PropertiesService.getDocumentProperties();
  p.setProperty(LAST, JSON.stringify({ ...report, at: new Date().toISOString() }));
  p.deleteProperty(PROGRESS);
  return report;
}

export function saveProgress(progress: { kind: string; sheetName: string; done: number; total: number }): void {
  PropertiesService.getDocumentProperties().setProperty(PROGRESS, JSON.stringify({ ...progress, at: new Date().toISOString() }));
}

/** The run under way (or undefined) and the last report, as plain values. */
export function runStatus(): { progress: unknown; lastReport: unknown } {
  const p = PropertiesService.getDocumentProperties();
  const parse = (v: string | null) => (v ? (JSON.parse(v) as unknown) : null);
  return { progress: parse(p.getProperty(PROGRESS)), lastReport: parse(p.getProperty(LAST)) };
}

/** An error's text for the person in the sheet: the core's messages name the field and say what to do. */
export function errorText(e: unknown): string {
  const err = e as { message?: unknown; hint?: unknown };
  const message = typeof err?.message === 'string' ? err.message : String(e);
  return typeof err?.hint === 'string' && err.hint && !message.includes(err.hint) ? `${message} ${err.hint}` : message;
}
