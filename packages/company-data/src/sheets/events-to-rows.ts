import { changeSummary, matchCompanySummary, type SummaryLang } from '@company-data/core/event-summary';
import type { MonitoringChangeEvent, SearchMatchesEvent, WebhookEvent } from '@company-data/core/schemas/events';
import { MemoryDedupeStore } from '@company-data/core/webhooks';
import { defaultStateDir, tableStateFile } from './state-dir';
import { EventLedger, LEDGER_COMPACT_ABOVE_BYTES, LEDGER_KEEP_DONE, type CompactionResult, type LedgerRows } from './event-ledger';
import { capCell, CellValueError, type Table } from './table';
import { lockSheet, type WriterLock } from './writer-lock';

/**
 * Columns of the events sheet; a search.matches event gives one row per company. `summary` is last so
 * a sheet made before it existed gets it as one more column at the end, its old rows untouched.
 */
export const EVENT_COLUMNS = [
  'event_id',
  'type',
  'created_at',
  'registry_code',
  'company_name',
  'category',
  'kind',
  'tone',
  'details',
  'lists',
  'search',
  'match_date',
  'legal_form',
  'status',
  'registered_on',
  'address',
  'activity_code',
  'employees',
  'revenue',
  'tax_debt',
  'rating',
  'summary',
] as const;
type Column = (typeof EVENT_COLUMNS)[number];
/** One row of an event: column → text. */
export type EventRecord = Partial<Record<Column, string>>;

const TOOL_COLUMNS: ReadonlySet<string> = new Set(EVENT_COLUMNS);

const text = (v: unknown) => (v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));

/**
 * Rows of one event as column → text (the summary in lang); webhook.test and unknown types give none.
 * Every value goes through text(): a field of another type in a malformed event would reach the table as is.
 */
export function eventRecords(event: WebhookEvent | { id: string; type: string }, lang: SummaryLang = 'en'): EventRecord[] {
  if (event.type === 'monitoring.change') {
    const e = event as MonitoringChangeEvent;
    return [
      {
        event_id: e.id,
        type: e.type,
        created_at: text(e.created_at),
        registry_code: e.data.company.registry_code,
        company_name: text(e.data.company.name),
        category: text(e.data.category),
        kind: text(e.data.kind),
        tone: text(e.data.tone),
        details: text(e.data.details),
        lists: (e.data.lists ?? []).map((l) => (l.external_ref ? `${text(l.name)} (${text(l.external_ref)})` : text(l.name))).join('; '),
        summary: changeSummary(e, lang),
      },
    ];
  }
  if (event.type === 'search.matches') {
    const e = event as SearchMatchesEvent;
    return e.data.companies.map((c) => ({
      event_id: e.id,
      type: e.type,
      created_at: text(e.created_at),
      registry_code: c.registry_code,
      company_name: text(c.name),
      search: text(e.data.search.name),
      match_date: text(e.data.date),
      legal_form: text(c.legal_form),
      status: text(c.status),
      registered_on: text(c.registered_on),
      address: text(c.address),
      activity_code: text(c.activity_code),
      employees: text(c.employees),
      revenue: text(c.revenue),
      tax_debt: text(c.tax_debt),
      rating: text(c.rating),
      summary: matchCompanySummary(e.data.search, c, lang),
    }));
  }
  return [];
}

/**
 * An event id or registry code as a row's identity: printable ASCII, at most 200 characters. The
 * spec's are far shorter (evt_<number>, evt_<search>_<date>_<part>, 8 digits); a longer one would be
 * cut in the cell and no longer match itself, and a stub row of identities alone must fit any sheet.
 */
const isIdentity = (v: unknown): v is string => typeof v === 'string' && /^[\x21-\x7e]{1,200}$/.test(v);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The field that keeps an event's rows from being built, or undefined. Other fields are shown as they come. */
function shapeProblem(event: { type: string; data?: unknown }): string | undefined {
  const d = event.data;
  if (!isObject(d)) return 'data is missing';
  if (event.type === 'monitoring.change') {
    if (!isObject(d.company) || !isIdentity(d.company.registry_code)) return 'data.company.registry_code is missing or not a code';
    if (d.lists !== undefined && d.lists !== null && (!Array.isArray(d.lists) || !d.lists.every(isObject)))
      return 'data.lists is not a list';
    return undefined;
  }
  if (!Array.isArray(d.companies)) return 'data.companies is not a list';
  const bad = d.companies.findIndex((c) => !isObject(c) || !isIdentity(c.registry_code));
  if (bad >= 0) return `data.companies.${bad}.registry_code is missing or not a code`;
  if (!isObject(d.search)) return 'data.search is missing';
  return undefined;
}

