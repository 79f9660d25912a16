import { closeSync, createReadStream, existsSync, openSync, readFileSync, readSync } from 'node:fs';
import { resolve } from 'node:path';
import { Readable } from 'node:stream';
import { parse as parseStream } from 'csv-parse';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { writeFileAtomic, writeStreamAtomic } from '../files/atomic-file';
import { contentKind, notAFile } from './file-kind';
import { assertUnchanged, fileStamp } from './file-stamp';
import {
  decodeAll,
  decodingStream,
  describeChar,
  encodeBom,
  encodeText,
  encodingLabel,
  TextDecodeError,
  unencodableChar,
  utf8OrBaltic,
  type TextEncodingName,
} from './text-encoding';
import { applyWrites, CellValueError, snapshotOf, type CellWrite, type RowEditList, type StreamedTable, type TableSnapshot } from './table';

export interface CsvTableOptions {
  /** Where to save; defaults to the source (enrich in place). */
  out?: string;
  /** Field separator; detected from the header line when not given (',', ';' or tab). */
  delimiter?: string;
  /** escape (default): a written value that a spreadsheet app would run as a formula gets a leading apostrophe; keep: written as it is. */
  formulas?: CsvFormulas;
}

export const csvFormulaModes = ['escape', 'keep'] as const;
export type CsvFormulas = (typeof csvFormulaModes)[number];

/**
 * Excel and LibreOffice run a CSV cell that starts with = + - @ (or tab, CR before one) as a formula:
 * a company name "=HYPERLINK(...)" from the service would become a live link. A leading apostrophe
 * makes it text (OWASP "CSV injection"). A plain number such as -5 or +372 is left alone: it runs as
 * nothing but itself, and an apostrophe would turn a negative revenue into text.
 */
export function inertCsvValue(value: string): string {
  if (!/^[=+\-@\t\r]/.test(value)) return value;
  if (/^[+-]?\d+(?:[.,]\d+)?$/.test(value)) return value;
  return `'${value}`;
}

/** The text of csv-parse's error codes, so a message never quotes the parser (or the bytes it choked on). */
function csvProblem(e: unknown): string {
  const code = String((e as { code?: string }).code ?? '');
  const line = (e as { lines?: number }).lines;
  const at = line ? ` on line ${line}` : '';
  if (/QUOTE/.test(code)) return `a quoted value is not closed, or has text after its closing quote${at}`;
  if (/RECORD_INCONSISTENT|COLUMNS/.test(code)) return `a row has a different number of columns${at}`;
  if (/MAX_RECORD_SIZE/.test(code)) return `a value is too long${at}`;
  return `it cannot be read as CSV${at}`;
}

function detectDelimiter(text: string): string {
  const firstLine = text.slice(0, text.search(/\r?\n|$/));
  const counts = [',', ';', '\t'].map((d) => [d, firstLine.split(d).length - 1] as const);
  counts.sort((a, b) => b[1] - a[1]);
  return counts[0]![1] > 0 ? counts[0]![0] : ',';
}

const CSV_TEXT = 'a CSV text file (values separated by commas, semicolons or tabs)';

/**
 * For a file whose first 64 KiB are ASCII (the same in UTF-8 and Windows-1257): the encoding the first
 * byte beyond ASCII further on tells, read 64 KiB at a time by `readAt` (empty at the end).
 */
function encodingFurtherOn(readAt: (pos: number) => Uint8Array, from: number): ReturnType<typeof utf8OrBaltic> {
  for (let pos = from; ; ) {
    const chunk = readAt(pos);
    if (chunk.length === 0) return { encoding: 'utf-8' };
    const i = chunk.findIndex((b) => b >= 0x80);
    if (i < 0) {
      pos += chunk.length;
      continue;
    }
    const window = readAt(pos + i);
    return utf8OrBaltic(window, window.length < 65536);
  }
}

/** One row's changes for CsvTable.rewrite: [column, value] pairs. */
export type RowEdits = RowEditList;

/**
 * CSV file as a table, read and saved keeping the encoding (UTF-8, UTF-16 or Windows-1257; see
 * text-encoding.ts), separator, byte-order mark and line ending it was read with. Two ways: read/write/flush hold the whole file (the events sheet, small tables), and
 * rows/rewrite stream it row by row (enrich: a file of 1,000,000 rows never held whole).
 */
export class CsvTable implements StreamedTable {
  readonly label: string;
  readonly id: string;
  readonly file: string;
  private grid: string[][] = [];
  private loaded = false;
  private dirty = false;
  private delimiter = ',';
  private bom = false;
  private encoding: TextEncodingName = 'utf-8';
  private eol = '\n';
  readonly calls = { read: 0, save: 0 };
  /** Written values are made inert (cells read from the file are kept as they were). */
  private readonly inert: boolean;
  /** Inode, size and modification time when the file was first streamed: a rewrite refuses a file changed since. */
  private stamp: string | undefined;

