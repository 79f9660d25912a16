import { homedir } from 'node:os';
import { join } from 'node:path';
import { LOOKUP_BATCH_SIZE, type LookupSender } from '../../../../src/core/bulk-lookup';
import { NotSentError, type CompanyDataError } from '../../../../src/core/errors';
import { answerStatus, readQuery, statusText } from '../../../../src/core/lookup';
import type { IncludeSection } from '../../../../src/core/params';
import type { Lang } from '../../../../src/core/schemas/common';
import type { CompanySummary, LookupResult } from '../../../../src/core/schemas/company';
import { lockSheet } from './writer-lock';
import { PaidAnswers } from './paid-answers';
import { sectionText } from './profile-sections';
import type { CellWrite, Table } from './table';

/** Columns a user can pick from the company summary, and how each is written as text. */
export const summaryFields = {
  name: (c) => c.name,
  registry_code: (c) => c.registry_code,
  status: (c) => c.status?.label ?? c.status?.code ?? '',
  status_code: (c) => c.status?.code ?? '',
  legal_form: (c) => c.legal_form?.label ?? c.legal_form?.name ?? '',
  address: (c) => c.address?.full ?? '',
  postal_code: (c) => c.address?.postal_code ?? '',
  vat_number: (c) => c.vat_number ?? '',
  registered_on: (c) => c.registered_on ?? '',
  deleted_on: (c) => c.deleted_on ?? '',
  url: (c) => c.url ?? '',
  matched_previous_name: (c) => c.matched_previous_name ?? '',
} as const satisfies Record<string, (c: CompanySummary) => string>;
export type SummaryField = keyof typeof summaryFields;
export const defaultFields: readonly SummaryField[] = ['name', 'registry_code', 'status', 'legal_form', 'address', 'vat_number'];

export const STATUS_HEADER = 'enrich_status';
export const ENRICHED_AT_HEADER = 'enriched_at';

export type EnrichMode = 'missing' | 'all' | { olderThanDays: number };

/** What enrich needs from the client (CoreClient satisfies it). */
export interface EnrichClient {
  lookupSender(): LookupSender;
  /** The client's default language, when it has one: answers are cached per language. */
  readonly lang?: Lang;
  /** The service's base URL: answers are cached per service. */
  readonly serviceUrl?: string;
  companies: { get(input: { registry_code: string; include?: IncludeSection[]; lang?: Lang }): Promise<{ data: unknown }> };
}

export interface EnrichProgress {
  /** Distinct queries answered so far (including ones from the journal) and in all. */
  done: number;
  total: number;
  requests: number;
}

export interface EnrichOptions {
  table: Table;
  client: EnrichClient;
  /** Header of the key column; found automatically when not given. */
  column?: string;
  fields?: readonly SummaryField[];
  /** Profile sections fetched per matched company (one extra request each). */
  sections?: readonly IncludeSection[];
  /** missing (default): rows not enriched yet; { olderThanDays }: also rows enriched before then; all. */
  mode?: EnrichMode;
  /** Overwrite non-empty cells a person typed. */
  force?: boolean;
  dryRun?: boolean;
  /** Most queries to pay for in this run; rows beyond are left for the next run. */
  maxQueries?: number;
  lang?: Lang;
  /** Folder for the resume journal and the answer cache (default ~/.company-data/state). */
  stateDir?: string;
  /** Reuse answers paid for in earlier runs when younger than this many days (default 30; 0: never). */
  maxAgeDays?: number;
  /** Which service answers, for the answer cache (default: the client's base URL). */
  service?: string;
  /** Save at most this often while running (default: the table's saveEveryMs; 1 s for CSV, 10 s for XLSX and Google Sheets). */
  flushEveryMs?: number;
  now?: () => Date;
  onProgress?: (p: EnrichProgress) => void;
  /** Stops sending; the lookup requests in flight finish and every row answered is saved. */
  signal?: AbortSignal;
}

