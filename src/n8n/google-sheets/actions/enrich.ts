import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { CompanyDataError, ValidationError } from '@company-data/core/errors';
import type { CoreClient } from '@company-data/core/client';
import type { EnrichMode, EnrichReport, SheetsClock, SummaryField, Table, WriteCheck } from '@company-data/core/sheets';
import { defaultFields, enrichSheet, PreflightError, reportOfFailedRun, SheetsRestTable, summaryFields } from '@company-data/core/sheets';
import { clientFor } from '../../transport/client';
import type { EnrichModeChoice } from '../descriptions/enrich';
import { staticDataAnswerStore } from '../ports/answer-store';
import { n8nClock } from '../../transport/clock';
import { sheetWriterLocks } from '../ports/sheet-locks';
import { googleSheetsAccess } from '../transport/google';
import { sheetTitle, spreadsheetRest } from '../transport/sheets-api';
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

/** A refusal or failure of the engine as the node's error: what happened, and what to do. */
function enrichError(ctx: IExecuteFunctions, error: unknown): unknown {
  if (error instanceof PreflightError) {
    const failed = error.checks.filter((c) => c.ok === false);
    return new NodeOperationError(ctx.getNode(), `The sheet cannot take the answers: ${failed.map((c) => c.text).join(' ')}`, {
      description: `${failed.map((c) => `${c.check}: ${c.text}`).join('\n')}\nNothing was sent and nothing was billed.`,
    });
  }
  // The cap is named as the CLI's flag (max-billed-queries): here, the node's field.
  if (error instanceof ValidationError && error.field === 'max-billed-queries')
    return new NodeOperationError(ctx.getNode(), `Max Billed Queries ${error.rule.split(';')[0]}`, {
      description: 'Raise Max Billed Queries (0: no cap), or enrich fewer rows. Nothing was sent and nothing was billed.',
    });
  const report = reportOfFailedRun(error);
  if (report?.failed) {
    const message = error instanceof Error ? error.message : String(error);
    // n8n saves static data at the end of production executions only (docs/assumptions.md).
    const kept =
      ctx.getMode() === 'manual'
        ? 'Answers already in the sheet are free on the next run; n8n keeps nothing of a manual run for the others, so run the workflow from its trigger to keep them next time.'
        : `Answers not yet in the sheet are kept in ${report.failed.stateDir}, so running again bills nothing for them.`;
    return new NodeOperationError(ctx.getNode(), message, {
      description: `This run paid for ${report.billedQueries} unique ${report.billedQueries === 1 ? 'query' : 'queries'} before it stopped. ${kept}`,
    });
  }
  // The engine's own refusals (no key column found, no such sheet, a cap exceeded) name the CLI's flags: here, the node's fields.
  if (
    error instanceof Error &&
    !(error instanceof CompanyDataError) &&
    !(error as { status?: unknown }).status &&
    !(error instanceof NodeOperationError)
  )
    return new NodeOperationError(ctx.getNode(), inNodeWords(error.message));
  return error;
}

const FLAG_FIELDS: Record<string, string> = {
  '--column': 'the Key Column field',
  '--sheet': 'the Sheet field',
  '--max-billed-queries': 'Max Billed Queries',
  '--lang': 'the Language option',
};

/** A message of the engine with the CLI's flags as the node's fields. */
export function inNodeWords(message: string): string {
  return message.replace(/--[a-z-]+/g, (flag) => FLAG_FIELDS[flag] ?? flag);
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

/** The sheet an operation works on, opened over n8n's helpers and credentials, with the service's client. */
export interface OpenSheet {
  spreadsheetId: string;
  /** The tab's title now (a tab picked from the list is found by its id). */
  title: string;
  table: Table;
  client: CoreClient;
  clock: SheetsClock;
  signal?: AbortSignal;
}

export async function openSheet(ctx: IExecuteFunctions, p: SheetParams): Promise<OpenSheet> {
  const signal = ctx.getExecutionCancelSignal();
  const clock = n8nClock(signal);
  const access = await googleSheetsAccess(ctx, p.authentication);
  const title = await sheetTitle(spreadsheetRest(access, p.root, p.spreadsheetId, clock), p.sheet);
  const client = await clientFor(ctx, { lang: p.lang });
  const table = new SheetsRestTable({
    spreadsheetId: p.spreadsheetId,
    sheet: title,
    transport: access.transport,
    ...(access.tokens ? { tokens: access.tokens } : {}),
    clock,
    rootUrl: `${p.root}/`,
    ...(signal ? { signal } : {}),
  });
  return { spreadsheetId: p.spreadsheetId, title, table, client, clock, ...(signal ? { signal } : {}) };
}

/** The Sheets engine's enrich over the open sheet, its refusals and failures as the node's errors. */
export async function enrichRows(
  ctx: IExecuteFunctions,
  sheet: OpenSheet,
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
    throw signal?.aborted ? stoppedError(ctx, error) : enrichError(ctx, error);
  }
}

/** Enrich Rows: the Sheets engine (packages/core/sheets) over n8n's helpers, credential and static data. */
export async function executeEnrich(ctx: IExecuteFunctions): Promise<INodeExecutionData> {
  const p = readParams(ctx);
  const sheet = await openSheet(ctx, p);
  const report = await enrichRows(ctx, sheet, p);
  return { json: reportItem(report, { spreadsheetId: p.spreadsheetId, sheet: sheet.title }), pairedItem: { item: 0 } };
}