  constructor(
    private path: string,
    private readonly options: CsvTableOptions = {},
  ) {
    this.label = path;
    this.id = `file:${resolve(options.out ?? path)}`;
    this.file = options.out ?? path;
    this.inert = (options.formulas ?? 'escape') === 'escape';
  }

  private load(): void {
    if (this.loaded) return;
    const bytes = existsSync(this.path) ? readFileSync(this.path) : Buffer.alloc(0);
    const body = this.takeFormat(bytes, true, (pos) => bytes.subarray(pos, pos + 65536));
    try {
      this.grid =
        body.trim() === ''
          ? []
          : (parse(body, { delimiter: this.delimiter, relax_column_count: true, skip_empty_lines: false }) as string[][]);
    } catch (e) {
      throw new Error(`file: ${this.path} is not valid CSV: ${csvProblem(e)}`);
    }
    this.loaded = true;
  }

  /** Separator, BOM and line ending from the first 64 KiB (what load() finds from the whole text). */
  private sniff(): void {
    if (!existsSync(this.path)) {
      this.takeFormat(Buffer.alloc(0), true, () => Buffer.alloc(0));
      return;
    }
    const fd = openSync(this.path, 'r');
    try {
      const readAt = (pos: number) => {
        const buf = Buffer.alloc(65536);
        return buf.subarray(0, readSync(fd, buf, 0, buf.length, pos));
      };
      const head = readAt(0);
      this.takeFormat(head, head.length < 65536, readAt);
    } finally {
      closeSync(fd);
    }
  }

  /**
   * Refuses what is not CSV text; takes encoding, separator, BOM and line ending from `bytes` (the first
   * bytes of the file, or all of them when `complete`); returns their text after the BOM. An ASCII start
   * is read on (`readAt`) to the first byte that tells UTF-8 from Windows-1257.
   */
  private takeFormat(bytes: Buffer, complete: boolean, readAt: (pos: number) => Uint8Array): string {
    const kind = contentKind(bytes, complete);
    if (kind.kind !== 'text' && kind.kind !== 'empty') throw notAFile(this.path, CSV_TEXT, kind.text);
    this.encoding = kind.found?.encoding ?? 'utf-8';
    this.bom = kind.found?.bom ?? false;
    if (kind.found?.ascii && bytes.length >= 65536) {
      const later = encodingFurtherOn(readAt, 65536);
      if ('binary' in later) throw notAFile(this.path, CSV_TEXT, 'binary data');
      if ('undecodable' in later) throw notAFile(this.path, CSV_TEXT, later.undecodable);
      this.encoding = later.encoding;
    }
    let body: string;
    try {
      body = complete ? decodeAll(bytes, this.encoding) : new TextDecoder(this.encoding).decode(bytes, { stream: true });
    } catch (e) {
      throw this.decodeFailure(e);
    }
    this.delimiter = this.options.delimiter ?? detectDelimiter(body);
    this.eol = /\r\n/.test(body.slice(0, 4096)) ? '\r\n' : '\n';
    return body;
  }

  private decodeFailure(e: unknown): Error {
    const why = e instanceof TextDecodeError ? e.message : `it is not valid ${encodingLabel[this.encoding]} text`;
    return new Error(`file: ${this.path} cannot be read: ${why}; save it as "CSV UTF-8" and run again`);
  }

  /** Refuses a value the file's encoding cannot hold, before anything is written: never replaced silently. */
  private checkEncodable(value: string, header: readonly string[] | undefined, col: number, row: number): void {
    const ch = unencodableChar(value, this.encoding);
    if (ch === undefined) return;
    const name = header?.[col] ? `"${header[col]}"` : `${col + 1}`;
    throw new CellValueError(
      `file: ${this.path} is ${encodingLabel[this.encoding]} text, which cannot hold ${describeChar(ch)} ` +
        `of the value for column ${name} on row ${row + 1}; the file was not changed (answers already paid for are kept: ` +
        `save it as "CSV UTF-8" and run again)`,
    );
  }

  private checkUnchanged(): void {
    assertUnchanged(this.path, this.stamp);
  }

