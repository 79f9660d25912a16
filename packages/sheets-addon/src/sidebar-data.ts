/**
 * What the sidebar asks for with calls returning plain values: the sheets and their columns, and the
 * price of a run before paying (the core's dry run: queries it would bill, answers already paid).
 */
import { findKeyColumn } from '@company-data/core/sheets/enrich/layout';
import { enrichSheet as coreEnrich } from '@company-data/core/sheets/enrich/enrich';
import { ANSWERS_SHEET, sheetAnswerStore } from './paid-answers';
import { newRuntime } from './clock';
import { clientOf, enrichInput, pickSheet } from './enrich';
import { enrichFigures, errorText, runStatus } from './reports';
import { readTriggerState } from './schedule';
import { publicSettings } from './settings';
import { cellText, SheetTable } from './sheet-table';
import { EVENTS_SHEET } from './keep-current';

/** The visible sheets (not the add-on's own), each with its header and the key column found in it. */
export function sheetChoices() {
  const book = SpreadsheetApp.getActiveSpreadsheet();
  const active = book.getActiveSheet().getName();
  const sheets = book
    .getSheets()
    .filter((s) => !s.isSheetHidden() && s.getName() !== ANSWERS_SHEET && s.getName() !== EVENTS_SHEET)
    .map((s) => {
      const width = s.getLastColumn();
      const header = width
        ? s
            .getRange(1, 1, 1, width)
            .getValues()[0]!
            .map(cellText)
            .filter((h) => h !== '')
        : [];
      let keyColumn = '';
      try {
        keyColumn = header[findKeyColumn(header)] ?? '';
      } catch {
        // No column looks like a key: the person picks one.
      }
      return { name: s.getName(), columns: header.filter((h) => !h.startsWith('company_data_')), keyColumn };
    });
  const trigger = readTriggerState();
  return {
    active,
    sheets,
    settings: publicSettings(),
    schedule: trigger.schedule ?? null,
    continuing: !!trigger.continuation,
    ...runStatus(),
  };
}

/** The price before paying: a dry run of enrich (nothing sent that bills, nothing written). */
export async function priceOf(input: unknown) {
  try {
    const o = enrichInput(input);
    const book = SpreadsheetApp.getActiveSpreadsheet();
    const sheetName = pickSheet(book, o.sheetName).getName();
    const rt = newRuntime();
    const client = clientOf(rt);
    const r = await rt.loop.run(() =>
      coreEnrich({
        table: new SheetTable(book, sheetName),
        client,
        ...(o.keyColumn ? { column: o.keyColumn } : {}),
        mode: 'missing',
        dryRun: true,
        ports: { clock: rt.clock, answers: sheetAnswerStore(book) },
      }),
    );
    return {
      status: 'done',
      sheetName,
      ...enrichFigures(r),
      message: `${r.billedQueries} queries to bill; ${r.fromJournal + r.fromCache} answers already paid.`,
    };
  } catch (e) {
    return { status: 'refused', message: errorText(e) };
  }
}
