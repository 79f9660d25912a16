import { MemoryDedupeStore } from '../../webhooks/dedupe';
import type { WebhookEvent } from '../../schemas/events';
import { capCell } from '../table/table';
import { guardedTable } from '../lease/guarded-table';
import type { EventLedgerStore, HeldLock, LedgerCompaction, LedgerRows } from '../ports';
import {
  EVENT_COLUMNS,
  isIdentity,
  readEvent,
  refusesValue,
  rowKey,
  stubRecord,
  TOOL_COLUMNS,
  unreadableRecord,
  type Column,
  type EventRecord,
} from './event-records';
import type { AcceptOutcome, EventRows, EventRowsWriterOptions } from './options';
import { say, setting, SheetsError } from '../errors';

/**
 * Ledgers larger than this are rewritten on start (and while running) to their live entries. About
 * 7,500 events of history (some 400 bytes each); the 50,000 done ids kept are some 2 MB.
 */
export const LEDGER_COMPACT_ABOVE_BYTES = 3 * 1024 * 1024;
/**
 * Done ids a compacted ledger keeps (the newest). Older ids are protected by the sheet: the writer
 * reads the event_id column on start. The service redelivers for about a day, far inside this window.
 */
export const LEDGER_KEEP_DONE = 50_000;
/**
 * Events one batch holds at most (acceptMany, and the events a crash left pending on open): one ledger
 * write of intent, one Google append (split further only past MAX_REQUEST_BYTES), one ledger write of
 * completion. 500 change events make some 300-500 KB of rows and of ledger, well inside Google's 2 MB a
 * request; 1,000 changes take two appends, far inside Google's 60 writes a minute.
 */
export const EVENTS_PER_BATCH = 500;

/** An event whose rows are to be appended: its id, its rows (cut to the cell limit), and what to tell of it. */
interface BatchItem {
  id: string;
  records: EventRecord[];
  unreadable?: string;
  cut: string[];
}

/**
 * Writes events to a sheet as rows, each exactly once across redeliveries and restarts:
 * a lock makes this the only writer, the ledger records intent and completion durably, and on start
 * the event_id column of the sheet is read back to settle anything a crash left half done.
 * No event blocks the ones after it: a value longer than a cell holds is cut with a marker, an event
 * that cannot be read or that the sheet refuses becomes a stub row naming it, and onProblem says so.
 * The tool's columns are found by header name; the user's own columns are never written.
 */
export class EventRowsWriter implements EventRows {
  readonly ledger: EventLedgerStore;
  private lock: HeldLock | undefined;
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
  /** The sheet was made by open (createWhenMissing). */
  created = false;
  /** Compactions of the ledger by this writer (on open and while running). */
  readonly compactions: LedgerCompaction[] = [];
  private compactedTo = 0;

  constructor(private options: EventRowsWriterOptions) {
    this.ledger = options.ledger;
  }