export interface EnrichReport {
  keyColumn: string;
  /** Data rows in the table. */
  rows: number;
  /** Rows this run looks at (mode, non-empty key). */
  rowsInScope: number;
  uniqueQueries: number;
  /** Distinct queries answered from the journal of an interrupted run (free). */
  fromJournal: number;
  /** Distinct queries answered from the answer cache of earlier runs (free). */
  fromCache: number;
  /** Lookup requests made (or, in a dry run, that would be made). */
  requests: number;
  billedQueries: number;
  /** Profile requests for sections (or an upper bound in a dry run). */
  profileRequests: number;
  matched: number;
  noMatch: number;
  vatGroups: number;
  skipped: number;
  invalid: number;
  errors: number;
  /** The first error, so a run whose rows all failed says why (the client keeps secrets out of it). */
  firstError?: { code: string; message: string; hint?: string };
  /** Rows left for a later run because of --max-queries. */
  deferred: number;
  /** Cells left as a person typed them (use force to overwrite). */
  keptCells: number;
  dryRun: boolean;
  interrupted: boolean;
}

const KEY_HEADER_PATTERNS: RegExp[] = [
  /^(registry[\s_-]*code|reg[\s_.-]*(code|nr|no)|registrikood|registri[\s_-]*kood|business[\s_-]*id|company[\s_-]*code)$/i,
  /^(vat([\s_-]*(number|no|nr|id|code))?|kmkr([\s_-]*(nr|number))?|käibemaksukohustuslase[\s_-]*number)$/i,
  /^(company([\s_-]*name)?|name|nimi|ettevõte|ettevõtte[\s_-]*nimi|firma|organisation|organization)$/i,
];

export function findKeyColumn(header: readonly string[], wanted?: string): number {
  const norm = header.map((h) => h.trim().toLowerCase());
  if (wanted !== undefined) {
    const i = norm.indexOf(wanted.trim().toLowerCase());
    if (i < 0) throw new Error(`column: no header "${wanted}" in the first row (headers: ${header.filter(Boolean).join(', ') || 'none'})`);
    return i;
  }
  // After a run, columns named like summary fields are the output (unless the key itself had that
  // name, in which case the output went to matched_<field>); they must not be taken for the key.
  const enrichedBefore = norm.includes(STATUS_HEADER);
  const ours = (h: string) => enrichedBefore && h in summaryFields && !norm.includes(`matched_${h}`);
  for (const skipOurs of [true, false]) {
    for (const re of KEY_HEADER_PATTERNS) {
      const i = header.findIndex((h, j) => re.test(h.trim()) && !(skipOurs && ours(norm[j]!)));
      if (i >= 0) return i;
    }
  }
  throw new Error(`column: no registry code, VAT number or name header found; name the column with --column (headers: ${header.filter(Boolean).join(', ') || 'none'})`);
}

