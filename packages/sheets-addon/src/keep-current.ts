/**
 * keepCurrent in Google Sheets, as `company-data watch` does one pass: rows not enriched yet are enriched
 * (the same run as enrichSheet, within the time budget); one monitoring list holds exactly the sheet's
 * companies (the core's syncList); the list's new changes are appended once each to the sheet
 * "Company changes" (the core's EventRowsWriter, whose event_id column makes a change read twice a duplicate)
 * and written into their companies' rows (the core's RowChangeWriter); with a chat webhook, one digest of the
 * run's new changes (the core's buildDigest). State between executions: the hidden state sheet.
 */
import { buildDigest } from '@company-data/core/digest';
import { findKeyColumn } from '@company-data/core/sheets/enrich/layout';
import { storeInBatches } from '@company-data/core/sheets/events/batches';
import { EventRowsWriter } from '@company-data/core/sheets/events/events-writer';
import { MemoryEventLedger } from '@company-data/core/sheets/ledger/memory-ledger';
import { defaultListName, matchedCodes, sheetExternalRef, WATCH_FIELDS } from '@company-data/core/watch/list-sync';
import { RowChangeWriter } from '@company-data/core/watch/row-writer';
import { parseWatchListState, syncList, type WatchListStatePort } from '@company-data/core/watch/sync-list';
import { postDigest } from './chat';
import { newRuntime } from './clock';
import { clientOf, pickSheet, runEnrich } from './enrich';
import { readState, writeState } from './hidden-state';
import { withSheetLease } from '@company-data/core/sheets/lease/lease-locks';
import { addonLocks } from './locks';
import { errorText, remember, type AddonReport } from './reports';
import type { Continuation } from './schedule';
import { readSettings } from './settings';
import { SheetTable } from './sheet-table';

export const EVENTS_SHEET = 'Company changes';

interface WatchState {
  /** The events cursor: the last change stored in "Company changes". */
  cursor?: string;
  /** Changes stored but not yet written into their rows (a run cut short between the two). */
  waiting: unknown[];
}

const listStateName = (sheet: string) => `watch-list:${sheet}`;
const watchStateName = (sheet: string) => `watch-events:${sheet}`;

function listState(book: GoogleAppsScript.Spreadsheet, sheet: string): WatchListStatePort {
  return {
    get: () => parseWatchListState(readState(book, listStateName(sheet))),
    put: (s) => writeState(book, listStateName(sheet), s),
  };
}

export async function keepCurrentRun(o: { sheetName?: string; continuation?: Continuation }): Promise<AddonReport> {
  const enriched = await runEnrich({ ...o, kind: 'keepCurrent', fields: WATCH_FIELDS });
  if (enriched.report.status !== 'done') return enriched.report;
  const sheetName = enriched.report.sheetName as string;
  const book = SpreadsheetApp.getActiveSpreadsheet();
  const rt = newRuntime();
  try {
    return await rt.loop.run(async () => {
      const lock = await addonLocks(rt.clock).acquire(new SheetTable(book, sheetName));
      try {
        return await watchPass(book, sheetName, rt, enriched.report);
      } finally {
        await lock.release();
      }
    });
  } catch (e) {
    return { ...enriched.report, status: 'refused', message: `${errorText(e)} The rows enriched are saved.` };
  }
}

async function watchPass(
  book: GoogleAppsScript.Spreadsheet,
  sheetName: string,
  rt: ReturnType<typeof newRuntime>,
  enriched: AddonReport,
): Promise<AddonReport> {
  const client = clientOf(rt);
  const table = new SheetTable(book, sheetName);
  const { header, rows } = await table.read();
  const codes = matchedCodes(header, rows, findKeyColumn(header));
  const target = { kind: 'google' as const, spreadsheetId: book.getId(), sheet: sheetName };
  const sync = await syncList({
    client,
    codes,
    listName: defaultListName(target),
    externalRef: sheetExternalRef(target),
    state: listState(book, sheetName),
  });

  const state: WatchState = readState<WatchState>(book, watchStateName(sheetName)) ?? { waiting: [] };
  const ledger = new MemoryEventLedger();
  ledger.cursor = state.cursor;
  // The document lock is this execution's already: the events sheet takes its lease only.
  const locks = withSheetLease(undefined, { clock: rt.clock, who: 'the Google Sheets add-on', background: false });
  const writer = new EventRowsWriter({ table: new SheetTable(book, EVENTS_SHEET), ledger, locks, createWhenMissing: true });
  await writer.open();
  const fresh: unknown[] = [];
  const store = async (batch: { id: string; type: string }[]) => {
    // Waiting for their rows before they are stored: a run cut short here writes them into rows next time.
    state.waiting.push(...batch.filter((e) => e.type === 'monitoring.change'));
    writeState(book, watchStateName(sheetName), state);
    const outcomes = await writer.acceptMany(batch);
    batch.forEach((e, i) => outcomes[i] === 'appended' && fresh.push(e));
    state.cursor = batch[batch.length - 1]!.id;
    writeState(book, watchStateName(sheetName), state);
  };
  const events = client.iterateEvents({ list_id: sync.listId, ...(state.cursor ? { after: state.cursor } : {}) });
  await storeInBatches(events as AsyncIterable<{ id: string; type: string }>, store);
  await writer.close();

  const rowsReport = await new RowChangeWriter(table, { lang: 'en' }).apply(state.waiting);
  state.waiting = [];
  writeState(book, watchStateName(sheetName), state);

  const settings = readSettings();
  let digest: { posted: boolean; changes: number; status?: number } | undefined;
  if (settings.chatWebhookUrl && fresh.length) {
    const d = buildDigest(fresh, { lang: 'en' });
    const res = d.text ? await postDigest(rt.transport, settings.chatWebhookUrl, d.text) : undefined;
    digest = { posted: !!res?.ok, changes: d.total, ...(res ? { status: res.status } : {}) };
  }
  return {
    ...enriched,
    status: 'done',
    message:
      `${sync.added + sync.kept} companies watched (${sync.added} added, ${sync.removed} removed); ` +
      `${fresh.length} new ${fresh.length === 1 ? 'change' : 'changes'} in "${EVENTS_SHEET}", ${rowsReport.rows} rows updated.` +
      (digest && !digest.posted ? ` The chat digest was not accepted (answer ${digest.status ?? 'none'}): check the webhook address.` : ''),
    list: { id: sync.listId, name: sync.listName, added: sync.added, removed: sync.removed, kept: sync.kept, invalid: sync.invalid.length },
    newChanges: fresh.length,
    rowsUpdated: rowsReport.rows,
    changesNotInSheet: rowsReport.notInSheet,
    ...(digest ? { digest } : {}),
  };
}

/** The global keepCurrent({ sheetName? }). */
export async function keepCurrentEntry(input: unknown): Promise<AddonReport> {
  const o = (input ?? {}) as { sheetName?: unknown };
  if (o.sheetName !== undefined && o.sheetName !== null && typeof o.sheetName !== 'string')
    return remember({ status: 'refused', message: 'sheetName: must be text', billedQueries: 0 });
  try {
    if (o.sheetName) pickSheet(SpreadsheetApp.getActiveSpreadsheet(), o.sheetName);
  } catch (e) {
    return remember({ status: 'refused', message: errorText(e), billedQueries: 0 });
  }
  return remember(await keepCurrentRun({ ...(o.sheetName ? { sheetName: o.sheetName } : {}) }));
}