/** The rows of an event, or why they cannot be built (a malformed payload). */
export function readEvent(event: { id: string; type: string }, lang: SummaryLang = 'en'): { records: EventRecord[] } | { problem: string } {
  if (event.type !== 'monitoring.change' && event.type !== 'search.matches') return { records: [] };
  const problem = shapeProblem(event);
  if (problem) return { problem };
  try {
    return { records: eventRecords(event, lang) };
  } catch (e) {
    return { problem: `it could not be read (${(e as Error).message})` };
  }
}

/** The row of an event whose rows cannot be built: its id, and the event as received in details. */
function unreadableRecord(event: { id: string; type: unknown; created_at?: unknown }, problem: string): EventRecord {
  return {
    event_id: event.id,
    type: isIdentity(event.type) ? event.type : '',
    created_at: isIdentity(event.created_at) ? event.created_at : '',
    details: text(event),
    summary: `Not readable: ${problem}. The event as received is in details; report it to the service with this event_id.`,
  };
}

/** What is left of a row the sheet refused: identities only, printable ASCII, which every sheet takes. */
function stubRecord(r: EventRecord): EventRecord {
  return {
    event_id: r.event_id ?? '',
    type: isIdentity(r.type) ? r.type : '',
    created_at: isIdentity(r.created_at) ? r.created_at : '',
    registry_code: r.registry_code ?? '',
    summary:
      'Not written in full: the sheet refused a value of this event (the events-to-sheet log says which). The service has the whole event under this event_id.',
  };
}

/** The table refused a value as such (nothing was written): Google's 400, a character a CSV's encoding lacks. */
function refusesValue(e: unknown): boolean {
  return e instanceof CellValueError || (e as { status?: unknown })?.status === 400;
}

const rowKey = (eventId: string, registryCode: string) => `${eventId}|${registryCode}`;

export interface EventSheetOptions {
  table: Table;
  /** Ledger file; default <state dir>/events-<table hash>.jsonl. */
  ledgerPath?: string;
  stateDir?: string;
  /** Language of the summary column (default en). */
  lang?: SummaryLang;
  /** Compact the ledger when it is larger than this (default 3 MiB), on open and while running. */
  compactAboveBytes?: number;
  /** Done ids a compacted ledger keeps (default 50,000); older ones are known from the sheet. */
  keepDone?: number;
  /**
   * Told of each event written other than as sent (cells cut, a stub row) or not written at all, with
   * what to do. `id` is the event's id, or what stood in its place (untrusted: quote it when logging).
   */
  onProblem?: (id: string, problem: string) => void;
}

/** refused: not written (no usable event id); every other event is in the sheet, if need be as a stub row. */
export type AcceptOutcome = 'appended' | 'duplicate' | 'ignored' | 'refused';

/**
 * Writes events to a sheet as rows, each exactly once across redeliveries and restarts:
 * a lock makes this the only writer, the ledger records intent and completion durably, and on start
 * the event_id column of the sheet is read back to settle anything a crash left half done.
 * No event blocks the ones after it: a value longer than a cell holds is cut with a marker, an event
 * that cannot be read or that the sheet refuses becomes a stub row naming it, and onProblem says so.
 * The tool's columns are found by header name; the user's own columns are never written.
 */
export class EventSheetWriter {
  readonly ledger: EventLedger;
  private lock: WriterLock | undefined;
  private header: string[] = [];
  private present = new Set<string>();
  /**
   * Event ids in the sheet, the store that decides duplicates here (also for events older than the
   * ledger keeps after compaction). Checked and recorded apart, not with checkAndAdd: an id is
   * recorded only once its rows are in the sheet, so an append that fails leaves the event new.
   */
  private readonly inSheet = new MemoryDedupeStore({ maxEntries: Number.MAX_SAFE_INTEGER, ttlMs: Infinity });
  private unsure = false;
  private queue: Promise<unknown> = Promise.resolve();
  /**
   * cut: events with a value cut to the cell limit; unreadable: malformed events, written as one row
   * holding the event as received; stubbed: events the sheet refused, written as stub rows; refused:
   * events not written at all (no usable id).
   */
  readonly stats = { appended: 0, duplicates: 0, ignored: 0, rows: 0, reconciled: 0, cut: 0, unreadable: 0, stubbed: 0, refused: 0 };
  /** Compactions of the ledger by this writer (on open and while running). */
  readonly compactions: CompactionResult[] = [];
  private compactedTo = 0;