  /**
   * The rows one by one, header first, straight from the file: memory does not grow with it. Every
   * pass must see the same file: one changed since the first pass is refused.
   */
  async *rows(): AsyncGenerator<string[]> {
    this.calls.read++;
    if (this.stamp === undefined) {
      this.sniff();
      this.stamp = fileStamp(this.path);
    } else this.checkUnchanged();
    if (!existsSync(this.path)) return;
    const input = createReadStream(this.path);
    const decoder = decodingStream(this.encoding);
    const parser = parseStream({ delimiter: this.delimiter, relax_column_count: true, skip_empty_lines: false, bom: true });
    input.on('error', (e) => parser.destroy(e));
    decoder.on('error', (e) => parser.destroy(e));
    input.pipe(decoder).pipe(parser);
    try {
      for await (const record of parser) yield record as string[];
    } catch (e) {
      if ((e as NodeJS.ErrnoException).syscall) throw e;
      if (e instanceof TextDecodeError) throw this.decodeFailure(e);
      throw new Error(`file: ${this.path} is not valid CSV: ${csvProblem(e)}`);
    } finally {
      input.destroy();
      decoder.destroy();
    }
  }

  /**
   * Writes the file again row by row (header first), each row with its edits applied and padded to
   * `width`, to a temp file renamed over the target (atomic). `edits` may return a promise: reading
   * waits for it (backpressure), so rows can be written while what they need is still arriving. Refused, leaving the target untouched,
   * when the source changed on disk since rows() first read it.
   */
  async rewrite(
    edits: (row: string[], index: number) => RowEdits | undefined | Promise<RowEdits | undefined>,
    width: number,
  ): Promise<void> {
    // The format is the source's: sniffed here when rows() has not read it yet.
    if (this.stamp === undefined) {
      this.sniff();
      this.stamp = fileStamp(this.path);
    }
    const opts = { delimiter: this.delimiter, record_delimiter: this.eol === '\r\n' ? ('windows' as const) : ('unix' as const) };
    const encoding = this.encoding;
    const text = async function* (this: CsvTable): AsyncGenerator<Buffer> {
      if (this.bom) yield encodeBom(encoding);
      let batch: string[][] = [];
      let index = 0;
      let header: string[] | undefined;
      for await (const row of this.rows()) {
        const at = index++;
        let e = edits(row, at);
        // A row whose answer is still on its way waits for it (enrich writes while the lookups run).
        if (e instanceof Promise) e = await e;
        for (const [col, value] of e ?? []) {
          while (row.length <= col) row.push('');
          this.checkEncodable(value, at === 0 ? undefined : header, col, at);
          row[col] = this.inert ? inertCsvValue(value) : value;
        }
        if (at === 0) header = row;
        while (row.length < width) row.push('');
        batch.push(row);
        // In slices of 2,000 rows: the garbage stays small and short-lived however large the file.
        if (batch.length === 2000) {
          yield encodeText(stringify(batch, opts), encoding);
          batch = [];
        }
      }
      if (batch.length) yield encodeText(stringify(batch, opts), encoding);
    };
    const target = this.options.out ?? this.path;
    await writeStreamAtomic(target, Readable.from(text.call(this)), () => this.checkUnchanged());
    this.calls.save++;
    // Later reads see what was written.
    this.path = target;
    this.stamp = undefined;
    this.loaded = false;
    this.grid = [];
  }

  async read(): Promise<TableSnapshot> {
    this.calls.read++;
    this.load();
    return snapshotOf(this.grid);
  }

  async write(cells: readonly CellWrite[]): Promise<void> {
    if (!cells.length) return;
    this.load();
    for (const c of cells) this.checkEncodable(c.value, c.row === 0 ? undefined : this.grid[0], c.col, c.row);
    applyWrites(this.grid, this.inert ? cells.map((c) => ({ ...c, value: inertCsvValue(c.value) })) : cells);
    this.dirty = true;
  }

  async append(rows: readonly string[][]): Promise<void> {
    if (!rows.length) return;
    this.load();
    const end = snapshotOf(this.grid).rows.length + 1;
    rows.forEach((r, i) => r.forEach((v, col) => this.checkEncodable(v, this.grid[0], col, end + i)));
    this.grid.length = Math.min(this.grid.length, end);
    while (this.grid.length < end) this.grid.push([]);
    for (const r of rows) this.grid.push(this.inert ? r.map(inertCsvValue) : [...r]);
    this.dirty = true;
    await this.flush();
  }

  async flush(): Promise<void> {
    if (!this.dirty) return;
    let width = 0;
    for (const r of this.grid) width = Math.max(width, r.length);
    const opts = { delimiter: this.delimiter, record_delimiter: this.eol === '\r\n' ? ('windows' as const) : ('unix' as const) };
    const encoding = this.encoding;
    writeFileAtomic(this.options.out ?? this.path, (write) => {
      if (this.bom) write(encodeBom(encoding));
      // In slices of 2,000 rows: the garbage stays small and short-lived however large the file.
      for (let i = 0; i < this.grid.length; i += 2000) {
        const rows = this.grid.slice(i, i + 2000).map((r) => (r.length < width ? [...r, ...Array<string>(width - r.length).fill('')] : r));
        write(encodeText(stringify(rows, opts), encoding));
      }
    });
    this.calls.save++;
    this.dirty = false;
  }
}
