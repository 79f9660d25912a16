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

export const ANSWERS_SHEET = 'company_data_paid_answers';
const HEADER = ['scope', 'key', 'paid_at', 'answer'];
/** Characters of JSON per cell (Google: 50,000 a cell). */
const CHUNK = 45_000;
const DAY_MS = 86_400_000;

const scopeKey = (s: AnswerScope) => JSON.stringify([s.tableId, s.service, s.limit, s.lang ?? null]);

function answersSheet(book: GoogleAppsScript.Spreadsheet, make: boolean): GoogleAppsScript.Sheet | undefined {
  const found = book.getSheetByName(ANSWERS_SHEET);
  if (found || !make) return found ?? undefined;
  let sheet: GoogleAppsScript.Sheet;
  try {
    sheet = book.insertSheet(ANSWERS_SHEET);
  } catch (e) {
    const again = book.getSheetByName(ANSWERS_SHEET);
    if (again) return again;
    throw e;
  }
  const head = sheet.getRange(1, 1, 1, HEADER.length);
  head.setNumberFormat('@');
  head.setValues([HEADER]);
  sheet.hideSheet();
  return sheet;
}

/** The rows of the hidden sheet (without the header), as text. */
function readRows(sheet: GoogleAppsScript.Sheet): string[][] {
  const last = sheet.getLastRow();
  if (last < 2) return [];
  return sheet
    .getRange(2, 1, last - 1, sheet.getLastColumn())
    .getValues()
    .map((r) => r.map((v) => (v === null || v === undefined ? '' : String(v))));
}

/** The store of one run over the open spreadsheet's hidden sheet. */
export function sheetAnswerStore(book: GoogleAppsScript.Spreadsheet): OpenAnswerStore {
  return (scope: AnswerScope): PaidAnswerStore => {
    const key = scopeKey(scope);
    const maxAgeMs = (scope.maxAgeDays ?? 30) * DAY_MS;
    const answers = new Map<string, LookupResult>();
    const existing = answersSheet(book, false);
    for (const r of existing ? readRows(existing) : []) {
      if (r[0] !== key || scope.now() - Number(r[2]) > maxAgeMs) continue;
      try {
        answers.set(r[1]!, JSON.parse(r.slice(3).join('')) as LookupResult);
      } catch {
        // A damaged row: that answer is paid again rather than written wrong.
      }
    }
    return progressStore({
      location: `the hidden sheet "${ANSWERS_SHEET}" of this spreadsheet`,
      answer: (k) => answers.get(k),
      record(paid) {
        const sheet = answersSheet(book, true)!;
        const at = String(scope.now());
        const rows = paid.map(({ key: k, answer }) => {
          const json = JSON.stringify(answer);
          const parts: string[] = [];
          for (let i = 0; i < json.length; i += CHUNK) parts.push(json.slice(i, i + CHUNK));
          return [key, k, at, ...parts];
        });
        const width = rows.reduce((n, r) => Math.max(n, r.length), HEADER.length);
        const start = sheet.getLastRow() + 1;
        if (width > sheet.getMaxColumns()) sheet.insertColumnsAfter(sheet.getMaxColumns(), width - sheet.getMaxColumns());
        if (start - 1 + rows.length > sheet.getMaxRows())
          sheet.insertRowsAfter(sheet.getMaxRows(), start - 1 + rows.length - sheet.getMaxRows());
        const range = sheet.getRange(start, 1, rows.length, width);
        range.setNumberFormat('@');
        range.setValues(rows.map((r) => Array.from({ length: width }, (_, i) => r[i] ?? '')));
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
