import type { IDataObject, IExecuteFunctions, INodeExecutionData, IPairedItemData, NodeApiError } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import type { HeldLock } from '@company-data/core/sheets';
import { EventRowsWriter } from '@company-data/core/sheets';
import { isIdentity } from '@company-data/core/sheets/events/event-records';
import { guardedTable } from '@company-data/core/sheets/lease/guarded-table';
import { MemoryEventLedger } from '@company-data/core/sheets/ledger/memory-ledger';
import type { SummaryLang } from '@company-data/core/vocabulary';
import { rowChange } from '@company-data/core/watch/row-change';
import { RowChangeWriter } from '@company-data/core/watch/row-writer';
import { digestItem } from '../../trigger/items';
import { DEFAULT_EVENTS_SHEET } from '../descriptions/write-events';
import { LOCK_WAIT_MS, waitingLocks } from '../ports/waiting-locks';
import { inProcessWriterLocks } from '../ports/writer-locks';
import { sheetWriterLocks } from '../ports/sheet-locks';
import { toSheetsNodeError } from '../errors';
import { sheetByTitle } from '@company-data/core/sheets/google/sheet-list';
import { openSheet } from './open-sheet';
import { invalidField, readSheetParams, type SheetParams } from './sheet-params';
import { isJsonObject } from '@company-data/core/json';

/**
 * Write Events to Rows: the monitoring changes of the input (the Company Data Trigger's or Poll Trigger's
 * items, or the Poll Trigger's digest item) into their companies' rows (the core's RowChangeWriter, rows found
 * by registry code when writing) and onto the events sheet (the core's EventRowsWriter), once each by event id.
 * The events sheet's event_id column decides what is new: its ledger lives for this execution only. One output
 * item, the digest of the changes new to the sheet; none when nothing was new. Decisions in docs/decisions/watch.md, "n8n: Keep Current and Write Events to Rows"
 * ("Issue 29: Write Events to Rows in n8n").
 */

type Rec = Record<string, unknown>;

/** What could not be written, and why: reported in the output, never in the way of the other changes. */
interface Problem {
  item: number;
  event_id?: string;
  problem: string;
}

/** The input sorted: the changes (once each by id, in input order), what is not a change, what is broken. */
interface Input {
  changes: { event: Rec; item: number }[];
  /** The same event more than once in this input. */
  repeated: number;
  /** Events other than changes (saved-search matches, the test event). */
  ignored: number;
  problems: Problem[];
}

const sameTitle = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

const NOT_AN_EVENT = 'not a Company Data event: connect the Company Data Trigger or the Company Data Poll Trigger to this node';

/** The changes of the input items: an item is one event, or the Poll Trigger's digest item holding its events. */
export function readInput(items: readonly INodeExecutionData[]): Input {
  const input: Input = { changes: [], repeated: 0, ignored: 0, problems: [] };
  const seen = new Set<string>();
  const take = (e: unknown, item: number) => {
    if (!isJsonObject(e)) return input.problems.push({ item, problem: NOT_AN_EVENT });
    if (typeof e.type !== 'string') return input.problems.push({ item, problem: `${NOT_AN_EVENT} (it has no type)` });
    if (e.type !== 'monitoring.change') return input.ignored++;
    if (!isIdentity(e.id))
      return input.problems.push({
        item,
        problem: 'a change without a usable event id: it cannot be written exactly once, so it was not written; report it to the service',
      });
    if (seen.has(e.id)) return input.repeated++;
    seen.add(e.id);
    // The trigger puts its sentence first; the event is the rest, as the service sent it.
    const event = { ...e };
    delete event.summary;
    input.changes.push({ event, item });
  };
  items.forEach(({ json }, item) => {
    if (json.type !== 'monitoring.digest') return take(json, item);
    if (!Array.isArray(json.events))
      return input.problems.push({ item, problem: 'a digest item without its events (the Poll Trigger puts them in "events")' });
    for (const e of json.events as unknown[]) take(e, item);
  });
  return input;
}