  constructor(private readonly options: EventSheetOptions) {
    this.ledger = new EventLedger(options.ledgerPath ?? tableStateFile(options.stateDir ?? defaultStateDir(), 'events', options.table.id));
  }

  private compactIfLarge(): void {
    const limit = this.options.compactAboveBytes ?? LEDGER_COMPACT_ABOVE_BYTES;
    // When the kept ids alone come near the limit (long ids), wait for twice what compaction left,
    // or every event would rewrite the whole file.
    if (this.ledger.size <= Math.max(limit, 2 * this.compactedTo)) return;
    const result = this.ledger.compact(this.options.keepDone ?? LEDGER_KEEP_DONE);
    this.compactedTo = result.bytesAfter;
    this.compactions.push(result);
  }

  /**
   * Takes the lock, reads the ledger under it (compacting a large one), makes sure the header exists,
   * and reconciles the ledger with the sheet.
   */
  async open(): Promise<void> {
    // The sheet's lock, not the ledger's: a second writer with another state folder (or ledger) has
    // its own ledger, and both would append to one file, each saving over the other's rows.
    this.lock = lockSheet(this.options.table, [this.ledger.path]);
    try {
      // What was read before the lock may be stale: the previous writer could have added to it since.
      this.ledger.load();
      this.compactIfLarge();
      const { table } = this.options;
      const snap = await table.read();
      this.header = [...snap.header];
      if (!this.header.includes('event_id') && snap.rows.length && (this.ledger.done.size || this.ledger.pending.size))
        throw new Error(
          `sheet: ${table.label} has no event_id column, though this tool wrote events to it before; it is how each event ` +
            'is written once: name that column event_id again, or write to a new sheet',
        );
      const missing = EVENT_COLUMNS.filter((c) => !this.header.includes(c));
      if (missing.length) {
        // After the last column anything is in, header or not: a column of the user's without a
        // header is theirs too.
        let used = this.header.length;
        for (const r of snap.rows) for (let i = r.length - 1; i >= used; i--) if (r[i] !== '') used = i + 1;
        while (this.header.length < used) this.header.push('');
        const start = this.header.length;
        this.header.push(...missing);
        await table.write(missing.map((value, i) => ({ row: 0, col: start + i, value })));
        await table.flush();
      }
      const idCol = this.header.indexOf('event_id');
      const codeCol = this.header.indexOf('registry_code');
      const unknown = new Set<string>();
      for (const r of snap.rows) {
        const id = r[idCol] ?? '';
        if (!id) continue;
        this.present.add(rowKey(id, r[codeCol] ?? ''));
        await this.inSheet.add(id);
        if (!this.ledger.done.has(id) && !this.ledger.pending.has(id)) unknown.add(id);
      }
      // Rows in the sheet the ledger does not know: never added again (inSheet). A compacted ledger
      // dropped old ids on purpose, so only a full ledger records them (lost ledger, copied sheet);
      // recording them after a compaction would grow the ledger back to the whole sheet on every start.
      if (!this.ledger.compacted) {
        this.ledger.finishMany([...unknown]);
        this.stats.reconciled += unknown.size;
      }
      for (const [id, rows] of [...this.ledger.pending]) {
        await this.put(id, this.recordsOf(rows));
        this.stats.reconciled++;
      }
    } catch (e) {
      this.lock.release();
      throw e;
    }
  }

  /** Rows a ledger of an earlier version kept in the sheet's column order, as records. */
  private recordsOf(rows: LedgerRows): EventRecord[] {
    return rows.map((r) =>
      Array.isArray(r)
        ? (Object.fromEntries(this.header.flatMap((h, i) => (TOOL_COLUMNS.has(h) ? [[h, String(r[i] ?? '')]] : []))) as EventRecord)
        : (r as EventRecord),
    );
  }

  private async refreshPresent(): Promise<void> {
    const snap = await this.options.table.read();
    const idCol = snap.header.indexOf('event_id');
    const codeCol = snap.header.indexOf('registry_code');
    for (const r of snap.rows) if (r[idCol]) this.present.add(rowKey(r[idCol]!, r[codeCol] ?? ''));
    this.unsure = false;
  }