  private async compactIfLarge(): Promise<void> {
    const limit = this.options.compactAboveBytes ?? LEDGER_COMPACT_ABOVE_BYTES;
    // When the kept ids alone come near the limit (long ids), wait for twice what compaction left,
    // or every event would rewrite the whole file.
    if (this.ledger.size <= Math.max(limit, 2 * this.compactedTo)) return;
    const result = await this.ledger.compact(this.options.keepDone ?? LEDGER_KEEP_DONE);
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
    const { ledgerName } = this.options;
    this.lock = await this.options.locks?.acquire(this.options.table, ledgerName ? [ledgerName] : []);
    // A lock that can be lost (the sheet's lease) is checked before every write.
    this.options = { ...this.options, table: guardedTable(this.options.table, this.lock) };
    try {
      // What was read before the lock may be stale: the previous writer could have added to it since.
      await this.ledger.load();
      await this.compactIfLarge();
      const { table } = this.options;
      this.created = this.options.createWhenMissing && table.create ? await table.create(EVENT_COLUMNS) : false;
      // Made now, under the lock: it holds the header alone, and reading it would tell nothing more.
      const snap = this.created ? { header: [...EVENT_COLUMNS], rows: [] } : await table.read();
      this.header = [...snap.header];
      if (!this.header.includes('event_id') && snap.rows.length && (this.ledger.done.size || this.ledger.pending.size))
        throw new SheetsError({
          code: 'no_event_id_column',
          field: this.options.tableField ?? 'eventsSheet',
          rule: `${table.label} has no event_id column, though this tool wrote events to it before; it is how each event is written once`,
          hint: say`Name that column event_id again, or set ${setting(this.options.tableField ?? 'eventsSheet')} to a new sheet.`,
        });
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
      if (!this.ledger.compacted && unknown.size) {
        await this.ledger.finishMany([...unknown]);
        this.stats.reconciled += unknown.size;
      }
      // What a crash left between intent and completion, settled in batches too: a batch killed in its
      // middle left hundreds pending, and each on its own would be one append.
      const left = [...this.ledger.pending].map(([id, rows]) => ({ id, records: this.recordsOf(rows) }));
      for (let i = 0; i < left.length; i += EVENTS_PER_BATCH) {
        const part = left.slice(i, i + EVENTS_PER_BATCH);
        await this.put(part);
        this.stats.reconciled += part.length;
      }
    } catch (e) {
      await this.lock?.release();
      // eslint-disable-next-line @n8n/community-nodes/require-node-api-error -- shared with the CLI; the node converts errors at its entry points
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

  /**
   * Appends the rows of these events not in the sheet yet, in one append (the table splits it only past
   * Google's request size), then records them all done with one ledger write.
   */
  private async appendMissing(events: readonly { id: string; records: readonly EventRecord[] }[]): Promise<void> {
    if (this.unsure) await this.refreshPresent();
    const rows: string[][] = [];
    const keys: string[] = [];
    for (const { id, records } of events)
      for (const r of records) {
        const key = rowKey(r.event_id ?? id, r.registry_code ?? '');
        if (this.present.has(key)) continue;
        rows.push(this.toRow(r));
        keys.push(key);
      }
    if (rows.length) {
      try {
        await this.options.table.append(rows);
      } catch (e) {
        // The append may have landed, or its first parts: read the sheet before the next one.
        this.unsure = true;
        // eslint-disable-next-line @n8n/community-nodes/require-node-api-error -- shared with the CLI; the node converts errors at its entry points
        throw e;
      }
    }
    for (const key of keys) this.present.add(key);
    for (const { id } of events) await this.inSheet.add(id);
    this.stats.rows += rows.length;
    await this.ledger.finishMany(events.map((e) => e.id));
  }

  /**
   * Appends the events' rows (those not in the sheet yet). When the sheet refuses a value, Google
   * refuses the whole request: the batch is halved until the one event it refuses is alone, so the
   * others still go in a few requests, and that event's rows go in as stub rows naming it (the same
   * rows again would be refused on every retry and restart). A stub refused too means the sheet takes
   * nothing (gone, full): that is thrown.
   */
  private async put(events: readonly { id: string; records: readonly EventRecord[] }[]): Promise<void> {
    try {
      await this.appendMissing(events);
    } catch (e) {
      // eslint-disable-next-line @n8n/community-nodes/require-node-api-error -- shared with the CLI; the node converts errors at its entry points
      if (!refusesValue(e)) throw e;
      if (events.length > 1) {
        const half = Math.ceil(events.length / 2);
        await this.put(events.slice(0, half));
        await this.put(events.slice(half));
        return;
      }
      const { id, records } = events[0]!;
      await this.appendMissing([{ id, records: records.map(stubRecord) }]);
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
  async accept(event: WebhookEvent | { id: string; type: string }): Promise<AcceptOutcome> {
    return (await this.acceptMany([event]))[0]!;
  }

  /**
   * Stores events (serialised with any other call) in batches of EVENTS_PER_BATCH, each batch one ledger
   * write of intent, one append and one ledger write of completion; answers for each event, in order,
   * whether it was new. An event twice in `events` is stored once (then a duplicate). When a batch fails
   * (the sheet cannot be reached), the batches before it are stored and the error is thrown: stored
   * again, they are duplicates.
   */
  acceptMany(events: readonly (WebhookEvent | { id: string; type: string })[]): Promise<AcceptOutcome[]> {
    const run = async (): Promise<AcceptOutcome[]> => {
      const outcomes: AcceptOutcome[] = [];
      const items: BatchItem[] = [];
      const taken = new Set<string>();
      for (const event of events) outcomes.push(await this.sort(event, taken, items));
      for (let i = 0; i < items.length; i += EVENTS_PER_BATCH) await this.store(items.slice(i, i + EVENTS_PER_BATCH));
      return outcomes;
    };
    const p = this.queue.then(run, run);
    this.queue = p.catch(() => undefined);
    return p;
  }

  /** What becomes of one event of a batch: refused, a duplicate, ignored, or an item to store ('appended' once stored). */
  private async sort(event: WebhookEvent | { id: string; type: string }, taken: Set<string>, items: BatchItem[]): Promise<AcceptOutcome> {
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
    if (taken.has(id) || (await this.inSheet.has(id))) {
      this.stats.duplicates++;
      return 'duplicate';
    }
    const read = readEvent(event, this.options.lang);
    const built = 'problem' in read ? [unreadableRecord(event, read.problem)] : read.records;
    if (!built.length) {
      this.stats.ignored++;
      return 'ignored';
    }
    taken.add(id);
    const { records, cut } = this.capped(built);
    items.push({ id, records, cut, ...('problem' in read ? { unreadable: read.problem } : {}) });
    return 'appended';
  }

  /** One batch: intent recorded durably, the rows appended, completion recorded; then what to tell of each. */
  private async store(batch: readonly BatchItem[]): Promise<void> {
    const entries = batch.map(({ id, records }) => ({ id, rows: records }));
    if (this.ledger.beginMany) await this.ledger.beginMany(entries);
    else for (const { id, rows } of entries) await this.ledger.begin(id, rows);
    await this.put(batch);
    for (const { id, unreadable, cut } of batch) {
      this.stats.appended++;
      if (unreadable) {
        this.stats.unreadable++;
        this.problem(id, `written as one row holding the event as received (details): ${unreadable}; report it to the service`);
      }
      if (cut.length) {
        this.stats.cut++;
        this.problem(
          id,
          `${cut.join(', ')} cut to ${this.options.table.maxCellChars!.toLocaleString('en-US')} characters, the most a cell ` +
            'of this sheet holds (the cell ends with "… [cut: N characters in all]"); the service has the whole event under this id',
        );
      }
    }
    // A receiver may run for months without a restart; the ledger is kept small while it runs too.
    await this.compactIfLarge();
  }

  async close(): Promise<void> {
    await this.queue;
    await this.ledger.close();
    await this.lock?.release();
  }
}
