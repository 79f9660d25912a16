import { QueryDedupe, resolveLookups, type LookupSettled, type SendQuery } from '@company-data/core/bulk-lookup';
import type { CompanyDataError } from '@company-data/core/errors';
import {
  alreadyLookedUp,
  lookupColumns,
  matchColumn,
  readQuery,
  sameQuery,
  statusWord,
  type LookupStatus,
  type PriorLookup,
  type QueryReading,
} from '@company-data/core/lookup';
import type { IncludeSection } from '@company-data/core/params';
import { fileLocks } from './writer-lock';
import { systemClock } from '../transport/clock';
import { PaidAnswers } from './paid-answers';
import { defaultStateDir } from './state-dir';
import { sectionText } from '@company-data/core/sheets/enrich/profile-sections';
import { CsvTable } from './csv-table';
import { addRow, PreflightError, type WritePlan } from './preflight';
import type { CellWrite, ColumnsView, Table, TableSnapshot } from './table';

import {
  defaultFields,
  summaryFields,
  type EnrichMode,
  type EnrichReport,
  type SheetsEnrichOptions,
  type SummaryField,
} from '@company-data/core/sheets/enrich/options';

export { defaultFields, reportOfFailedRun, summaryFields } from '@company-data/core/sheets/enrich/options';
export type { EnrichClient, EnrichMode, EnrichProgress, EnrichReport, SummaryField } from '@company-data/core/sheets/enrich/options';

/**
 * The columns of the version before issue 22: bare field names (name, status, ...) that took over a
 * person's column of the same name, and these three. Read, never written again, except that a row
 * moved to the company_data_ columns has its old status, time and query cleared (they are the tool's
 * beyond doubt): see "Own columns" in docs/assumptions.md.
 */
const LEGACY = { status: 'enrich_status', at: 'enriched_at', query: 'enrich_query' } as const;

/** The CLI's and library's options: the core's, with the state folder and a clock of dates instead of the ports. */
export interface EnrichOptions extends Omit<SheetsEnrichOptions, 'ports'> {
  /** Folder for the resume journal and the answer cache (default ~/.company-data/state). */
  stateDir?: string;
}

const KEY_HEADER_PATTERNS: RegExp[] = [
  /^(registry[\s_-]*code|reg[\s_.-]*(code|nr|no)|registrikood|registri[\s_-]*kood|business[\s_-]*id|company[\s_-]*code)$/i,
  /^(vat([\s_-]*(number|no|nr|id|code))?|kmkr([\s_-]*(nr|number))?|käibemaksukohustuslase[\s_-]*number)$/i,
  /^(company([\s_-]*name)?|name|nimi|ettevõte|ettevõtte[\s_-]*nimi|firma|organisation|organization)$/i,
];

/** How a header is matched by name, wherever it is looked up: spaces around it and case do not count. */
const headerName = (h: string): string => h.trim().toLowerCase();

