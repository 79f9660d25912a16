/**
 * enrichSheet in Google Sheets: the core's engine (packages/core/sheets/enrich) with the add-on's adapters,
 * within a time budget. Six minutes are not a limit on the sheet's size: at the budget the run stops
 * sending, saves every answer it paid for (rows, else the hidden sheet) and schedules its continuation,
 * which bills nothing twice (rows holding their answer are skipped, paid answers not yet in rows are free).
 */
import { CoreClient } from '@company-data/core/client';
import { AuthenticationError } from '@company-data/core/errors';
import { enrichSheet as coreEnrich } from '@company-data/core/sheets/enrich/enrich';
import { defaultFields, reportOfFailedRun, type EnrichReport, type SummaryField } from '@company-data/core/sheets/enrich/options';
import { newStopper } from '@company-data/core/web-free';
import { newRuntime, type Runtime } from './clock';
import { addonLocks } from './locks';
import { sheetAnswerStore } from './paid-answers';
import { enrichFigures, errorText, remember, saveProgress, type AddonReport } from './reports';
import { applyTriggerState, readTriggerState, type Continuation } from './schedule';
import { keyChecked, markKeyChecked, readSettings } from './settings';
import { SheetTable, sheetList } from './sheet-table';

/** Apps Script ends an execution at 6 minutes; sending stops here, leaving time to save and schedule. */
export const BUDGET_MS = 4.5 * 60_000;
/** Progress is written to the document's properties at most this often. */
const PROGRESS_EVERY_MS = 5_000;

export interface EnrichInput {
  sheetName?: string;
  keyColumn?: string;
  maxBilledQueries?: number;
}

/** Reads the entry's options, naming the field and the rule when one is wrong. */
export function enrichInput(input: unknown): EnrichInput {
  const o = (input ?? {}) as Record<string, unknown>;
  const text = (f: string) => {
    const v = o[f];
    if (v === undefined || v === null || v === '') return undefined;
    if (typeof v !== 'string') throw new Error(`${f}: must be text`);
    return v.trim() || undefined;
  };
  const max = o.maxBilledQueries;
  if (max !== undefined && max !== null && max !== '' && !(Number.isInteger(Number(max)) && Number(max) >= 0))
    throw new Error('maxBilledQueries: must be a whole number of 0 or more');
  const sheetName = text('sheetName');
  const keyColumn = text('keyColumn');
  return {
    ...(sheetName ? { sheetName } : {}),
    ...(keyColumn ? { keyColumn } : {}),
    ...(max !== undefined && max !== null && max !== '' ? { maxBilledQueries: Number(max) } : {}),
  };
}

/** The sheet the run is about: named, else the active one (a menu or sidebar run). */
export function pickSheet(book: GoogleAppsScript.Spreadsheet, name: string | undefined): GoogleAppsScript.Sheet {
  if (name === undefined) return book.getActiveSheet();
  const s = book.getSheetByName(name);
  if (!s) throw new Error(`sheetName: no sheet named "${name}" in this spreadsheet; its sheets are ${sheetList(book)}`);
  return s;
}

/** The service's client over the add-on's runtime, from the user's settings. */
export function clientOf(rt: Runtime): CoreClient {
  const s = readSettings();
  if (!s.apiKey) throw new Error('apiKey: no API key saved yet. Open Extensions > Company Data > Settings and paste your key.');
  return new CoreClient({
    apiKey: s.apiKey,
    baseUrl: s.baseUrl,
    transport: rt.transport,
    clock: rt.clock,
    userAgent: 'company-data-sheets-addon',
  });
}

export interface EnrichRunOptions extends EnrichInput {
  fields?: readonly SummaryField[];
  /** This run continues an earlier one: its billed count is added. */
  continuation?: Continuation;
  /** Runs the core's enrich (keepCurrent passes its own table). */
  kind?: 'enrich' | 'keepCurrent';
}

/** Checks the saved key with the service once (GET /usage, never billed); a refusal forgets the check. */
export async function ensureKeyChecked(client: CoreClient): Promise<void> {
  if (keyChecked()) return;
  await client.reference.usage();
  markKeyChecked(true);
}