interface Params extends SheetParams {
  eventsSheet: string;
  summaryLang: SummaryLang;
  digestLines: number;
}

function readParams(ctx: IExecuteFunctions): Params {
  const options = ctx.getNodeParameter('options', 0, {}) as IDataObject;
  const lines = options.digestLines === undefined ? 20 : Number(options.digestLines);
  if (!Number.isInteger(lines) || lines < 1)
    throw invalidField(ctx, 'Digest Lines', 'must be a whole number of 1 or more', 'Enter how many lines the digest may have.');
  const eventsSheet = String(ctx.getNodeParameter('eventsSheet', 0, DEFAULT_EVENTS_SHEET) ?? '').trim();
  if (!eventsSheet)
    throw invalidField(ctx, 'Events Sheet', 'empty', `Enter the name of the tab the changes are added to, e.g. "${DEFAULT_EVENTS_SHEET}".`);
  const sheet = readSheetParams(ctx);
  return {
    ...sheet,
    eventsSheet,
    // The service words its changes in English and Estonian; Russian labels get English sentences.
    summaryLang: sheet.lang === 'et' ? 'et' : 'en',
    digestLines: lines,
  };
}

/** What one run did: the changes new to the sheet, and the counts. */
interface Applied {
  fresh: { event: Rec; item: number }[];
  alreadyApplied: number;
  notInSheet: number;
  rowsWritten: number;
  eventsSheetAdded: boolean;
  problems: Problem[];
}

async function apply(ctx: IExecuteFunctions, p: Params, input: Input): Promise<Applied & { sheet: string }> {
  const { title, table, tableOf, rest, clock, signal } = await openSheet(ctx, p);
  if (sameTitle(title, p.eventsSheet))
    throw invalidField(
      ctx,
      'Events Sheet',
      `"${p.eventsSheet}" is the watched sheet itself`,
      `Name another tab for the changes, e.g. "${DEFAULT_EVENTS_SHEET}".`,
    );
  const problems: Problem[] = [];
  const itemOf = new Map(input.changes.map((c) => [String(c.event.id), c.item]));
  // The watched sheet is written by one execution of this process at a time, as enrich writes it; the events
  // sheet's lock is the events writer's own. Executions started side by side (a morning's deliveries) wait their turn.
  // The lease in the spreadsheet is taken once the local turn comes: waiting is for this process only.
  // The lease too: another worker's execution of this workflow (queue mode) holds it for a few requests.
  const wait = { maxMs: LOCK_WAIT_MS, ...(signal ? { signal } : {}) };
  const locks = sheetWriterLocks(ctx, clock, waitingLocks(inProcessWriterLocks, clock, signal ? { signal } : {}), wait);
  const lock: HeldLock = await locks.acquire(table);
  try {
    // Google takes titles without case ("Company Changes" is "Company changes"): the tab's own title is written to.
    const existing = (await sheetByTitle(rest, p.eventsSheet))?.title;
    // A missing events sheet is made with its header in one request, under the writer's lock.
    const events = new EventRowsWriter({
      table: tableOf(existing ?? p.eventsSheet),
      ledger: new MemoryEventLedger(),
      createWhenMissing: existing === undefined,
      locks,
      lang: p.summaryLang,
      onProblem: (id, problem) => problems.push({ item: itemOf.get(id) ?? 0, event_id: id, problem }),
    });
    await events.open();
    try {
      // Rows first: every change, new or not (a row already holding it, or a newer one, is not written again), so
      // a run that failed after some rows is made whole by running it again; the events sheet, written last,
      // then decides which changes are new, and only those reach the digest.
      const rows = new RowChangeWriter(guardedTable(table, lock), { lang: p.summaryLang, ...(p.column ? { column: p.column } : {}) });
      const report = await rows.apply(input.changes.map((c) => c.event));
      const absent = new Set(rows.notInSheetCodes);
      const fresh: Applied['fresh'] = [];
      let alreadyApplied = input.repeated;
      // In batches: one Google append per few hundred changes, not one per change.
      let outcomes: string[];
      try {
        outcomes = await events.acceptMany(input.changes.map((c) => c.event as { id: string; type: string }));
      } catch (error) {
        throw addedBefore(ctx, error, events.stats.appended, p.eventsSheet);
      }
      for (const [i, c] of input.changes.entries()) {
        const outcome = outcomes[i];
        // A change that cannot be read is on the events sheet as received (once), and among the problems, not in the digest.
        if (outcome === 'appended') {
          if (rowChange(c.event, p.summaryLang)) fresh.push(c);
        } else if (outcome === 'duplicate') alreadyApplied++;
      }
      const code = (e: Rec) => String(((e.data as Rec | undefined)?.company as Rec | undefined)?.registry_code ?? '');
      return {
        sheet: title,
        fresh,
        alreadyApplied,
        notInSheet: fresh.filter((c) => absent.has(code(c.event))).length,
        rowsWritten: report.rows,
        eventsSheetAdded: events.created,
        problems,
      };
    } finally {
      await events.close();
    }
  } finally {
    await lock.release();
  }
}

