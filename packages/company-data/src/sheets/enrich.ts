import { homedir } from 'node:os';
import { join } from 'node:path';
import { QueryDedupe, resolveLookups, type LookupSender, type LookupSettled, type SendQuery } from '@company-data/core/bulk-lookup';
import type { CompanyDataError } from '@company-data/core/errors';
import {
  alreadyLookedUp,
  readQuery,
  sameQuery,
  statusText,
  statusWord,
  type LookupStatus,
  type QueryReading,
} from '@company-data/core/lookup';
import type { IncludeSection } from '@company-data/core/params';
import type { Lang } from '@company-data/core/schemas/common';
import type { CompanySummary } from '@company-data/core/schemas/company';
import { lockSheet } from './writer-lock';
import { PaidAnswers } from './paid-answers';
import { sectionText } from './profile-sections';
import { CsvTable, type RowEdits } from './csv-table';
import { addRow, PreflightError, type WriteCheck, type WritePlan } from './preflight';
import type { CellWrite, Table, TableSnapshot } from './table';

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
/** The key as it was when the row was enriched: a key edited since is looked up again (alreadyLookedUp). */
export const QUERY_HEADER = 'enrich_query';

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
  /**
   * Most distinct queries this run may bill (after dedupe, journal and cache). Above it nothing is
   * sent and the run fails saying how many it would bill: check before paying, as the n8n Lookup.
   */
  maxBilledQueries?: number;
  lang?: Lang;
  /** Folder for the resume journal and the answer cache (default ~/.company-data/state). */
  stateDir?: string;
  /** Reuse answers paid for in earlier runs when younger than this many days (default 30; 0: never). */
  maxAgeDays?: number;
  /** Which service answers, for the answer cache (default: the client's base URL). */
  service?: string;
  now?: () => Date;
  /** Save at most this often while running (default: the table's saveEveryMs; 10 s for XLSX and Google Sheets). A CSV is saved once, at the end. */
  flushEveryMs?: number;
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
  /** Cells left as a person typed them (use force to overwrite). */
  keptCells: number;
  dryRun: boolean;
  interrupted: boolean;
  /** The checks made before paying (tables that can refuse a save: Google Sheets); a dry run reports them too. */
  checks?: WriteCheck[];
  /**
   * Set when the run stopped on an error after it began paying (a refused save, revoked credentials):
   * how many answers it paid for, all kept in the state folder, so running again bills nothing for them.
   */
  failed?: { keptAnswers: number; stateDir: string };
}

/** The report of a run that stopped on this error after it began paying, when there is one. */
export function reportOfFailedRun(err: unknown): EnrichReport | undefined {
  return (err as { enrichReport?: EnrichReport } | null)?.enrichReport;
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
  throw new Error(
    `column: no registry code, VAT number or name header found; name the column with --column (headers: ${header.filter(Boolean).join(', ') || 'none'})`,
  );
}

