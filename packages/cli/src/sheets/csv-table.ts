import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { writeFileAtomic } from './atomic-file';
import { applyWrites, snapshotOf, type CellWrite, type Table, type TableSnapshot } from './table';

export interface CsvTableOptions {
  /** Where to save; defaults to the source (enrich in place). */
  out?: string;
  /** Field separator; detected from the header line when not given (',', ';' or tab). */
  delimiter?: string;
}

function detectDelimiter(text: string): string {
  const firstLine = text.slice(0, text.search(/\r?\n|$/));
  const counts = [',', ';', '\t'].map((d) => [d, firstLine.split(d).length - 1] as const);
  counts.sort((a, b) => b[1] - a[1]);
  return counts[0]![1] > 0 ? counts[0]![0] : ',';
}

/**
 * CSV file as a table. The whole file is held in memory (100,000 rows is a few MB) and saved
 * atomically on flush, keeping the separator, byte-order mark and line ending it was read with.
 */
export class CsvTable implements Table {
  readonly label: string;
  readonly id: string;
  private grid: string[][] = [];
  private loaded = false;
  private dirty = false;
  private delimiter = ',';
  private bom = false;
  private eol = '\n';
  readonly calls = { read: 0, save: 0 };

  constructor(
    private readonly path: string,
    private readonly options: CsvTableOptions = {},
  ) {
    this.label = path;
    this.id = `file:${resolve(options.out ?? path)}`;
  }

  private load(): void {
    if (this.loaded) return;
    const text = existsSync(this.path) ? readFileSync(this.path, 'utf8') : '';
    this.bom = text.charCodeAt(0) === 0xfeff;
    const body = this.bom ? text.slice(1) : text;
    this.delimiter = this.options.delimiter ?? detectDelimiter(body);
    this.eol = /\r\n/.test(body.slice(0, 4096)) ? '\r\n' : '\n';
    this.grid = body.trim() === '' ? [] : (parse(body, { delimiter: this.delimiter, relax_column_count: true, skip_empty_lines: false }) as string[][]);
    this.loaded = true;
  }

  async read(): Promise<TableSnapshot> {
    this.calls.read++;
    this.load();
    return snapshotOf(this.grid);
  }

  async write(cells: readonly CellWrite[]): Promise<void> {
    if (!cells.length) return;
    this.load();
    applyWrites(this.grid, cells);
    this.dirty = true;
  }

  async append(rows: readonly string[][]): Promise<void> {
    if (!rows.length) return;
    this.load();
    const end = snapshotOf(this.grid).rows.length + 1;
    this.grid.length = Math.min(this.grid.length, end);
    while (this.grid.length < end) this.grid.push([]);
    this.grid.push(...rows.map((r) => [...r]));
    this.dirty = true;
    await this.flush();
  }

  async flush(): Promise<void> {
    if (!this.dirty) return;
    let width = 0;
    for (const r of this.grid) width = Math.max(width, r.length);
    const opts = { delimiter: this.delimiter, record_delimiter: this.eol === '\r\n' ? ('windows' as const) : ('unix' as const) };
    writeFileAtomic(this.options.out ?? this.path, (write) => {
      if (this.bom) write('\ufeff');
      // In slices of 2,000 rows: the garbage stays small and short-lived however large the file.
      for (let i = 0; i < this.grid.length; i += 2000) {
        const rows = this.grid.slice(i, i + 2000).map((r) => (r.length < width ? [...r, ...Array<string>(width - r.length).fill('')] : r));
        write(stringify(rows, opts));
      }
    });
    this.calls.save++;
    this.dirty = false;
  }
}