/** A failure while adding changes to the events sheet, saying that running again adds the rest and nothing twice. */
function addedBefore(ctx: IExecuteFunctions, error: unknown, added: number, sheet: string): NodeApiError | NodeOperationError {
  const e = toSheetsNodeError(ctx.getNode(), error);
  const note = `${added} change(s) were added to "${sheet}" before it stopped; run again to add the rest: nothing is added twice.`;
  e.description = e.description ? `${e.description}\n${note}` : note;
  return e;
}

const paired = (items: Iterable<number>): IPairedItemData[] => [...new Set(items)].sort((a, b) => a - b).map((item) => ({ item }));

/** Write Events to Rows: the digest item of the changes new to the sheet, or no item. */
export async function executeWriteEvents(ctx: IExecuteFunctions): Promise<INodeExecutionData[]> {
  const p = readParams(ctx);
  const input = readInput(ctx.getInputData());
  let done: Applied & { sheet?: string } = {
    fresh: [],
    alreadyApplied: input.repeated,
    notInSheet: 0,
    rowsWritten: 0,
    eventsSheetAdded: false,
    problems: [],
  };
  // Nothing to write (only saved-search matches, test events or broken items): Google is not asked at all.
  if (input.changes.length)
    try {
      done = await apply(ctx, p, input);
    } catch (error) {
      if (ctx.getExecutionCancelSignal()?.aborted)
        throw new NodeOperationError(ctx.getNode(), 'The run was stopped', {
          description:
            'Stopped before it finished. What was written stays; running it again with the same items writes only what is missing, nothing twice.',
        });
      // eslint-disable-next-line @n8n/community-nodes/require-node-api-error -- mapped once, by the router (toSheetsNodeError)
      throw error;
    }
  const problems = [...input.problems, ...done.problems];
  if (!done.fresh.length && !problems.length) return [];
  const digest = digestItem(
    done.fresh.map((c) => c.event),
    { lang: p.summaryLang, digestLines: p.digestLines },
  );
  const json: IDataObject = {
    ...digest,
    // Nothing new but something broken: the one line a chat node posts says so.
    summary: digest.summary || `Company Data: ${problems.length} item(s) could not be applied: ${problems[0]!.problem}`,
    applied: done.fresh.length,
    already_applied: done.alreadyApplied,
    not_in_sheet: done.notInSheet,
    rows_written: done.rowsWritten,
    ignored: input.ignored,
    problems: problems as unknown as IDataObject[],
    spreadsheetId: p.spreadsheetId,
    ...(done.sheet ? { sheet: done.sheet } : {}),
    eventsSheet: p.eventsSheet,
    eventsSheetAdded: done.eventsSheetAdded,
  };
  return [{ json, pairedItem: paired(done.fresh.length ? done.fresh.map((c) => c.item) : problems.map((x) => x.item)) }];
}