function isoSeconds(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function defaultStateDir(): string {
  return process.env.COMPANY_DATA_STATE_DIR || join(homedir(), '.company-data', 'state');
}

/**
 * Enriches the rows of a table by bulk lookup, through the same pipeline as the library's bulkLookup
 * and the n8n Lookup (QueryDedupe, alreadyLookedUp, resolveLookups): a row is looked up unless it holds
 * a final answer for the key it holds NOW; each distinct query is billed once (the resume journal and
 * the answer cache are the pipeline's cache); a spending cap refuses before anything is sent. A CSV is
 * streamed (read twice row by row: plan while sending, then rewrite to a temp file renamed over it
 * while the answers arrive); a whole table is saved every saveEveryMs while running. The journal makes
 * a killed run resumable.
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

/**
 * Where the rows come from and go to: a CSV file streamed twice (plan, then rewrite), or a whole table
 * (XLSX, Google Sheets, memory) read once, whose changes are written as cell writes. Both passes see
 * the header first, then the data rows in order. A row's edits may be a promise (its answer is still on
 * its way): the rewrite waits for it, the whole table saving what it has meanwhile every saveEveryMs.
 */
type Edits = RowEdits | undefined;
interface RowSource {
  pass(): AsyncIterable<string[]>;
  save(edits: (row: string[], index: number) => Edits | Promise<Edits>, width: number): Promise<void>;
}

function rowSource(table: Table, flushEveryMs: number | undefined): RowSource {
  // A CSV is rewritten once, to a temp file renamed over it at the end: see "When results are saved" in docs/assumptions.md.
  if (table instanceof CsvTable) return { pass: () => table.rows(), save: (edits, width) => table.rewrite(edits, width) };
  let snap: TableSnapshot | undefined;
  return {
    async *pass() {
      snap ??= await table.read();
      yield snap.header;
      yield* snap.rows;
    },
    async save(edits) {
      const every = flushEveryMs ?? table.saveEveryMs ?? 1_000;
      let writes: CellWrite[] = [];
      let unsaved = false;
      let lastSave = Date.now();
      let lastCost = 0;
      // A save blocks the event loop (and the limiter's timers with it); spacing saves by 50x their cost keeps that under 2%.
      const gap = () => Math.max(every, 50 * lastCost);
      const save = async () => {
        if (writes.length) await table.write(writes.splice(0));
        const t0 = Date.now();
        await table.flush();
        lastCost = Date.now() - t0;
        lastSave = Date.now();
        unsaved = false;
      };
      let index = 0;
      for await (const row of this.pass()) {
        let e = edits(row, index);
        if (e instanceof Promise) {
          // Waiting for an answer: what is written so far is saved whenever a save is due.
          const pending = e;
          let done = false;
          pending.then(
            () => void (done = true),
            () => void (done = true),
          );
          while (!done && (writes.length > 0 || unsaved)) {
            let timer: NodeJS.Timeout | undefined;
            const due = new Promise<void>((r) => (timer = setTimeout(r, Math.max(0, lastSave + gap() - Date.now()))));
            try {
              await Promise.race([pending, due]);
            } finally {
              clearTimeout(timer);
            }
            if (!done && Date.now() - lastSave >= gap()) await save();
          }
          e = await pending;
        }
        for (const [col, value] of e ?? []) writes.push({ row: index, col, value });
        index++;
        if (writes.length >= 50_000) {
          await table.write(writes.splice(0));
          unsaved = true;
        }
        if ((writes.length > 0 || unsaved) && index % 1000 === 0 && Date.now() - lastSave >= gap()) await save();
      }
      await save();
      writes = [];
    },
  };
}

/** What a row needs, by the one rule of the lookup pipeline (alreadyLookedUp). */
type RowPlan =
  | { kind: 'none' }
  /** The key was emptied in a row enrich wrote: its data belongs to no key now. */
  | { kind: 'clear' }
  | { kind: 'keep' }
  | { kind: 'free'; status: 'invalid' | 'skipped'; reason: string }
  | { kind: 'send'; key: string };

/** One distinct query's cells, worked out once however many rows share it. */
interface Outcome {
  status: LookupStatus;
  text: string;
  fields?: string[];
  code?: string;
  error?: CompanyDataError;
}

class Changed {
  private waiters: (() => void)[] = [];
  wait(): Promise<void> {
    return new Promise((r) => this.waiters.push(r));
  }
  notify(): void {
    if (this.waiters.length) for (const w of this.waiters.splice(0)) w();
  }
}

/** New distinct queries sent together while the table is still being read: the first chunk, doubling after (the answer cache is indexed once per chunk). */
const FIRST_CHUNK = 1000;

async function enrichLocked(opts: EnrichOptions): Promise<EnrichReport> {
  const { table, client } = opts;
  const now = opts.now ?? (() => new Date());
  const mode = opts.mode ?? 'missing';
  const fields = opts.fields ?? defaultFields;
  const sections = opts.sections ?? [];
  for (const f of fields)
    if (!(f in summaryFields))
      throw new Error(`fields: "${f}" is not a company summary field (choose from ${Object.keys(summaryFields).join(', ')})`);
  if (opts.maxBilledQueries !== undefined && !(Number.isInteger(opts.maxBilledQueries) && opts.maxBilledQueries >= 0)) {
    throw new Error('max-billed-queries: must be a whole number of 0 or more');
  }
  const source = rowSource(table, opts.flushEveryMs);
  const report: EnrichReport = {
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
    dryRun: !!opts.dryRun,
    interrupted: false,
  };
  const nowMs = now().getTime();
  const maxAgeMs = typeof mode === 'object' ? mode.olderThanDays * 86_400_000 : undefined;
  const lang = opts.lang ?? client.lang;
  const stateDir = opts.stateDir ?? defaultStateDir();
  const answers = new PaidAnswers({
    stateDir,
    tableId: table.id,
    service: opts.service ?? client.serviceUrl ?? 'unknown',
    limit: 1,
    lang,
    maxAgeDays: opts.maxAgeDays,
    now: () => now().getTime(),
  });
  const noteError = (e: unknown) => {
    if (report.firstError || !e) return;
    const err = e as Partial<CompanyDataError>;
    report.firstError = { code: err.code ?? 'unknown', message: err.message ?? String(e), ...(err.hint ? { hint: err.hint } : {}) };
  };

  // The distinct queries: journal, then answer cache, then paid, each settled once into its cells.
  // Without a spending cap they are sent while the table is still being read (pass 1), in chunks of new
  // keys in first-seen order; with one, after pass 1, once the cap is checked. Pass 2 writes each row as
  // soon as its query's outcome is there (and its company's profile sections, when asked for).
  const outcomes = new Map<string, Outcome>();
  const changed = new Changed();
  const sectionCells = new Map<string, string[] | { error: CompanyDataError }>();
  const sectionQueue: { key: string; outcome: Outcome }[] = [];
  let failure: { error: unknown } | undefined;
  let stopAll = false;
  let lookupsOver = false;
  let allOver = false;
  const aborted = () => opts.signal?.aborted === true;
  const totals = { requests: 0, billed: 0, stopped: false, done: 0 };
  const chunkRequests: number[] = [];
  const chunks: Promise<void>[] = [];
  const dedupe = new QueryDedupe();
  const readMemo = memoisedReadQuery();
  let L: Layout | undefined;

  const onSettled = (key: string, st: LookupSettled) => {
    totals.done++;
    let o: Outcome;
    if (st.status === 'error') {
      noteError(st.error);
      o = { status: 'error', text: statusText('error', st.error.code), error: st.error };
    } else {
      const company = st.answer.matches?.[0];
      o = {
        status: st.status,
        text: statusText(st.status, st.detail),
        fields: L!.fieldCols.map(({ f }) => (company ? summaryFields[f](company) : '')),
        code: company?.registry_code,
      };
    }
    if (o.code !== undefined && sections.length) sectionQueue.push({ key, outcome: o });
    else outcomes.set(key, o);
    changed.notify();
  };
  const send = (qs: SendQuery[], cap?: { max: number; sending: () => void }) => {
    if (failure || stopAll || qs.length === 0) return;
    const i = chunkRequests.push(0) - 1;
    chunks.push(
      resolveLookups(client.lookupSender(), qs, {
        limit: 1,
        lang,
        cache: answers,
        ...(cap ? { maxBilledQueries: cap.max, capName: 'max-billed-queries', onSending: cap.sending } : {}),
        shouldStop: () => stopAll || aborted(),
        onSettled,
        onProgress: (p) => {
          chunkRequests[i] = p.requests;
          opts.onProgress?.({ done: totals.done, total: dedupe.unique.size, requests: chunkRequests.reduce((a, b) => a + b, 0) });
        },
      })
        .then(
          (r) => {
            totals.requests += r.requests;
            totals.billed += r.billedQueries;
            totals.stopped ||= r.stopped;
          },
          (e: unknown) => void (failure ??= { error: e }),
        )
        .finally(() => changed.notify()),
    );
  };
  // Profile sections: one request per matched company, in the order the lookups settle.
  const sectionWork = async () => {
    for (let i = 0; ; ) {
      if (failure || stopAll) return;
      if (i === sectionQueue.length) {
        if (lookupsOver) return;
        await changed.wait();
        continue;
      }
      // Stopped: rows whose sections were not fetched stay as they are, for the next run (their answers are in the journal).
      if (aborted()) return;
      const { key, outcome } = sectionQueue[i++]!;
      const code = outcome.code!;
      if (!sectionCells.has(code)) {
        try {
          const res = await client.companies.get({
            registry_code: code,
            include: [...sections],
            ...(opts.lang ? { lang: opts.lang } : {}),
          });
          const profile = res.data as Record<string, unknown>;
          sectionCells.set(
            code,
            L!.sectionCols.map(({ s }) => sectionText(s, profile[s])),
          );
        } catch (e) {
          noteError(e);
          sectionCells.set(code, { error: e as CompanyDataError });
        }
        report.profileRequests++;
      }
      outcomes.set(key, outcome);
      changed.notify();
    }
  };
  // A table checked before paying is read whole first (the checks need every row the run writes): nothing is sent while it is read.
  const streamSend = opts.maxBilledQueries === undefined && !opts.dryRun && !table.checkWrites;
  /** Data rows the run writes, as runs (kept only for the checks). */
  const rowsToWrite: [number, number][] = [];
  let paying = false;
  const sectionsDone =
    !opts.dryRun && sections.length ? sectionWork().catch((e: unknown) => void (failure ??= { error: e })) : Promise.resolve();
  /** Ends the run on an error: nothing more is sent, requests in flight finish (their answers reach the journal), the journal is kept. */
  const fail = async (e: unknown): Promise<never> => {
    stopAll = true;
    changed.notify();
    await Promise.all(chunks);
    lookupsOver = true;
    changed.notify();
    await sectionsDone;
    answers.finish(true);
    if (paying && !(e instanceof PreflightError) && e && typeof e === 'object') {
      report.requests = totals.requests;
      report.billedQueries = totals.billed;
      report.fromJournal = answers.fromJournal;
      report.fromCache = answers.fromCache;
      report.interrupted = true;
      report.failed = { keptAnswers: totals.billed, stateDir };
      Object.defineProperty(e, 'enrichReport', { value: report, enumerable: false, configurable: true });
    }
    throw e;
  };

  // Pass 1: which rows need a lookup, and the distinct queries among them. Nothing but the keys is kept.
  let header: string[] | undefined;
  let width = 0;
  let index = 0;
  let layoutError: unknown;
  let fresh: SendQuery[] = [];
  let chunk = FIRST_CHUNK;
  try {
    for await (const row of source.pass()) {
      if (index++ === 0) {
        header = [...row];
        // Trailing empty header cells are not columns (spreadsheet exports often carry them).
        while (header.length && header[header.length - 1]!.trim() === '') header.pop();
        try {
          L = layOut(header, opts.column, fields, sections);
        } catch (e) {
          // Read on: a file that is not valid CSV further down says so first, as when it was read whole.
          layoutError = e;
        }
        continue;
      }
      if (!L) continue;
      width = Math.max(width, row.length);
      if (row.some((v) => v !== '')) report.rows = index - 1;
      const before = dedupe.unique.size;
      const p = planRow(row, L, mode, maxAgeMs, nowMs, (q) => dedupe.read(q, readMemo(q)));
      if (table.checkWrites && p.kind !== 'none' && p.kind !== 'keep') addRow(rowsToWrite, index - 1);
      if (p.kind === 'free') {
        report.rowsInScope++;
        report[p.status]++;
      } else if (p.kind === 'send') {
        report.rowsInScope++;
        if (streamSend && dedupe.unique.size > before) {
          fresh.push({ key: p.key, send: dedupe.unique.get(p.key)! });
          if (fresh.length >= chunk) {
            send(fresh);
            fresh = [];
            chunk *= 2;
          }
        }
      }
    }
    if (layoutError) throw layoutError;
    if (!header || !L) {
      header = [];
      L = layOut(header, opts.column, fields, sections);
    }
  } catch (e) {
    return fail(e);
  }
  const Lay = L;
  width = Math.max(width, Lay.header.length);
  report.keyColumn = Lay.header[Lay.keyCol]!;
  report.uniqueQueries = dedupe.unique.size;

  // Check before paying: a save this run cannot make is found before anything is sent.
  if (table.checkWrites) {
    try {
      report.checks = await table.checkWrites(writePlan(Lay, rowsToWrite), { dryRun: !!opts.dryRun });
      if (!opts.dryRun && report.checks.some((c) => c.ok === false)) throw new PreflightError(report.checks);
    } catch (e) {
      return fail(e);
    }
  }
  paying = true;

  if (opts.dryRun) {
    try {
      const r = await resolveLookups(client.lookupSender(), dedupe.queries(), {
        limit: 1,
        lang,
        cache: answers,
        maxBilledQueries: opts.maxBilledQueries,
        capName: 'max-billed-queries',
        dryRun: true,
      });
      report.requests = r.requests;
      report.billedQueries = r.billedQueries;
      report.fromJournal = answers.fromJournal;
      report.fromCache = answers.fromCache;
      report.profileRequests = sections.length ? dedupe.unique.size : 0;
      return report;
    } finally {
      answers.finish(true);
    }
  }
  if (streamSend) send(fresh);
  else {
    // The cap (when given) is checked on every distinct query before anything is sent; pass 2 starts once it is passed.
    let sending!: () => void;
    const passed = new Promise<void>((r) => (sending = r));
    send(dedupe.queries(), { max: opts.maxBilledQueries!, sending });
    await Promise.race([passed, ...chunks]);
  }
  if (failure) return fail(failure.error);
  const everything = (async () => {
    await Promise.all(chunks);
    lookupsOver = true;
    changed.notify();
    await sectionsDone;
  })().finally(() => {
    allOver = true;
    changed.notify();
  });
  const outcomeOf = async (key: string): Promise<Outcome | undefined> => {
    for (;;) {
      if (failure) throw failure.error;
      const o = outcomes.get(key);
      if (o || allOver) return o;
      await changed.wait();
    }
  };

  // Pass 2: each row's cells from its query's outcome, written row by row (streamed for CSV) while the lookups run.
  const enrichedAt = isoSeconds(now());
  const counter = { matched: 'matched', vat_group: 'vatGroups', no_match: 'noMatch', skipped: 'skipped' } as const;
  const rowEdits = (row: string[], p: RowPlan, o: Outcome | undefined): Edits => {
    if (p.kind === 'none' || p.kind === 'keep') return undefined;
    const edits: [number, string][] = [];
    const ours = ownsOutput(row, Lay);
    const put = (col: number, value: string, mine: boolean) => {
      const current = row[col] ?? '';
      if (current === value) return;
      if (current !== '' && !mine && !opts.force) return void report.keptCells++;
      edits.push([col, value]);
    };
    // Cells of another key (edited or emptied) are never left standing: cleared, or replaced below.
    const clearOutput = () => {
      for (const { col } of Lay.fieldCols) put(col, '', ours);
      for (const { col } of Lay.sectionCols) put(col, '', ours);
      put(Lay.atCol, '', true);
      put(Lay.queryCol, '', true);
    };
    if (p.kind === 'clear') {
      clearOutput();
      put(Lay.statusCol, '', true);
      return edits;
    }
    if (p.kind === 'free') {
      if (ours) clearOutput();
      put(Lay.statusCol, statusText(p.status, p.reason), true);
      return edits;
    }
    // Not sent (the run was stopped): the row stays as it is, for the next run.
    if (!o) return undefined;
    if (o.error) {
      report.errors++;
      if (ours && !sameQuery(recordedQuery(row, Lay), row[Lay.keyCol] ?? '')) clearOutput();
      put(Lay.statusCol, o.text, true);
      return edits;
    }
    report[counter[o.status as keyof typeof counter]]++;
    Lay.fieldCols.forEach(({ col }, j) => put(col, o.fields![j]!, ours));
    let text = o.text;
    const sec = o.code !== undefined ? sectionCells.get(o.code) : undefined;
    if (sec && 'error' in sec) {
      report.errors++;
      text = `error: ${sec.error.code ?? 'profile_failed'}`;
    } else if (sec) Lay.sectionCols.forEach(({ col }, j) => put(col, sec[j]!, ours));
    put(Lay.statusCol, text, true);
    put(Lay.atCol, enrichedAt, true);
    put(Lay.queryCol, row[Lay.keyCol] ?? '', true);
    return edits;
  };
  try {
    await source.save((row, r) => {
      if (r === 0) return Lay.headerWrites;
      const p = planRow(row, Lay, mode, maxAgeMs, nowMs, readMemo);
      if (p.kind !== 'send') return rowEdits(row, p, undefined);
      if (failure) throw failure.error;
      const o = outcomes.get(p.key);
      if (o || allOver) return rowEdits(row, p, o);
      return outcomeOf(p.key).then((o) => rowEdits(row, p, o));
    }, width);
    await everything;
  } catch (e) {
    return fail(e);
  }
  report.fromJournal = answers.fromJournal;
  report.fromCache = answers.fromCache;
  report.requests = totals.requests;
  report.billedQueries = totals.billed;
  report.interrupted = totals.stopped || aborted();
  // Every paid answer is in the table now; the journal is only needed when this did not finish.
  answers.finish(report.interrupted);
  return report;
}

/** What the run writes, for Table.checkWrites. */
function writePlan(L: Layout, rows: [number, number][]): WritePlan {
  const created = new Set(L.headerWrites.map(([col]) => col));
  const columns = [...L.fieldCols.map((c) => c.col), ...L.sectionCols.map((c) => c.col), L.statusCol, L.atCol, L.queryCol];
  // Probe cells: the run's own header cells first (their text is the run's), then the ones it creates (empty until then).
  const own = [L.statusCol, L.atCol, L.queryCol].filter((c) => !created.has(c)).map((col) => ({ col, value: L.header[col]! }));
  return {
    header: L.header,
    newHeaders: L.headerWrites.map(([col, value]) => ({ col, value })),
    columns,
    rows,
    width: L.header.length,
    probe: [...own, ...L.headerWrites.map(([col]) => ({ col, value: '' }))],
  };
}

/** Where everything is: the key column, the output columns (reused when there, else added after the last). */
function layOut(header: string[], column: string | undefined, fields: readonly SummaryField[], sections: readonly IncludeSection[]) {
  const keyCol = findKeyColumn(header, column);
  const keyHeader = header[keyCol]!.trim().toLowerCase();
  const headerWrites: [number, string][] = [];
  const colOf = (name: string): number => {
    const i = header.findIndex((h, j) => j !== keyCol && h.trim().toLowerCase() === name.toLowerCase());
    if (i >= 0) return i;
    header.push(name);
    headerWrites.push([header.length - 1, name]);
    return header.length - 1;
  };
  const fieldCols = fields.map((f) => ({ f, col: colOf(f === keyHeader ? `matched_${f}` : f) }));
  const sectionCols = sections.map((s) => ({ s, col: colOf(s) }));
  const statusCol = colOf(STATUS_HEADER);
  const atCol = colOf(ENRICHED_AT_HEADER);
  const queryCol = colOf(QUERY_HEADER);
  // Output columns that tell which company a row of the old version (without enrich_query) holds.
  const codeCol = fieldCols.find((c) => c.f === 'registry_code')?.col;
  const vatCol = fieldCols.find((c) => c.f === 'vat_number')?.col;
  return { header, keyCol, headerWrites, fieldCols, sectionCols, statusCol, atCol, queryCol, codeCol, vatCol };
}
type Layout = ReturnType<typeof layOut>;

/** Whether the row's output cells are enrich's own (it wrote them, and not as an error): refreshed without --force. */
function ownsOutput(row: readonly string[], L: Layout): boolean {
  return (row[L.atCol] ?? '') !== '' && statusWord(row[L.statusCol] ?? '') !== 'error';
}

/**
 * The query a row was enriched for: its enrich_query cell. A row of the version before it has none;
 * there the matched company's own registry code or VAT number stands in when the key is of that kind
 * (an edited code then reads as changed), else the key itself (a name cannot be checked that way).
 */
function recordedQuery(row: readonly string[], L: Layout): string {
  const recorded = row[L.queryCol] ?? '';
  if (recorded !== '') return recorded;
  const key = row[L.keyCol] ?? '';
  const k = readQuery(key);
  const status = statusWord(row[L.statusCol] ?? '');
  if (k.status === 'send' && (status === 'matched' || status === 'vat_group')) {
    const evidence = k.type === 'registry_code' ? L.codeCol : k.type === 'vat_number' ? L.vatCol : undefined;
    const cell = evidence === undefined ? '' : (row[evidence] ?? '');
    if (cell !== '') return cell;
  }
  return key;
}

/**
 * readQuery remembered per cell text: a large sheet repeats few keys many times, and both passes read
 * every row. Bounded (cleared at 50,000 texts), so a file of all-different keys does not grow it.
 */
function memoisedReadQuery(): (q: string) => QueryReading {
  const memo = new Map<string, QueryReading>();
  return (q) => {
    let r = memo.get(q);
    if (r === undefined) {
      if (memo.size >= 50_000) memo.clear();
      memo.set(q, (r = readQuery(q)));
    }
    return r;
  };
}

function planRow(
  row: readonly string[],
  L: Layout,
  mode: EnrichMode,
  maxAgeMs: number | undefined,
  nowMs: number,
  read: (q: string) => QueryReading,
): RowPlan {
  const q = row[L.keyCol] ?? '';
  const at = row[L.atCol] ?? '';
  if (q.trim() === '') return at !== '' ? { kind: 'clear' } : { kind: 'none' };
  // Rows without enriched_at were never looked up (invalid and too-short rows cost nothing to check again).
  const prior = at !== '' ? { status: row[L.statusCol], query: recordedQuery(row, L), at } : undefined;
  if (mode !== 'all' && alreadyLookedUp(prior, q, maxAgeMs, nowMs)) return { kind: 'keep' };
  const k = read(q);
  if (k.status === 'invalid' || k.status === 'skipped') return { kind: 'free', status: k.status, reason: k.reason };
  return { kind: 'send', key: k.key };
}
