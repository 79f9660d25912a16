import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { changeSummary, matchCompanySummary, type SummaryLang } from '@company-data/core/event-summary';
import type { MonitoringChangeEvent, SearchMatchesEvent, WebhookEvent } from '@company-data/core/schemas/events';
import { MemoryDedupeStore } from '@company-data/core/webhooks';
import { defaultStateDir } from './enrich';
import { EventLedger, LEDGER_COMPACT_ABOVE_BYTES, LEDGER_KEEP_DONE, type CompactionResult } from './event-ledger';
import type { Table } from './table';
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

const text = (v: unknown) => (v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));

/** Rows of one event as column → text (the summary in lang); webhook.test and unknown types give none. */
export function eventRecords(
  event: WebhookEvent | { id: string; type: string },
  lang: SummaryLang = 'en',
): Partial<Record<Column, string>>[] {
  if (event.type === 'monitoring.change') {
    const e = event as MonitoringChangeEvent;
    return [
      {
        event_id: e.id,
        type: e.type,
        created_at: e.created_at,
        registry_code: e.data.company.registry_code,
        company_name: e.data.company.name,
        category: e.data.category,
        kind: e.data.kind,
        tone: e.data.tone,
        details: text(e.data.details),
        lists: e.data.lists.map((l) => (l.external_ref ? `${l.name} (${l.external_ref})` : l.name)).join('; '),
        summary: changeSummary(e, lang),
      },
    ];
  }
  if (event.type === 'search.matches') {
    const e = event as SearchMatchesEvent;
    return e.data.companies.map((c) => ({
      event_id: e.id,
      type: e.type,
      created_at: e.created_at,
      registry_code: c.registry_code,
      company_name: c.name,
      search: e.data.search.name,
      match_date: e.data.date,
      legal_form: c.legal_form,
      status: c.status,
      registered_on: c.registered_on,
      address: c.address,
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
}

export type AcceptOutcome = 'appended' | 'duplicate' | 'ignored';

/**
 * Writes events to a sheet as rows, each exactly once across redeliveries and restarts:
 * a lock makes this the only writer, the ledger records intent and completion durably, and on start
 * the event_id column of the sheet is read back to settle anything a crash left half done.
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
  readonly stats = { appended: 0, duplicates: 0, ignored: 0, rows: 0, reconciled: 0 };
  /** Compactions of the ledger by this writer (on open and while running). */
  readonly compactions: CompactionResult[] = [];
  private compactedTo = 0;

  constructor(private readonly options: EventSheetOptions) {
    const hash = createHash('sha256').update(options.table.id).digest('hex').slice(0, 16);
    const dir = options.stateDir ?? defaultStateDir();
    this.ledger = new EventLedger(options.ledgerPath ?? join(dir, `events-${hash}.jsonl`));
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
      const missing = EVENT_COLUMNS.filter((c) => !this.header.includes(c));
      if (missing.length) {
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
        await this.appendMissing(id, rows);
        this.stats.reconciled++;
      }
    } catch (e) {
      this.lock.release();
      throw e;
    }
  }

  private async refreshPresent(): Promise<void> {
    const snap = await this.options.table.read();
    const idCol = snap.header.indexOf('event_id');
    const codeCol = snap.header.indexOf('registry_code');
    for (const r of snap.rows) if (r[idCol]) this.present.add(rowKey(r[idCol]!, r[codeCol] ?? ''));
    this.unsure = false;
  }

  private toRow(rec: Partial<Record<Column, string>>): string[] {
    return this.header.map((h) => rec[h as Column] ?? '');
  }

  private async appendMissing(id: string, rows: string[][]): Promise<void> {
    const idCol = this.header.indexOf('event_id');
    const codeCol = this.header.indexOf('registry_code');
    if (this.unsure) await this.refreshPresent();
    const todo = rows.filter((r) => !this.present.has(rowKey(r[idCol] ?? id, r[codeCol] ?? '')));
    if (todo.length) {
      try {
        await this.options.table.append(todo);
      } catch (e) {
        // The append may have landed although the answer was lost: read the sheet before the next one.
        this.unsure = true;
        throw e;
      }
    }
    for (const r of todo) this.present.add(rowKey(r[idCol] ?? id, r[codeCol] ?? ''));
    await this.inSheet.add(id);
    this.stats.rows += todo.length;
    this.ledger.finish(id);
  }

  /** Stores one event (serialised with any other call), answering whether it was new. */
  accept(event: WebhookEvent | { id: string; type: string }): Promise<AcceptOutcome> {
    const run = async (): Promise<AcceptOutcome> => {
      // The sheet decides, not the ledger: an event the ledger calls done but the sheet lacks (rows
      // lost to another program saving over the file) is written again, not waved off as a duplicate.
      if (await this.inSheet.has(event.id)) {
        this.stats.duplicates++;
        return 'duplicate';
      }
      const records = eventRecords(event, this.options.lang);
      if (!records.length) {
        this.stats.ignored++;
        return 'ignored';
      }
      const rows = records.map((r) => this.toRow(r));
      this.ledger.begin(event.id, rows);
      await this.appendMissing(event.id, rows);
      this.stats.appended++;
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
