import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import ExcelJS from 'exceljs';
import { writeFileAtomic } from './atomic-file';
import { snapshotOf, type CellWrite, type Table, type TableSnapshot } from './table';

export interface XlsxTableOptions {
  /** Worksheet name; the first sheet when not given. */
  sheet?: string;
  out?: string;
}

/** Unformatted text of a cell: numbers as plain digits, formulas as their cached result, dates as YYYY-MM-DD. */
export function xlsxCellText(value: ExcelJS.CellValue): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value instanceof Date) {
    const iso = value.toISOString();
    return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso;
  }
  if ('richText' in value) return value.richText.map((r) => r.text).join('');
  if ('formula' in value || 'sharedFormula' in value) return xlsxCellText((value as { result?: ExcelJS.CellValue }).result ?? null);
  if ('text' in value) return String((value as { text: unknown }).text);
  if ('error' in value) return String(value.error);
  return '';
}

/**
 * XLSX workbook as a table (exceljs). Written cells are plain strings, so "=1+1" or "00123" stay text.
 * Saved atomically on flush; other sheets, styles and formulas of the workbook are kept.
 */
export class XlsxTable implements Table {
  readonly label: string;
  readonly id: string;
  private wb: ExcelJS.Workbook | undefined;
  private ws: ExcelJS.Worksheet | undefined;
  private dirty = false;
  readonly calls = { read: 0, save: 0 };

  constructor(
    private readonly path: string,
    private readonly options: XlsxTableOptions = {},
  ) {
    this.label = options.sheet ? `${path} [${options.sheet}]` : path;
    this.id = `file:${resolve(options.out ?? path)}#${options.sheet ?? ''}`;
  }

  private async sheet(): Promise<ExcelJS.Worksheet> {
    if (this.ws) return this.ws;
    const wb = new ExcelJS.Workbook();
    if (existsSync(this.path)) await wb.xlsx.readFile(this.path);
    let ws = this.options.sheet ? wb.getWorksheet(this.options.sheet) : wb.worksheets[0];
    if (!ws) {
      if (this.options.sheet && wb.worksheets.length) throw new Error(`sheet: no worksheet named "${this.options.sheet}" in ${this.path}`);
      ws = wb.addWorksheet(this.options.sheet ?? 'Sheet1');
    }
    this.wb = wb;
    this.ws = ws;
    return ws;
  }

  async read(): Promise<TableSnapshot> {
    this.calls.read++;
    const ws = await this.sheet();
    const grid: string[][] = [];
    ws.eachRow({ includeEmpty: true }, (row, rowNumber) => {
      const cells: string[] = [];
      row.eachCell({ includeEmpty: true }, (cell, col) => {
        cells[col - 1] = xlsxCellText(cell.value);
      });
      grid[rowNumber - 1] = Array.from(cells, (v) => v ?? '');
    });
    return snapshotOf(Array.from(grid, (r) => r ?? []));
  }

  async write(cells: readonly CellWrite[]): Promise<void> {
    if (!cells.length) return;
    const ws = await this.sheet();
    for (const c of cells) ws.getCell(c.row + 1, c.col + 1).value = c.value;
    this.dirty = true;
  }

  async append(rows: readonly string[][]): Promise<void> {
    if (!rows.length) return;
    const start = (await this.read()).rows.length + 1;
    await this.write(rows.flatMap((r, i) => r.map((value, col) => ({ row: start + i, col, value }))));
    await this.flush();
  }

  async flush(): Promise<void> {
    if (!this.dirty || !this.wb) return;
    const buf = await this.wb.xlsx.writeBuffer();
    writeFileAtomic(this.options.out ?? this.path, new Uint8Array(buf as ArrayBuffer));
    this.calls.save++;
    this.dirty = false;
  }
}
