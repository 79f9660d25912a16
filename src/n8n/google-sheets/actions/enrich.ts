import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import type { CoreClient } from '@company-data/core/client';
import type { EnrichMode, EnrichReport, SummaryField, Table, WriteCheck } from '@company-data/core/sheets';
import { defaultFields, enrichSheet, reportOfFailedRun, summaryFields } from '@company-data/core/sheets';
import { clientFor } from '../../transport/client';
import type { EnrichModeChoice } from '../descriptions/enrich';
import { staticDataAnswerStore } from '../ports/answer-store';
import { sheetWriterLocks } from '../ports/sheet-locks';
import { openSheet, type OpenSheet } from './open-sheet';
import { invalidField, readSheetParams, type SheetParams } from './sheet-params';

interface EnrichParams extends EnrichingParams {
  fields: readonly SummaryField[];
  mode: EnrichMode;
}

function readParams(ctx: IExecuteFunctions): EnrichParams {
  const fields = ctx.getNodeParameter('fields', 0, [...defaultFields]) as unknown;
  const list = Array.isArray(fields) ? fields.map(String) : [];
  const unknown = list.filter((f) => !(f in summaryFields));
  if (!list.length || unknown.length)
    throw invalidField(
      ctx,
      'Fields',
      list.length ? `unknown field ${unknown.map((f) => `"${f}"`).join(', ')}` : 'pick at least one',
      `Choose from: ${Object.keys(summaryFields).join(', ')}.`,
    );
  const choice = ctx.getNodeParameter('mode', 0, 'missing') as EnrichModeChoice;
  let mode: EnrichMode;
  if (choice === 'olderThan') {
    const days = Number(ctx.getNodeParameter('olderThanDays', 0, 30));
    if (!Number.isInteger(days) || days < 1)
      throw invalidField(ctx, 'Older Than (Days)', 'must be a whole number of 1 or more', 'Enter how many days old an answer may be.');
    mode = { olderThanDays: days };
  } else if (choice === 'missing' || choice === 'all') mode = choice;
  else throw invalidField(ctx, 'Rows to Enrich', `unknown choice "${String(choice)}"`, 'Pick one from the list.');
  return { ...sheetParams(ctx), fields: list as SummaryField[], mode };
}

/** The fields an operation that enriches shares: the sheet's, and the cap on what a run may bill. */
export interface EnrichingParams extends SheetParams {
  maxBilledQueries?: number;
}

export function sheetParams(ctx: IExecuteFunctions): EnrichingParams {
  const cap = Number(ctx.getNodeParameter('maxBilledQueries', 0, 0));
  if (!Number.isInteger(cap) || cap < 0)
    throw invalidField(ctx, 'Max Billed Queries', 'must be a whole number of 0 or more (0: no cap)', 'Correct the value and run again.');
  return { ...readSheetParams(ctx), ...(cap > 0 ? { maxBilledQueries: cap } : {}) };
}

/** The run's report as the node's output item: what was written, what it cost, what was left alone and why. */
export function reportItem(r: EnrichReport, where: { spreadsheetId: string; sheet: string }): IDataObject {
  const free = r.fromJournal + r.fromCache;
  const leftAloneWhy: string[] = [];
  if (r.leftAlone)
    leftAloneWhy.push(
      `${r.leftAlone} row(s) were changed by someone else during the run (inserted, or key edited): run again to enrich them`,
    );
  if (r.keptCells) leftAloneWhy.push(`${r.keptCells} cell(s) of the company_data_ columns were typed by a person and kept`);
  if (r.personColumns.length)
    leftAloneWhy.push(`columns named like a field (${r.personColumns.join(', ')}) belong to people and were left as they are`);
  if (r.legacyRows) leftAloneWhy.push(`${r.legacyRows} row(s) enriched by the version before company_data_ columns keep their data`);
  return {
    spreadsheetId: where.spreadsheetId,
    sheet: where.sheet,
    keyColumn: r.keyColumn,
    rows: r.rows,
    rowsInScope: r.rowsInScope,
    rowsEnriched: r.matched + r.noMatch + r.vatGroups,
    matched: r.matched,
    noMatch: r.noMatch,
    vatGroups: r.vatGroups,
    invalid: r.invalid,
    skipped: r.skipped,
    errors: r.errors,
    ...(r.firstError ? { firstError: r.firstError as unknown as IDataObject } : {}),
    uniqueQueries: r.uniqueQueries,
    billedQueries: r.billedQueries,
    freeQueries: free,
    requests: r.requests,
    leftAlone: r.leftAlone,
    keptCells: r.keptCells,
    leftAloneWhy,
    interrupted: r.interrupted,
    checks: (r.checks ?? []).map((c: WriteCheck) => ({ check: c.check, ok: c.ok ?? null, text: c.text })),
  };
}

/**
 * Stopped while a wait or request was under way: Stop ends Google's quota waits at once, so what failed
 * after it failed because of it (the last retries run out at once). Said as what it is.
 */
function stoppedError(ctx: IExecuteFunctions, error: unknown): NodeOperationError {
  const report = reportOfFailedRun(error);
  const paid = report
    ? ` It had paid for ${report.billedQueries} unique ${report.billedQueries === 1 ? 'query' : 'queries'}; answers in the sheet are free on the next run.`
    : '';
  return new NodeOperationError(ctx.getNode(), 'The run was stopped', { description: `Stopped before it finished.${paid}` });
}

/** An open sheet with the service's client: what the operations that enrich work with. */
export interface EnrichingSheet extends Pick<OpenSheet, 'spreadsheetId' | 'title' | 'clock' | 'signal'> {
  table: Table;
  client: CoreClient;
}

/** The sheet opened, and the service's client in the run's language. */
export async function openEnrichingSheet(ctx: IExecuteFunctions, p: SheetParams): Promise<EnrichingSheet> {
  const sheet = await openSheet(ctx, p);
  return { ...sheet, client: await clientFor(ctx, { lang: p.lang }) };
}

/** The Sheets engine's enrich over the open sheet; a stop is said as what it is, other errors go to the node's one mapping. */
export async function enrichRows(
  ctx: IExecuteFunctions,
  sheet: EnrichingSheet,
  p: Pick<EnrichParams, 'column' | 'fields' | 'mode' | 'maxBilledQueries' | 'lang'>,
): Promise<EnrichReport> {
  const { clock, signal } = sheet;
  try {
    return await enrichSheet({
      table: sheet.table,
      client: sheet.client,
      ...(p.column ? { column: p.column } : {}),
      fields: p.fields,
      mode: p.mode,
      ...(p.maxBilledQueries ? { maxBilledQueries: p.maxBilledQueries } : {}),
      lang: p.lang,
      ...(signal ? { signal } : {}),
      ports: { clock, answers: staticDataAnswerStore(ctx.getWorkflowStaticData('node')), locks: sheetWriterLocks(ctx, clock) },
    });
  } catch (error) {
    // Other errors are mapped once, by the router (toSheetsNodeError).
    throw signal?.aborted ? stoppedError(ctx, error) : error;
  }
}

/** Enrich Rows: the Sheets engine (packages/core/sheets) over n8n's helpers, credential and static data. */
export async function executeEnrich(ctx: IExecuteFunctions): Promise<INodeExecutionData> {
  const p = readParams(ctx);
  const sheet = await openEnrichingSheet(ctx, p);
  const report = await enrichRows(ctx, sheet, p);
  return { json: reportItem(report, { spreadsheetId: p.spreadsheetId, sheet: sheet.title }), pairedItem: { item: 0 } };
}
