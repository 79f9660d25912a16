import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeParameterResourceLocator } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { findKeyColumn } from '@company-data/core/sheets';
import { SeenTable } from '@company-data/core/sheets/table/seen-table';
import { defaultListName, matchedCodes, sheetExternalRef, WATCH_FIELDS } from '@company-data/core/watch/list-sync';
import { syncList, type ListSyncResult } from '@company-data/core/watch/sync-list';
import { toSheetsNodeError } from '../errors';
import { staticDataWatchState } from '../ports/watch-state';
import { enrichRows, openEnrichingSheet, reportItem, sheetParams } from './enrich';
import { invalidField } from './sheet-params';

/** The service's longest list name (the operation table's rule for POST /monitoring/lists). */
const MAX_LIST_NAME = 200;

/**
 * Which sheet the state is of: the spreadsheet and the tab's id when the tab was picked from the list (it
 * survives a rename), else its name.
 */
function sheetKey(spreadsheetId: string, sheet: unknown, title: string): string {
  const rl = (typeof sheet === 'object' && sheet !== null ? sheet : {}) as INodeParameterResourceLocator;
  return rl.mode === 'list' ? `${spreadsheetId}#gid:${String(rl.value)}` : `${spreadsheetId}#name:${title}`;
}

/** The run's output item: the list as synced, and what enriching the new rows did and cost. */
function watchItem(sync: ListSyncResult, enriched: IDataObject): IDataObject {
  return {
    list_id: sync.listId,
    list_name: sync.listName,
    created: sync.created,
    added: sync.added,
    removed: sync.removed,
    kept: sync.kept,
    added_codes: sync.addedCodes,
    removed_codes: sync.removedCodes,
    invalid: sync.invalid,
    enriched,
  };
}

/**
 * Keep Current: one monitoring list holds exactly the sheet's companies (the registry codes of its matched
 * rows). Rows not enriched yet are enriched first, as Enrich Rows does with "Not Enriched Yet" (the same
 * checks before paying, Max Billed Queries); then the list is synced through the core's syncList, its state
 * (list id, name, members) in the node's static data.
 */
export async function executeWatch(ctx: IExecuteFunctions): Promise<INodeExecutionData> {
  const p = sheetParams(ctx);
  const asked = String(ctx.getNodeParameter('listName', 0, '') ?? '').trim();
  if (asked.length > MAX_LIST_NAME)
    throw invalidField(
      ctx,
      'List Name',
      `at most ${MAX_LIST_NAME} characters`,
      'Shorten the name, or leave it empty to name the list after the sheet.',
    );

  const sheet = await openEnrichingSheet(ctx, p);
  // The sheet as enrich last read and wrote it gives its companies without reading it once more (a request against
  // Google's 60 a minute), as `company-data watch` does; anything changed meanwhile and the sheet is read.
  const seen = new SeenTable(sheet.table);
  const report = await enrichRows(ctx, { ...sheet, table: seen }, { ...p, fields: WATCH_FIELDS, mode: 'missing' });
  if (sheet.signal?.aborted)
    throw new NodeOperationError(ctx.getNode(), 'The run was stopped', {
      description: `Stopped before the list was synced. The answers paid for (${report.billedQueries}) are kept: the next run bills nothing for them.`,
    });
  const enriched = reportItem(report, { spreadsheetId: p.spreadsheetId, sheet: sheet.title });

  const { header, rows } = seen.seen() ?? (await sheet.table.read());
  const codes = matchedCodes(header, rows, findKeyColumn(header, p.column));
  const target = { kind: 'google' as const, spreadsheetId: p.spreadsheetId, sheet: sheet.title };
  const state = staticDataWatchState(ctx.getWorkflowStaticData('node'), sheetKey(p.spreadsheetId, p.sheet, sheet.title));
  // A tab renamed since the list was made keeps its list: the name the state holds, while it is a name given by default.
  const saved = asked ? undefined : await state.get();
  const defaultPrefix = `${defaultListName({ kind: 'google', spreadsheetId: p.spreadsheetId })} / `;
  const listName = asked || (saved?.listName.startsWith(defaultPrefix) ? saved.listName : defaultListName(target));

  let sync: ListSyncResult;
  try {
    sync = await syncList({ client: sheet.client, codes, listName, externalRef: sheetExternalRef(target), state });
  } catch (error) {
    const e = toSheetsNodeError(ctx.getNode(), error);
    const paid = report.billedQueries
      ? ` The ${report.billedQueries} ${report.billedQueries === 1 ? 'answer' : 'answers'} paid for are in the sheet and free on the next run.`
      : '';
    e.description = `${e.description ? `${e.description}\n` : ''}The list "${listName}" was not brought up to date.${paid}`;
    throw e;
  }
  return { json: watchItem(sync, enriched), pairedItem: { item: 0 } };
}
