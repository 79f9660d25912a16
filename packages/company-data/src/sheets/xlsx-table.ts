import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { writeStreamAtomic } from '../files/atomic-file';
import { contentKind, notAFile } from './file-kind';
import { assertUnchanged, fileStamp } from './file-stamp';
import { applyWrites, capCell, snapshotOf, type CellWrite, type Table, type TableSnapshot } from './table';
import { MAX_COLUMNS, MAX_XLSX_CELL_CHARS, openWorkbook, patchedWorkbook, readGrid, sheetPart } from './xlsx/package';

export interface XlsxTableOptions {
  /** Worksheet name; the first sheet when not given. */
  sheet?: string;
  out?: string;
}

/**
 * XLSX workbook as a table. Read and saved through the one worksheet's XML, row by row (see
 * xlsx/package.ts): everything else in the file is kept byte for byte, and memory stays near the
 * grid of text itself (a 100,000-row workbook loaded into exceljs takes over 800 MB). Written cells
 * are inline strings, so "=1+1" or "00123" stay text; a cell's style is kept. Each save writes the
 * cells changed since the last one into a new file that replaces the old atomically. exceljs only
 * creates a workbook that does not exist yet.
 */
export class XlsxTable implements Table {
  readonly label: string;
  readonly id: string;
  readonly file: string;
  /** Each save rewrites the whole worksheet (a 100,000-row one takes seconds); the resume journal, not the file, keeps paid answers safe meanwhile. */
  readonly saveEveryMs = 10_000;
  readonly maxCellChars = MAX_XLSX_CELL_CHARS;
  private grid: string[][] | undefined;
  private width = 0;
  /** Columns written since the last save, by 0-based row: the values stay in the grid alone. */
  private readonly changed = new Map<number, number[]>();
  /** Where the current content lives: the source until the first save, then the output. */
  private current: string;
  /** The current file's stamp when it was read or last saved: a save refuses a file changed since. */
  private stamp: string | undefined;
  readonly calls = { read: 0, save: 0 };

  constructor(
    private readonly path: string,
    private readonly options: XlsxTableOptions = {},
  ) {
    this.label = options.sheet ? `${path} [${options.sheet}]` : path;
    this.id = `file:${resolve(options.out ?? path)}#${options.sheet ?? ''}`;
    this.current = path;
    this.file = options.out ?? path;
  }

  private async load(): Promise<string[][]> {
    if (this.grid) return this.grid;
    if (existsSync(this.path)) {
      this.stamp = fileStamp(this.path);
      this.grid = await readWorkbookGrid(readFileSync(this.path), this.path, this.options.sheet);
    } else this.grid = [];
    for (const r of this.grid) this.width = Math.max(this.width, r.length);
    return this.grid;
  }

  async read(): Promise<TableSnapshot> {
    this.calls.read++;
    return snapshotOf(await this.load());
  }

  async write(cells: readonly CellWrite[]): Promise<void> {
    if (!cells.length) return;
    // Excel holds 32,767 characters in a cell and calls a file with a longer one damaged: cut, with a marker.
    applyWrites(
      await this.load(),
      cells.map((c) => (c.value.length > MAX_XLSX_CELL_CHARS ? { ...c, value: capCell(c.value, MAX_XLSX_CELL_CHARS) } : c)),
    );
    for (const c of cells) {
      if (c.col >= MAX_COLUMNS) throw new Error(`column ${c.col + 1} is past the last column Excel has (${MAX_COLUMNS})`);
      const cols = this.changed.get(c.row);
      if (!cols) this.changed.set(c.row, [c.col]);
      else if (!cols.includes(c.col)) cols.push(c.col);
      this.width = Math.max(this.width, c.col + 1);
    }
  }

  async append(rows: readonly string[][]): Promise<void> {
    if (!rows.length) return;
    const start = (await this.read()).rows.length + 1;
    await this.write(rows.flatMap((r, i) => r.map((value, col) => ({ row: start + i, col, value }))));
    await this.flush();
  }

  async flush(): Promise<void> {
    if (!this.changed.size) return;
    const grid = await this.load();
    // Each save patches the file on disk with the cells changed: a file someone changed since is not written over.
    assertUnchanged(this.current, this.stamp);
    const source = existsSync(this.current) ? readFileSync(this.current) : await emptyWorkbook(this.options.sheet ?? 'Sheet1');
    const pkg = await openWorkbook(source);
    const part = sheetPart(pkg, this.options.sheet, this.current);
    const target = this.options.out ?? this.path;
    const changedRows = Uint32Array.from(this.changed.keys()).sort();
    const cellsOf = (row: number) => new Map((this.changed.get(row) ?? []).map((col) => [col, grid[row]?.[col] ?? '']));
    const current = this.current;
    await writeStreamAtomic(target, await patchedWorkbook(pkg, part, { changedRows, cellsOf, rows: grid.length, cols: this.width }), () =>
      assertUnchanged(current, this.stamp),
    );
    this.current = target;
    this.stamp = fileStamp(target);
    this.changed.clear();
    this.calls.save++;
  }
}

const XLSX = 'an XLSX workbook (Excel 2007 or later)';

/** The grid of one sheet; a file that is no workbook is named with what it holds instead. */
async function readWorkbookGrid(bytes: Buffer, path: string, sheet: string | undefined): Promise<string[][]> {
  const found = contentKind(bytes);
  if (found.kind !== 'zip') throw notAFile(path, XLSX, found.text);
  let pkg: Awaited<ReturnType<typeof openWorkbook>>;
  try {
    pkg = await openWorkbook(bytes);
  } catch (e) {
    throw notAFile(
      path,
      XLSX,
      /no workbook part/.test((e as Error).message) ? 'a ZIP archive with no workbook in it' : 'a damaged ZIP archive',
    );
  }
  const part = sheetPart(pkg, sheet, path); // its own errors name the missing sheet
  try {
    return await readGrid(pkg, part);
  } catch {
    throw notAFile(path, XLSX, 'a ZIP archive whose worksheet cannot be read');
  }
}

async function emptyWorkbook(sheet: string): Promise<Uint8Array> {
  const { default: Excel } = await import('exceljs');
  const wb = new Excel.Workbook();
  wb.addWorksheet(sheet);
  return new Uint8Array((await wb.xlsx.writeBuffer()) as ArrayBuffer);
}