export function findKeyColumn(header: readonly string[], wanted?: string): number {
  const norm = header.map(headerName);
  if (wanted !== undefined) {
    const i = norm.indexOf(headerName(wanted));
    if (i < 0) throw new Error(`column: no header "${wanted}" in the first row (headers: ${header.filter(Boolean).join(', ') || 'none'})`);
    return i;
  }
  // In a sheet the version before issue 22 enriched, columns named like summary fields are its output
  // (unless the key itself had that name, in which case the output went to matched_<field>); they must
  // not be taken for the key. The company_data_ columns never look like a key.
  const enrichedBefore = norm.includes(LEGACY.status);
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

/**
 * Enriches the rows of a table by bulk lookup, through the same pipeline as the library's bulkLookup
 * and the n8n Lookup (QueryDedupe, alreadyLookedUp, resolveLookups): a row is looked up unless it holds
 * a final answer for the key it holds NOW; each distinct query is billed once (the resume journal and
 * the answer cache are the pipeline's cache); a spending cap refuses before anything is sent. A CSV is
 * streamed (read twice row by row: plan while sending, then rewrite to a temp file renamed over it
 * while the answers arrive); a whole table is saved every saveEveryMs while running, each save written
 * to the rows that hold the keys looked up, wherever they are by then (a Google sheet others edit is
 * read again before and after each save). The journal makes a killed run resumable.
 */
export async function enrichTable(opts: EnrichOptions): Promise<EnrichReport> {
  const { stateDir = defaultStateDir(), ...rest } = opts;
  return enrichSheet({
    ...rest,
    ports: {
      clock: systemClock,
      answers: (scope) => new PaidAnswers({ ...scope, stateDir, limit: scope.limit }),
      locks: fileLocks,
    },
  });
}

/** The enrich entry over ports (packages/core/sheets/ports.ts): the CLI's enrichTable fills them with files and timers. */
export async function enrichSheet(opts: SheetsEnrichOptions): Promise<EnrichReport> {
  // Taken before the table is read: a second run reading it meanwhile would bill the same rows again.
  const lock = opts.dryRun ? undefined : await opts.ports.locks?.acquire(opts.table);
  try {
    return await enrichLocked(opts);
  } finally {
    await lock?.release();
  }
}

/** The rows of the first pass, header first: a CSV streamed from the file, any other table read whole once. */
function firstPass(table: Table, keep: (snap: TableSnapshot) => void): AsyncIterable<string[]> {
  if (table instanceof CsvTable) return table.rows();
  return (async function* () {
    const snap = await table.read();
    keep(snap);
    yield snap.header;
    yield* snap.rows;
  })();
}

/** What a row needs, by the one rule of the lookup pipeline (alreadyLookedUp). */
type RowPlan =
  | { kind: 'none' }
  /** The key was emptied in a row enrich wrote: its data belongs to no key now. */
  | { kind: 'clear' }
  | { kind: 'keep' }
  | { kind: 'free'; status: 'invalid' | 'skipped'; reason: string }
  | { kind: 'send'; key: string }
  /** Enriched by the old version for the key it holds: moved to the company_data_ columns when its answer is free. */
  | { kind: 'migrate'; key: string; send: string };

/** One distinct query's cells, worked out once however many rows share it. */
interface Outcome {
  status: LookupStatus;
  reason: string;
  fields?: string[];
  code?: string;
  error?: CompanyDataError;
}

/** What one row gets: its edits (Lay's columns), cells of a person kept, and whether it waits for an answer. */
interface RowResult {
  edits?: [number, string][];
  kept: number;
  /** The key whose answer the row waits for. */
  waiting?: string;
  /** A row whose key this run did not look up (someone inserted it or edited its key meanwhile). */
  leftAlone?: boolean;
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
/** Saves in a row that found rows moved under them (a colleague sorting while we write) before the run waits a whole save gap again. */
const MAX_REPAIRS = 3;

async function enrichLocked(opts: SheetsEnrichOptions): Promise<EnrichReport> {
  const { table, client } = opts;
  const { clock } = opts.ports;
  const now = opts.now ?? (() => new Date(clock.now()));
  const mode = opts.mode ?? 'missing';
  const fields = opts.fields ?? defaultFields;
  const sections = opts.sections ?? [];
  for (const f of fields)
    if (!(f in summaryFields))
      throw new Error(`fields: "${f}" is not a company summary field (choose from ${Object.keys(summaryFields).join(', ')})`);
  if (opts.maxBilledQueries !== undefined && !(Number.isInteger(opts.maxBilledQueries) && opts.maxBilledQueries >= 0)) {
    throw new Error('max-billed-queries: must be a whole number of 0 or more');
  }
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
    leftAlone: 0,
    personColumns: [],
    legacyRows: 0,
    dryRun: !!opts.dryRun,
    interrupted: false,
  };
  const nowMs = now().getTime();
  const maxAgeMs = typeof mode === 'object' ? mode.olderThanDays * 86_400_000 : undefined;
  const lang = opts.lang ?? client.lang;
  const answers = await opts.ports.answers({
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
  /** Rows per distinct query sent (the report counts rows), and per key of an old-version row that could move for free. */
  const sendRows = new Map<string, number>();
  const legacyRows = new Map<string, { send: string; rows: number }>();
  let snapshot: TableSnapshot | undefined;

  const onSettled = (key: string, st: LookupSettled) => {
    totals.done++;
    let o: Outcome;
    if (st.status === 'error') {
      noteError(st.error);
      o = { status: 'error', reason: st.error.message, error: st.error };
    } else {
      const company = st.answer.matches?.[0];
      o = {
        status: st.status,
        reason: st.detail ?? '',
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
  /** Whether one of those rows holds the old version's state, which its save empties (see LEGACY). */
  let clearsLegacy = false;
  let paying = false;
  const sectionsDone =
    !opts.dryRun && sections.length ? sectionWork().catch((e: unknown) => void (failure ??= { error: e })) : Promise.resolve();
  /** What was sent and billed, and what came free, into the report. */
  const countPaid = (requests: number, billed: number) => {
    report.requests = requests;
    report.billedQueries = billed;
    report.fromJournal = answers.fromJournal;
    report.fromCache = answers.fromCache;
  };
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
      countPaid(totals.requests, totals.billed);
      report.interrupted = true;
      report.failed = { keptAnswers: totals.billed, stateDir: answers.location };
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
    for await (const row of firstPass(table, (s) => (snapshot = s))) {
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
      const p = planRow(row, L, mode, maxAgeMs, nowMs, (q) => dedupe.read(q, readMemo(q)), readMemo);
      if (table.checkWrites && p.kind !== 'none' && p.kind !== 'keep') {
        addRow(rowsToWrite, index - 1);
        if (p.kind !== 'clear' && L.legacy && !clearsLegacy) clearsLegacy = legacyState(L.legacy).some((c) => (row[c] ?? '') !== '');
      }
      if (p.kind === 'migrate') {
        const m = legacyRows.get(p.key);
        if (m) m.rows++;
        else legacyRows.set(p.key, { send: p.send, rows: 1 });
      } else if (p.kind === 'free') {
        report.rowsInScope++;
        report[p.status]++;
      } else if (p.kind === 'send') {
        report.rowsInScope++;
        sendRows.set(p.key, (sendRows.get(p.key) ?? 0) + 1);
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
  report.personColumns = Lay.personColumns;
  report.uniqueQueries = dedupe.unique.size;

  // Check before paying: a save this run cannot make is found before anything is sent.
  if (table.checkWrites) {
    try {
      report.checks = await table.checkWrites(writePlan(Lay, rowsToWrite, clearsLegacy), { dryRun: !!opts.dryRun });
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
      countPaid(r.requests, r.billedQueries);
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
    const sent = chunks.length;
    send(dedupe.queries(), { max: opts.maxBilledQueries!, sending });
    // Nothing to send (every row answered already) starts no chunk, and nothing would ever say the cap passed.
    if (chunks.length > sent) await Promise.race([passed, ...chunks]);
  }
  if (failure) return fail(failure.error);
  // Rows the old version enriched for the key they hold move to the company_data_ columns when their
  // answer is free (the journal, or the answer cache within --max-age); the others keep their old
  // columns until a run that pays for them (--mode all). Never billed: the cap is 0 for them.
  const migrating = new Set<string>();
  if (legacyRows.size) {
    const free = new Set(answers.free([...legacyRows.keys()].filter((k) => !dedupe.unique.has(k))));
    const moving: SendQuery[] = [];
    for (const [key, m] of legacyRows) {
      if (!dedupe.unique.has(key) && !free.has(key)) {
        report.legacyRows += m.rows;
        continue;
      }
      migrating.add(key);
      sendRows.set(key, (sendRows.get(key) ?? 0) + m.rows);
      if (!dedupe.unique.has(key)) moving.push({ key, send: m.send });
    }
    if (moving.length)
      chunks.push(
        resolveLookups(client.lookupSender(), moving, {
          limit: 1,
          lang,
          cache: answers,
          maxBilledQueries: 0,
          shouldStop: () => stopAll || aborted(),
          onSettled,
        })
          .then(
            () => undefined,
            // A cached line found damaged after all: refused before paying; those rows keep their old columns.
            () => undefined,
          )
          .finally(() => changed.notify()),
      );
  }
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

  // Pass 2: each row's cells from its query's outcome, written while the lookups run: a CSV row by row
  // to a temp file, a whole table in saves to the rows that hold each key when the save is made.
  const enrichedAt = isoSeconds(now());
  /** Our columns of rows whose key this run does not know, as some row holding that key had them: see stray below. */
  let knownCells: ((key: string) => string[] | undefined) | undefined;
  const ourCols = Lay.ourCols;
  const rowEdits = (row: readonly string[], p: RowPlan, o: Outcome | undefined): RowResult => {
    const res: RowResult = { kept: 0 };
    if (p.kind === 'none' || p.kind === 'keep') return res;
    const edits: [number, string][] = [];
    const ours = ownsOutput(row, Lay);
    const put = (col: number, value: string, mine: boolean) => {
      const current = row[col] ?? '';
      if (current === value) return;
      if (current !== '' && !mine && !opts.force) return void res.kept++;
      edits.push([col, value]);
    };
    // Cells of another key (edited or emptied) are never left standing: cleared, or replaced below.
    const clearOutput = () => {
      for (const { col } of Lay.fieldCols) put(col, '', ours);
      for (const { col } of Lay.sectionCols) put(col, '', ours);
      put(Lay.atCol, '', true);
    };
    // A row moved to the company_data_ columns loses the old version's state, so one state stands.
    const clearLegacy = () => {
      if (Lay.legacy) for (const col of legacyState(Lay.legacy)) put(col, '', true);
    };
    const key = row[Lay.keyCol] ?? '';
    res.edits = edits;
    if (p.kind === 'clear') {
      clearOutput();
      for (const col of [Lay.statusCol, Lay.reasonCol, Lay.queryCol]) put(col, '', true);
      return res;
    }
    if (p.kind === 'free') {
      if (ours) clearOutput();
      put(Lay.statusCol, p.status, true);
      put(Lay.reasonCol, p.reason, true);
      put(Lay.queryCol, key, true);
      clearLegacy();
      return res;
    }
    if (!o) return res;
    const recorded = row[Lay.queryCol] ?? '';
    if (o.error) {
      if (ours && recorded !== '' && !sameQuery(recorded, key)) clearOutput();
      put(Lay.statusCol, 'error', true);
      put(Lay.reasonCol, o.reason, true);
      put(Lay.queryCol, key, true);
      return res;
    }
    Lay.fieldCols.forEach(({ col }, j) => put(col, o.fields![j]!, ours));
    let status: string = o.status;
    let reason = o.reason;
    const sec = o.code !== undefined ? sectionCells.get(o.code) : undefined;
    if (sec && 'error' in sec) {
      status = 'error';
      reason = `profile sections: ${sec.error.message}`;
    } else if (sec) Lay.sectionCols.forEach(({ col }, j) => put(col, sec[j]!, ours));
    put(Lay.statusCol, status, true);
    put(Lay.reasonCol, reason, true);
    put(Lay.queryCol, key, true);
    put(Lay.atCol, enrichedAt, true);
    clearLegacy();
    return res;
  };
  /**
   * A row holding a key this run never looked up (a colleague inserted it, or edited its key, while the
   * run went) is left alone for the next run; only when its cells are another key's (our save landed
   * on it as rows moved) are they put back as a row with its key had them, or else emptied.
   */
  const stray = (row: readonly string[], key: string): RowResult => {
    const recorded = row[Lay.queryCol] ?? '';
    if (recorded === '' || sameQuery(recorded, key)) return { kept: 0, leftAlone: true };
    const known = knownCells?.(key);
    const edits: [number, string][] = [];
    ourCols.forEach((col, j) => {
      const value = known?.[j] ?? '';
      if ((row[col] ?? '') !== value) edits.push([col, value]);
    });
    return { edits, kept: 0, leftAlone: !known };
  };
  const editsFor = (row: readonly string[], final: boolean): RowResult => {
    const p = planRow(row, Lay, mode, maxAgeMs, nowMs, readMemo, readMemo);
    if (p.kind !== 'send' && p.kind !== 'migrate') return rowEdits(row, p, undefined);
    if (p.kind === 'migrate' && !migrating.has(p.key)) return { kept: 0 };
    if (failure) throw failure.error;
    const o = outcomes.get(p.key);
    if (o) return rowEdits(row, p, o);
    if (!sendRows.has(p.key)) return stray(row, p.key);
    // Not answered yet; or never, the run having stopped: the row stays as it is, for the next run.
    return final ? { kept: 0 } : { kept: 0, waiting: p.key };
  };

  try {
    if (table instanceof CsvTable) {
      const done = (res: RowResult) => {
        report.keptCells += res.kept;
        return res.edits;
      };
      await table.rewrite((row, r) => {
        if (r === 0) return Lay.headerWrites;
        const res = editsFor(row, allOver);
        // Waiting for its answer: reading waits with it (the rows before are on their way to the temp file).
        return res.waiting === undefined ? done(res) : outcomeOf(res.waiting).then(() => done(editsFor(row, true)));
      }, width);
    } else await saveWholeTable();
    await everything;
  } catch (e) {
    return fail(e);
  }
  countPaid(totals.requests, totals.billed);
  report.interrupted = totals.stopped || aborted();
  const counter = { matched: 'matched', vat_group: 'vatGroups', no_match: 'noMatch', skipped: 'skipped' } as const;
  for (const [key, rows] of sendRows) {
    const o = outcomes.get(key);
    if (!o) continue;
    if (o.error) report.errors += rows;
    else {
      report[counter[o.status as keyof typeof counter]] += rows;
      const sec = o.code !== undefined ? sectionCells.get(o.code) : undefined;
      if (sec && 'error' in sec) report.errors += rows;
    }
  }
  // Every paid answer is in the table now; the journal is only needed when this did not finish.
  answers.finish(report.interrupted);
  return report;

  /**
   * A whole table (XLSX, Google Sheets, memory) is saved every saveEveryMs while answers arrive, and
   * once at the end. Each save works out every row's cells from the row as it is at that moment: a
   * table others edit (Google Sheets: readColumns) is read again first (header, key column, our
   * columns; one request), so cells go to the row that holds the key now and to our columns wherever
   * they are, and read again after the write, to catch rows that moved between the two (Google has no
   * conditional write): those are saved again at once. A table only this run writes is worked from
   * what was read, each row once.
   */
  async function saveWholeTable(): Promise<void> {
    const follow = table.readColumns?.bind(table);
    const every = opts.flushEveryMs ?? table.saveEveryMs ?? 1_000;
    let lastSave = clock.now();
    let lastCost = 0;
    // A save that blocks the event loop (an XLSX file written) holds up the limiter's timers with it; spacing saves by
    // 50x the time they block keeps that under 2%. Only the blocked time counts: a Google sheet's save mostly waits on
    // the network, and spacing by its round trip would let a refused save go unnoticed (and paid for) far longer.
    // On a sheet others edit, a refused save must be seen soon (each answer after it is paid for in vain): there the
    // stretch is capped at 2 s, whatever the save cost (a stand-in in the same process makes its work look like ours).
    const gap = () => Math.max(every, follow ? Math.min(50 * lastCost, 2_000) : 50 * lastCost);
    // A sheet others edit is worked from what each save reads again: the whole-sheet read of pass 1 is let go.
    const local = follow ? [] : (snapshot?.rows ?? []);
    if (follow) snapshot = undefined;
    let pending = local.map((_, i) => i);
    let headerDone = false;
    let seen = -1;
    let next: SheetView | undefined;
    /** The view read before the last write, kept as where its columns were and its cells by key (not its rows). */
    let before: SheetView | undefined;
    let beforeCells: ((key: string) => string[] | undefined) | undefined;
    const keep = (v: SheetView) => {
      beforeCells = cellsByKey(v);
      before = { ...v, rows: [] };
    };
    let repairs = 0;
    let finalRounds = 0;
    let kept = 0;
    for (;;) {
      if (!next) {
        // Wait for news, then for the save gap; or for the end.
        while (!allOver) {
          if (failure) throw failure.error;
          const wait = outcomes.size !== seen ? lastSave + gap() - clock.now() : Infinity;
          if (wait <= 0) break;
          // News cuts the wait short: the sleep is called off, not left to run out.
          const woke = new AbortController();
          const news = changed.wait().then(() => woke.abort());
          await (Number.isFinite(wait) ? clock.sleep(wait, woke.signal) : news);
          woke.abort();
        }
      }
      if (failure) throw failure.error;
      const final = allOver;
      seen = outcomes.size;
      let view = follow ? (next ?? (await readView(follow, before))) : undefined;
      next = undefined;
      if (view) knownCells = beforeCells ?? cellsByKey(view);
      let rows = view ? view.rows : local;
      const at = view ? view.at : (col: number) => col;
      let writes: CellWrite[] = [];
      const intended = new Map<number, string>();
      let waiting = false;
      let leftAlone = 0;
      let roundKept = 0;
      const still: number[] = [];
      const indices = view ? rows.keys() : pending;
      for (const i of indices) {
        const row = rows[i]!;
        const r = editsFor(row, final);
        if (r.waiting) {
          waiting = true;
          still.push(i);
          continue;
        }
        roundKept += r.kept;
        if (r.leftAlone) leftAlone++;
        if (!r.edits?.length) continue;
        for (const [col, value] of r.edits) if (at(col) >= 0) writes.push({ row: i + 1, col: at(col), value });
        if (view) intended.set(i, row[Lay.keyCol] ?? '');
        if (writes.length >= 50_000) {
          await table.write(writes);
          writes = [];
        }
      }
      pending = still;
      if (view) writes.push(...view.headerWrites);
      else if (!headerDone) {
        headerDone = true;
        for (const [col, value] of Lay.headerWrites) writes.push({ row: 0, col, value });
      }
      if (view) kept = roundKept;
      else kept += roundKept;
      const wrote = writes.length > 0 || intended.size > 0;
      if (wrote) {
        await table.write(writes);
        const busy = clock.busy?.();
        await table.flush();
        lastCost = busy?.() ?? 0;
        lastSave = clock.now();
      }
      if (view && wrote) {
        // What this view held is kept by key; its rows go before the sheet is read again (two at once would double the memory).
        keep(view);
        view = undefined;
        rows = [];
        // The check after the write reads the header and the key column only; the rows are read whole again
        // only when some moved, for the round that puts them right.
        const moved = await movedSince(follow!, before!, intended);
        if (moved && (repairs < MAX_REPAIRS || (final && ++finalRounds <= MAX_REPAIRS + 2))) {
          repairs++;
          next = await readView(follow!, before);
          continue;
        }
        if (!moved) repairs = 0;
      } else if (view) keep(view);
      if (final && !waiting) {
        report.keptCells = kept;
        report.leftAlone = leftAlone;
        return;
      }
    }
  }

  /**
   * Whether, since the view the last write was worked from, a written row holds another key now or a column
   * of ours or the key's is elsewhere (a colleague's sort, insert or delete in the write window).
   */
  async function movedSince(read: NonNullable<Table['readColumns']>, last: SheetView, intended: ReadonlyMap<number, string>) {
    const keyAt = last.at(Lay.keyCol);
    const got = await read([keyAt]);
    // Columns found where the last view put them, by the same rule readView places them.
    const cols = [Lay.keyCol, ...ourCols].filter((c) => last.at(c) >= 0);
    const found = placeColumnsFor(Lay)(got.header, cols, last.place);
    if (cols.some((c) => found.get(c) !== last.at(c))) return true;
    const keys = got.columns.get(keyAt) ?? [];
    for (const [i, key] of intended) if ((keys[i] ?? '') !== key) return true;
    return false;
  }

  /**
   * Where the key column and our columns are now (by their headers: a colleague may have inserted a
   * column), and their values in every row: one readColumns request, a second when columns moved.
   */
  async function readView(read: NonNullable<Table['readColumns']>, last: SheetView | undefined): Promise<SheetView> {
    const wanted = [Lay.keyCol, ...ourCols, ...(Lay.legacy ? Lay.legacy.cols : [])];
    let place: ReadonlyMap<number, number> = last?.place ?? new Map(wanted.map((c) => [c, c < Lay.width ? c : -1]));
    for (let attempt = 0; ; attempt++) {
      const asked = [...new Set([...place.values()].filter((c) => c >= 0))];
      const got = await read(asked);
      const found = placeColumnsFor(Lay)(got.header, wanted, place);
      if (found.get(Lay.keyCol)! < 0)
        throw new Error(
          `column: the key column "${Lay.header[Lay.keyCol]}" is no longer in the sheet (renamed or deleted while enrich ran); ` +
            'nothing more was written (the answers paid for are kept: run again, they are free then)',
        );
      const stale = wanted.some((c) => found.get(c)! >= 0 && found.get(c) !== place.get(c));
      if (stale && attempt < 2) {
        place = found;
        continue;
      }
      if (stale)
        throw new Error(
          'column: the columns kept moving while enrich saved; run again when the sheet is left alone (answers paid for are free then)',
        );
      return sheetView(got, found, wanted);
    }
  }

  /** The view of one read, in Lay's column numbers; our columns missing from the sheet get places after its last column. */
  function sheetView(got: ColumnsView, place: ReadonlyMap<number, number>, wanted: number[]): SheetView {
    let n = 0;
    for (const c of wanted) n = Math.max(n, got.columns.get(place.get(c)!)?.length ?? 0);
    const rows: string[][] = Array.from({ length: n }, () => []);
    for (const c of wanted) {
      const values = got.columns.get(place.get(c)!);
      if (place.get(c)! < 0 || !values) continue;
      values.forEach((v, i) => (rows[i]![c] = v));
    }
    const headerWrites: CellWrite[] = [];
    const target = new Map(place);
    let end = got.header.length;
    for (const c of ourCols)
      if (place.get(c)! < 0) {
        target.set(c, end);
        headerWrites.push({ row: 0, col: end++, value: Lay.header[c]! });
      }
    return { rows, place: target, headerWrites, at: (c) => target.get(c) ?? -1 };
  }

  /** Our columns' cells by key, from rows whose cells are their own key's (query = key, a final answer). */
  function cellsByKey(view: SheetView | undefined): ((key: string) => string[] | undefined) | undefined {
    if (!view) return undefined;
    // Built at once, so the view's rows can go: one entry per distinct key, not per row.
    const index = new Map<string, string[]>();
    for (const row of view.rows) {
      const q = row[Lay.queryCol] ?? '';
      const k = row[Lay.keyCol] ?? '';
      const r = readMemo(k);
      if (q === '' || r.status !== 'send' || !sameQuery(q, k) || (row[Lay.atCol] ?? '') === '') continue;
      if (!index.has(r.key))
        index.set(
          r.key,
          ourCols.map((c) => row[c] ?? ''),
        );
    }
    return (key) => index.get(key);
  }
}

/** What the run writes, for Table.checkWrites: its own columns, and the old version's state columns when it empties some. */
function writePlan(L: Layout, rows: [number, number][], clearsLegacy: boolean): WritePlan {
  const created = new Set(L.headerWrites.map(([col]) => col));
  const columns = [...L.ourCols, ...(clearsLegacy && L.legacy ? legacyState(L.legacy) : [])];
  // Probe cells: the run's own header cells first (their text is the run's), then the ones it creates (empty until then).
  const own = L.ourCols.filter((c) => !created.has(c)).map((col) => ({ col, value: L.header[col]! }));
  return {
    header: L.header,
    newHeaders: L.headerWrites.map(([col, value]) => ({ col, value })),
    columns,
    rows,
    width: L.header.length,
    probe: [...own, ...L.headerWrites.map(([col]) => ({ col, value: '' }))],
  };
}

/** The old version's state columns a row moved to the company_data_ columns has emptied (clearLegacy). */
function legacyState(legacy: NonNullable<Layout['legacy']>): number[] {
  return [legacy.statusCol, legacy.atCol, legacy.queryCol].filter((c) => c >= 0);
}

/** Rows as a save found them, in Lay's column numbers, and where each column is in the sheet now. */
interface SheetView {
  rows: string[][];
  /** Lay column → the sheet's column once this view's header writes are made; -1 when the sheet has none of that name. */
  place: Map<number, number>;
  /** Headers of our columns the sheet lacks, placed after its last column. */
  headerWrites: CellWrite[];
  /** The sheet column a Lay column is written to. */
  at(col: number): number;
}

/**
 * Each wanted column's place in a header, by its name (Lay's header): where it was, when it is still
 * there; else the first column of that name (our columns never the key's); -1 when there is none.
 */
function placeColumnsFor(L: Layout) {
  return (header: readonly string[], wanted: readonly number[], was: ReadonlyMap<number, number>): Map<number, number> => {
    const norm = header.map(headerName);
    const out = new Map<number, number>();
    const name = (c: number) => headerName(L.header[c]!);
    const keyAt = (() => {
      const w = was.get(L.keyCol) ?? -1;
      return w >= 0 && norm[w] === name(L.keyCol) ? w : norm.indexOf(name(L.keyCol));
    })();
    out.set(L.keyCol, keyAt);
    for (const c of wanted) {
      if (c === L.keyCol) continue;
      const w = was.get(c) ?? -1;
      if (w >= 0 && w !== keyAt && norm[w] === name(c)) out.set(c, w);
      else
        out.set(
          c,
          norm.findIndex((h, j) => j !== keyAt && h === name(c)),
        );
    }
    return out;
  };
}

/**
 * Where everything is: the key column, and the tool's own columns (company_data_…, the n8n Lookup's
 * names), reused when the sheet has them (an earlier run of either), else added after the last. A
 * person's column is never one of them, whatever its name.
 */
function layOut(header: string[], column: string | undefined, fields: readonly SummaryField[], sections: readonly IncludeSection[]) {
  const keyCol = findKeyColumn(header, column);
  const width = header.length;
  const norm = header.map(headerName);
  const headerWrites: [number, string][] = [];
  const colOf = (name: string): number => {
    const i = norm.findIndex((h, j) => j !== keyCol && h === name);
    if (i >= 0) return i;
    header.push(name);
    headerWrites.push([header.length - 1, name]);
    return header.length - 1;
  };
  const statusCol = colOf(lookupColumns.status);
  const queryCol = colOf(lookupColumns.query);
  const reasonCol = colOf(lookupColumns.reason);
  const fieldCols = fields.map((f) => ({ f, col: colOf(matchColumn(f)) }));
  const sectionCols = sections.map((s) => ({ s, col: colOf(matchColumn(s)) }));
  const atCol = colOf(lookupColumns.enrichedAt);
  const ourCols = [statusCol, queryCol, reasonCol, ...fieldCols.map((c) => c.col), ...sectionCols.map((c) => c.col), atCol];
  // The old version's columns (read; see LEGACY): its status, time and query, and the matched company's code or VAT number.
  const find = (...names: string[]) => norm.findIndex((h, j) => j !== keyCol && j < width && names.includes(h));
  const legacy =
    find(LEGACY.status) >= 0 && find(LEGACY.at) >= 0
      ? {
          statusCol: find(LEGACY.status),
          atCol: find(LEGACY.at),
          queryCol: find(LEGACY.query),
          codeCol: find('registry_code', 'matched_registry_code'),
          vatCol: find('vat_number', 'matched_vat_number'),
        }
      : undefined;
  const legacyCols = legacy ? [legacy.statusCol, legacy.atCol, legacy.queryCol, legacy.codeCol, legacy.vatCol].filter((c) => c >= 0) : [];
  // Headers the version before issue 22 would have written into: a person's columns now, left alone.
  const outputNames = new Set([...Object.keys(summaryFields), ...sections].flatMap((f) => [f, `matched_${f}`]));
  const personColumns = header.slice(0, width).filter((h, j) => j !== keyCol && outputNames.has(norm[j]!));
  return {
    header,
    width,
    keyCol,
    headerWrites,
    fieldCols,
    sectionCols,
    statusCol,
    reasonCol,
    atCol,
    queryCol,
    ourCols,
    legacy: legacy && { ...legacy, cols: legacyCols },
    personColumns,
  };
}
type Layout = ReturnType<typeof layOut>;

/** Whether the row's output cells are the tool's own (it wrote them: they carry its time): refreshed without --force. */
function ownsOutput(row: readonly string[], L: Layout): boolean {
  return (row[L.atCol] ?? '') !== '';
}

/**
 * What an earlier lookup left in the row: from the company_data_ columns, else from the old version's
 * (see LEGACY). An old row without enrich_query stands for the query the matched company's own registry
 * code or VAT number shows when the key is of that kind (an edited code then reads as changed), else
 * the key itself (a name cannot be checked that way).
 */
function priorOf(row: readonly string[], L: Layout): (PriorLookup & { legacy?: true }) | undefined {
  const at = row[L.atCol] ?? '';
  if (at !== '') return { status: row[L.statusCol], query: row[L.queryCol], at };
  const old = L.legacy;
  const oldAt = old ? (row[old.atCol] ?? '') : '';
  if (!old || oldAt === '') return undefined;
  const status = row[old.statusCol] ?? '';
  let query = old.queryCol >= 0 ? (row[old.queryCol] ?? '') : '';
  if (query === '') {
    const key = row[L.keyCol] ?? '';
    const k = readQuery(key);
    const word = statusWord(status);
    const evidence =
      k.status !== 'send' || (word !== 'matched' && word !== 'vat_group')
        ? -1
        : k.type === 'registry_code'
          ? old.codeCol
          : k.type === 'vat_number'
            ? old.vatCol
            : -1;
    const cell = evidence >= 0 ? (row[evidence] ?? '') : '';
    query = cell !== '' ? cell : key;
  }
  return { status, query, at: oldAt, legacy: true };
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

/** `read` reads a key that is to be sent (pass 1 counts it there); `peek` one that is not. */
function planRow(
  row: readonly string[],
  L: Layout,
  mode: EnrichMode,
  maxAgeMs: number | undefined,
  nowMs: number,
  read: (q: string) => QueryReading,
  peek: (q: string) => QueryReading,
): RowPlan {
  const q = row[L.keyCol] ?? '';
  const prior = priorOf(row, L);
  if (q.trim() === '') {
    // Old-version rows are left to the old columns; the tool's own cells of no key are emptied.
    const mine = ['atCol', 'statusCol', 'queryCol'] as const;
    return mine.some((c) => (row[L[c]] ?? '') !== '') ? { kind: 'clear' } : { kind: 'none' };
  }
  // Rows without a time were never looked up (invalid and too-short rows cost nothing to check again).
  if (mode !== 'all' && alreadyLookedUp(prior, q, maxAgeMs, nowMs)) {
    if (!prior?.legacy) return { kind: 'keep' };
    const k = peek(q);
    return k.status === 'send' ? { kind: 'migrate', key: k.key, send: k.send } : { kind: 'keep' };
  }
  const k = read(q);
  if (k.status === 'invalid' || k.status === 'skipped') return { kind: 'free', status: k.status, reason: k.reason };
  return { kind: 'send', key: k.key };
}