/** One execution's part of an enrich run: the report, and the continuation when it was cut short. */
export async function runEnrich(o: EnrichRunOptions): Promise<{ report: AddonReport; figures?: EnrichReport }> {
  const start = Date.now();
  const book = SpreadsheetApp.getActiveSpreadsheet();
  let sheetName = o.sheetName;
  try {
    sheetName = pickSheet(book, o.sheetName).getName();
    const stop = newStopper();
    const rt = newRuntime(() => {
      if (!stop.signal.aborted && Date.now() - start > BUDGET_MS) stop.abort(new Error('time budget'));
    });
    const client = clientOf(rt);
    const billedBefore = o.continuation?.billedSoFar ?? 0;
    let lastProgress = 0;
    const table = new SheetTable(book, sheetName);
    const r = await rt.loop.run(async () => {
      // A key not yet accepted is checked before the sheet is locked or read (GET /usage, never billed): a
      // wrong key is one clear refusal, not a failed lookup in every row. Once accepted (here or when it was
      // saved), runs send no extra request for it.
      await ensureKeyChecked(client);
      return await coreEnrich({
        table,
        client,
        ...(o.keyColumn ? { column: o.keyColumn } : {}),
        fields: o.fields ?? defaultFields,
        mode: 'missing',
        ...(o.maxBilledQueries !== undefined ? { maxBilledQueries: Math.max(0, o.maxBilledQueries - billedBefore) } : {}),
        signal: stop.signal,
        onProgress: (p) => {
          if (Date.now() - lastProgress < PROGRESS_EVERY_MS) return;
          lastProgress = Date.now();
          saveProgress({ kind: o.kind ?? 'enrich', sheetName: sheetName!, done: p.done, total: p.total });
        },
        ports: { clock: rt.clock, answers: sheetAnswerStore(book), locks: addonLocks(rt.clock) },
      });
    });
    const billed = billedBefore + r.billedQueries;
    const figures = { sheetName, ...enrichFigures(r), billedQueries: billed, billedThisPart: r.billedQueries };
    if (r.interrupted) {
      const continuation: Continuation = {
        kind: o.kind ?? 'enrich',
        sheetName,
        ...(o.keyColumn ? { keyColumn: o.keyColumn } : {}),
        ...(o.maxBilledQueries !== undefined ? { maxBilledQueries: o.maxBilledQueries } : {}),
        billedSoFar: billed,
        parts: (o.continuation?.parts ?? 1) + 1,
      };
      applyTriggerState({ ...readTriggerState(), continuation });
      return {
        report: {
          status: 'continuing',
          message: `Saved what was paid for so far; the run goes on by itself in a minute or more (part ${continuation.parts}).`,
          ...figures,
        },
        figures: r,
      };
    }
    if (o.continuation) applyTriggerState({ ...readTriggerState(), continuation: undefined });
    return { report: { status: 'done', message: doneMessage(r, billed), ...figures }, figures: r };
  } catch (e) {
    if (e instanceof AuthenticationError) markKeyChecked(false);
    const failed = reportOfFailedRun(e);
    if (o.continuation) retryLater(o.continuation);
    return {
      report: {
        status: 'refused',
        message:
          errorText(e) +
          (failed?.billedQueries ? ` The ${failed.billedQueries} answers paid for are kept: running again bills nothing for them.` : ''),
        ...(sheetName ? { sheetName } : {}),
        ...(failed ? enrichFigures(failed) : { billedQueries: 0 }),
      },
    };
  }
}

/** Parts of one run at most: a continuation refused that often (a key revoked meanwhile) stops asking again. */
const MAX_PARTS = 30;

/** A continuation that was refused (another run busy, a passing failure) is tried again on the one trigger. */
function retryLater(c: Continuation): void {
  try {
    const parts = c.parts + 1;
    applyTriggerState({ ...readTriggerState(), continuation: parts <= MAX_PARTS ? { ...c, parts } : undefined });
  } catch {
    // The refusal is the answer; a trigger that could not be set leaves the run to the next click or schedule.
  }
}

function doneMessage(r: EnrichReport, billed: number): string {
  if (r.rowsInScope === 0) return `Every row is enriched already (nothing billed). Key column: ${r.keyColumn}.`;
  return `Enriched ${r.rowsInScope} rows: ${r.matched} matched, ${r.noMatch} not found${r.errors ? `, ${r.errors} failed` : ''}; ${billed} queries billed.`;
}

/** The global enrichSheet: refuses bad input before anything, keeps the report for the sidebar. */
export async function enrichSheetEntry(input: unknown): Promise<AddonReport> {
  let opts: EnrichInput;
  try {
    opts = enrichInput(input);
  } catch (e) {
    return remember({ status: 'refused', message: errorText(e), billedQueries: 0 });
  }
  return remember((await runEnrich(opts)).report);
}