  /** A row in the sheet's current column order; the user's columns (and unnamed ones) stay empty. */
  private toRow(rec: EventRecord): string[] {
    return this.header.map((h) => (TOOL_COLUMNS.has(h) ? (rec[h as Column] ?? '') : ''));
  }

  private async appendMissing(id: string, records: readonly EventRecord[]): Promise<void> {
    if (this.unsure) await this.refreshPresent();
    const todo = records.filter((r) => !this.present.has(rowKey(r.event_id ?? id, r.registry_code ?? '')));
    if (todo.length) {
      try {
        await this.options.table.append(todo.map((r) => this.toRow(r)));
      } catch (e) {
        // The append may have landed although the answer was lost: read the sheet before the next one.
        this.unsure = true;
        throw e;
      }
    }
    for (const r of todo) this.present.add(rowKey(r.event_id ?? id, r.registry_code ?? ''));
    await this.inSheet.add(id);
    this.stats.rows += todo.length;
    this.ledger.finish(id);
  }

  /**
   * Appends an event's rows (those not in the sheet yet). When the sheet refuses a value of them, the
   * same rows again would be refused on every retry and restart: they go in as stub rows instead,
   * naming the event. A stub refused too means the sheet takes nothing (gone, full): that is thrown.
   */
  private async put(id: string, records: readonly EventRecord[]): Promise<void> {
    try {
      await this.appendMissing(id, records);
    } catch (e) {
      if (!refusesValue(e)) throw e;
      await this.appendMissing(id, records.map(stubRecord));
      this.stats.stubbed++;
      this.problem(id, `written as a stub row (event id and registry code only): ${(e as Error).message}`);
    }
  }

  private problem(id: string, text: string): void {
    this.options.onProblem?.(id, text);
  }

  /** Values longer than a cell of the table holds, cut with the marker; names the columns cut. */
  private capped(records: EventRecord[]): { records: EventRecord[]; cut: string[] } {
    const max = this.options.table.maxCellChars;
    const cut = new Set<string>();
    if (max === undefined) return { records, cut: [] };
    const out = records.map((r) => {
      const long = Object.entries(r).filter(([, v]) => v !== undefined && v.length > max);
      if (!long.length) return r;
      const c = { ...r };
      for (const [k, v] of long) {
        c[k as Column] = capCell(v!, max);
        cut.add(k);
      }
      return c;
    });
    return { records: out, cut: [...cut] };
  }

  /** Stores one event (serialised with any other call), answering whether it was new. */
  accept(event: WebhookEvent | { id: string; type: string }): Promise<AcceptOutcome> {
    const run = async (): Promise<AcceptOutcome> => {
      const id: unknown = event.id;
      if (!isIdentity(id)) {
        this.stats.refused++;
        this.problem(
          typeof id === 'string' ? id : 'an event',
          'not written: its id is missing or not an event id, so it could not be written exactly once; report it to the service',
        );
        return 'refused';
      }
      // The sheet decides, not the ledger: an event the ledger calls done but the sheet lacks (rows
      // lost to another program saving over the file) is written again, not waved off as a duplicate.
      if (await this.inSheet.has(id)) {
        this.stats.duplicates++;
        return 'duplicate';
      }
      const read = readEvent(event, this.options.lang);
      const built = 'problem' in read ? [unreadableRecord(event, read.problem)] : read.records;
      if (!built.length) {
        this.stats.ignored++;
        return 'ignored';
      }
      const { records, cut } = this.capped(built);
      this.ledger.begin(id, records);
      await this.put(id, records);
      this.stats.appended++;
      if ('problem' in read) {
        this.stats.unreadable++;
        this.problem(id, `written as one row holding the event as received (details): ${read.problem}; report it to the service`);
      }
      if (cut.length) {
        this.stats.cut++;
        this.problem(
          id,
          `${cut.join(', ')} cut to ${this.options.table.maxCellChars!.toLocaleString('en-US')} characters, the most a cell ` +
            'of this sheet holds (the cell ends with "… [cut: N characters in all]"); the service has the whole event under this id',
        );
      }
      // A receiver may run for months without a restart; the ledger is kept small while it runs too.
      this.compactIfLarge();
      return 'appended';
    };
    const p = this.queue.then(run, run);
    this.queue = p.catch(() => undefined);
    return p;
  }

  async close(): Promise<void> {
    await this.queue;
    this.ledger.close();
    this.lock?.release();
  }
}