function isoSeconds(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function defaultStateDir(): string {
  return process.env.COMPANY_DATA_STATE_DIR || join(homedir(), '.company-data', 'state');
}

/**
 * Enriches the rows of a table by bulk lookup. Reads the table once, bills each distinct query once,
 * writes results as answers arrive (saved every flushEveryMs and at the end), and never re-bills a
 * row that is already enriched or whose answer is in the resume journal.
 */
export async function enrichTable(opts: EnrichOptions): Promise<EnrichReport> {
  // Taken before the table is read: a second run reading it meanwhile would bill the same rows again.
  const lock = opts.dryRun ? undefined : lockSheet(opts.table);
  try {
    return await enrichLocked(opts);
  } finally {
    lock?.release();
  }
}

async function enrichLocked(opts: EnrichOptions): Promise<EnrichReport> {
  const { table, client } = opts;
  const now = opts.now ?? (() => new Date());
  const mode = opts.mode ?? 'missing';
  const fields = opts.fields ?? defaultFields;
  const sections = opts.sections ?? [];
  for (const f of fields) if (!(f in summaryFields)) throw new Error(`fields: "${f}" is not a company summary field (choose from ${Object.keys(summaryFields).join(', ')})`);

  const snap = await table.read();
  const header = [...snap.header];
  const keyCol = findKeyColumn(header, opts.column);
  const keyHeader = header[keyCol]!.trim().toLowerCase();

  // Output columns: reuse a header that exists, otherwise add it after the last one.
  const headerWrites: CellWrite[] = [];
  const colOf = (name: string): number => {
    const i = header.findIndex((h, j) => j !== keyCol && h.trim().toLowerCase() === name.toLowerCase());
    if (i >= 0) return i;
    header.push(name);
    headerWrites.push({ row: 0, col: header.length - 1, value: name });
    return header.length - 1;
  };
  const fieldCols = fields.map((f) => ({ f, col: colOf(f === keyHeader ? `matched_${f}` : f) }));
  const sectionCols = sections.map((s) => ({ s, col: colOf(s) }));
  const statusCol = colOf(STATUS_HEADER);
  const atCol = colOf(ENRICHED_AT_HEADER);

  const cutoff = typeof mode === 'object' ? now().getTime() - mode.olderThanDays * 86_400_000 : undefined;
  const cell = (r: number, c: number) => snap.rows[r]?.[c] ?? '';
  const report: EnrichReport = {
    keyColumn: header[keyCol]!, rows: snap.rows.length, rowsInScope: 0, uniqueQueries: 0, fromJournal: 0, fromCache: 0, requests: 0, billedQueries: 0,
    profileRequests: 0, matched: 0, noMatch: 0, vatGroups: 0, skipped: 0, invalid: 0, errors: 0, deferred: 0, keptCells: 0,
    dryRun: !!opts.dryRun, interrupted: false,
  };

  const writes: CellWrite[] = [...headerWrites];
  const put = (r: number, col: number, value: string, ours: boolean) => {
    const current = cell(r, col);
    if (current === value) return;
    if (current !== '' && !ours && !opts.force) {
      report.keptCells++;
      return;
    }
    writes.push({ row: r + 1, col, value });
  };

  // Rows by dedupe key, in first-seen order; invalid and too-short rows are settled here, for free.
  const rowsByKey = new Map<string, { send: string; rows: number[] }>();
  const enrichedBefore = new Set<number>();
  snap.rows.forEach((row, r) => {
    const q = row[keyCol] ?? '';
    if (q.trim() === '') return;
    const at = cell(r, atCol);
    const status = cell(r, statusCol);
    const wasEnriched = at !== '' && !status.startsWith('error');
    if (wasEnriched) enrichedBefore.add(r);
    if (mode === 'missing' && wasEnriched) return;
    if (cutoff !== undefined && wasEnriched && !(Date.parse(at) < cutoff)) return;
    report.rowsInScope++;
    const k = readQuery(q);
    if (k.status === 'invalid' || k.status === 'skipped') {
      report[k.status]++;
      put(r, statusCol, statusText(k.status, k.reason), true);
      return;
    }
    const entry = rowsByKey.get(k.key);
    if (entry) entry.rows.push(r);
    else rowsByKey.set(k.key, { send: k.send, rows: [r] });
  });
  report.uniqueQueries = rowsByKey.size;

  const lang = opts.lang ?? client.lang;
  const answers = new PaidAnswers({ stateDir: opts.stateDir ?? defaultStateDir(), tableId: table.id, service: opts.service ?? client.serviceUrl ?? 'unknown', limit: 1, lang, maxAgeDays: opts.maxAgeDays, now: () => now().getTime() });
  const keys = [...rowsByKey.keys()];
  const plan = answers.plan(keys);
  const free = [...plan.fromJournal, ...plan.fromCache];
  report.fromJournal = plan.fromJournal.length;
  report.fromCache = plan.fromCache.length;
  let paid = plan.toPay;
  if (opts.maxQueries !== undefined && paid.length > opts.maxQueries) {
    for (const k of paid.slice(opts.maxQueries)) report.deferred += rowsByKey.get(k)!.rows.length;
    paid = paid.slice(0, opts.maxQueries);
  }

  if (opts.dryRun) {
    report.requests = Math.ceil(paid.length / LOOKUP_BATCH_SIZE);
    report.billedQueries = paid.length;
    report.profileRequests = sections.length ? free.length + paid.length : 0;
    answers.finish(true);
    return report;
  }

  const enrichedAt = isoSeconds(now());
  const flushEvery = opts.flushEveryMs ?? table.saveEveryMs ?? 1_000;
  let lastFlush = Date.now();
  let lastFlushCost = 0;
  let flushing: Promise<void> = Promise.resolve();
  let flushError: unknown;
  const push = (force: boolean) => {
    if (writes.length) {
      const batch = writes.splice(0);
      flushing = flushing.then(() => table.write(batch));
    }
    // A save blocks the event loop (and the limiter's timers with it); spacing saves by 50x their cost keeps that under 2%.
    if (force || Date.now() - lastFlush >= Math.max(flushEvery, 50 * lastFlushCost)) {
      lastFlush = Date.now();
      flushing = flushing
        .then(async () => {
          const t0 = Date.now();
          await table.flush();
          lastFlushCost = Date.now() - t0;
        })
        .catch((e) => void (flushError ??= e));
    }
  };

  const noteError = (e: unknown) => {
    if (report.firstError || !e) return;
    const err = e as Partial<CompanyDataError>;
    report.firstError = { code: err.code ?? 'unknown', message: err.message ?? String(e), ...(err.hint ? { hint: err.hint } : {}) };
  };

  const matchedCodes = new Map<string, number[]>();
  const settle = (key: string, result: LookupResult) => {
    const entry = rowsByKey.get(key)!;
    const st = answerStatus(result);
    const company = result.matches?.[0];
    if (company && sections.length) matchedCodes.set(company.registry_code, [...(matchedCodes.get(company.registry_code) ?? []), ...entry.rows]);
    const counter = ({ matched: 'matched', vat_group: 'vatGroups', no_match: 'noMatch', skipped: 'skipped' } as const)[st.status];
    for (const r of entry.rows) {
      const ours = enrichedBefore.has(r);
      report[counter]++;
      for (const { f, col } of fieldCols) put(r, col, company ? summaryFields[f](company) : '', ours);
      put(r, statusCol, statusText(st.status, st.detail), true);
      put(r, atCol, enrichedAt, true);
    }
  };

  for (const k of free) {
    const a = answers.take(k);
    if (a) settle(k, a);
    else {
      // A cache line damaged on disk (a torn write): that query is paid again.
      paid.push(k);
      report.fromCache--;
    }
  }
  push(false);

  // Requests in flight up to the rate limit; each request's rows are written in the order sent.
  const aborted = () => opts.signal?.aborted === true;
  const res = await answers.pay(
    client.lookupSender(),
    paid.map((k) => ({ key: k, send: rowsByKey.get(k)!.send })),
    {
      shouldStop: aborted,
      onQuerySettled: (q, { answer, error }) => {
        if (answer) return settle(q.key, answer);
        // Not sent because the run was stopped: the rows stay as they are, for the next run.
        if (error instanceof NotSentError) return;
        const rows = rowsByKey.get(q.key)!.rows;
        report.errors += rows.length;
        noteError(error);
        for (const r of rows) put(r, statusCol, statusText('error', error.code), true);
      },
      onProgress: (p) => {
        push(false);
        opts.onProgress?.({ done: free.length + p.settled, total: keys.length, requests: p.requests });
      },
    },
  ).catch((e: unknown) => {
    answers.finish(true);
    throw e;
  });
  report.requests = res.requests;
  report.billedQueries = res.billedQueries;
  report.interrupted = res.stopped || aborted();

  // Profile sections: one request per matched company, after the lookups.
  for (const [code, rows] of matchedCodes) {
    if (aborted()) break;
    try {
      const res = await client.companies.get({ registry_code: code, include: [...sections], ...(opts.lang ? { lang: opts.lang } : {}) });
      report.profileRequests++;
      const profile = res.data as Record<string, unknown>;
      for (const r of rows) for (const { s, col } of sectionCols) put(r, col, sectionText(s, profile[s]), enrichedBefore.has(r));
    } catch (e) {
      report.profileRequests++;
      report.errors += rows.length;
      noteError(e);
      for (const r of rows) put(r, statusCol, `error: ${(e as CompanyDataError).code ?? 'profile_failed'}`, true);
    }
    push(false);
  }

  push(true);
  await flushing;
  // Every paid answer is in the table now; the journal is only needed when this did not finish.
  answers.finish(report.interrupted || !!flushError);
  if (flushError) throw flushError;
  return report;
}
