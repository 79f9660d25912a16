/**
 * The engine's store of paid answers in Apps Script: the sheet's own company_data_ columns hold every answer
 * saved (a rerun skips rows holding an answer for their key), and a hidden sheet holds the answers paid for
 * and not yet in the rows (a run cut short by the time budget, a refused save). Not PropertiesService
 * (500 KB a store) nor CacheService (6 hours at most, evicted earlier): what is paid for must outlive both.
 * One row per answer: scope, key, paid at, the answer as JSON (over several cells when longer than a cell).
 */
import type { LookupResult } from '@company-data/core/schemas/company';
import type { AnswerScope, OpenAnswerStore, PaidAnswerStore } from '@company-data/core/sheets/ports';
import { progressStore } from '@company-data/core/sheets/progress-store';
import { fromJsonCells, insertSheetOnce, jsonCells, textRows, writeTextRows } from './sheet-cells';

export const ANSWERS_SHEET = 'company_data_paid_answers';
const HEADER = ['scope', 'key', 'paid_at', 'answer'];
const DAY_MS = 86_400_000;

const scopeKey = (s: AnswerScope) => JSON.stringify([s.tableId, s.service, s.limit, s.lang ?? null]);

function answersSheet(book: GoogleAppsScript.Spreadsheet, make: boolean): GoogleAppsScript.Sheet | undefined {
  const found = book.getSheetByName(ANSWERS_SHEET);
  if (found || !make) return found ?? undefined;
  const sheet = insertSheetOnce(book, ANSWERS_SHEET);
  if (!sheet) return book.getSheetByName(ANSWERS_SHEET) ?? undefined;
  writeTextRows(sheet, 1, [HEADER]);
  sheet.hideSheet();
  return sheet;
}

/** The rows of the hidden sheet (without the header), as text. */
const readRows = (sheet: GoogleAppsScript.Sheet) => textRows(sheet, 2);

/** The store of one run over the open spreadsheet's hidden sheet. */
export function sheetAnswerStore(book: GoogleAppsScript.Spreadsheet): OpenAnswerStore {
  return (scope: AnswerScope): PaidAnswerStore => {
    const key = scopeKey(scope);
    const maxAgeMs = (scope.maxAgeDays ?? 30) * DAY_MS;
    const answers = new Map<string, LookupResult>();
    const existing = answersSheet(book, false);
    for (const r of existing ? readRows(existing) : []) {
      if (r[0] !== key || scope.now() - Number(r[2]) > maxAgeMs) continue;
      const answer = fromJsonCells(r.slice(3)) as LookupResult | undefined;
      // A damaged row (undefined): that answer is paid again rather than written wrong.
      if (answer !== undefined) answers.set(r[1]!, answer);
    }
    return progressStore({
      location: `the hidden sheet "${ANSWERS_SHEET}" of this spreadsheet`,
      answer: (k) => answers.get(k),
      record(paid) {
        const sheet = answersSheet(book, true)!;
        const at = String(scope.now());
        const rows = paid.map(({ key: k, answer }) => [key, k, at, ...jsonCells(answer)]);
        const width = rows.reduce((n, r) => Math.max(n, r.length), HEADER.length);
        writeTextRows(sheet, sheet.getLastRow() + 1, rows, width);
        for (const { key: k, answer } of paid) answers.set(k, answer);
      },
      finish(keepProgress) {
        if (keepProgress) return;
        // Every answer is in the rows: this table's progress goes (other tables' stays).
        const sheet = answersSheet(book, false);
        if (!sheet) return;
        const rows = readRows(sheet);
        const keep = rows.filter((r) => r[0] !== key);
        if (keep.length === rows.length) return;
        const width = sheet.getLastColumn();
        sheet.getRange(2, 1, rows.length, width).setValues(rows.map(() => Array.from({ length: width }, () => '')));
        if (keep.length)
          sheet.getRange(2, 1, keep.length, width).setValues(keep.map((r) => Array.from({ length: width }, (_, i) => r[i] ?? '')));
      },
    });
  };
}
