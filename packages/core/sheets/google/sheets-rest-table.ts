import {
  capCell,
  columnIndex,
  columnLetters,
  MAX_CELL_CHARS,
  type CellWrite,
  type ColumnsView,
  type Table,
  type TableSnapshot,
} from '../table/table';
import { jsonBytes, packSpans, PendingCells, type Span } from '../table/pending-cells';
import {
  cellLimitCheck,
  cellProtected,
  protectionCheck,
  sheetFound,
  writeAccessOk,
  writeAccessRefused,
  writeAccessUnchecked,
  type GridRange,
  type ProtectedRange,
  type WriteCheck,
  type WritePlan,
} from '../checks/preflight';
import { a1Sheet, cellText } from './a1';
import type { SheetsRestTableOptions } from './options';
import { SheetsRest } from './sheets-rest';
import { SheetsRestLease } from './sheets-rest-lease';
import { say, setting, SheetsError } from '../errors';
import { isLeaseSheet } from '../lease/port';

/** Google's recommended maximum request size ("2 MB"): every write is split to stay under it. */
export const MAX_REQUEST_BYTES = 2_000_000;

/** The parts of Google's ValueRange read here. */
interface ValueRange {
  range?: string;
  values?: unknown[][];
}

/** The parts of Google's Spreadsheet the metadata read asks for (its fields mask). */
interface SpreadsheetMeta {
  sheets?: {
    properties?: { sheetId?: number; title?: string; gridProperties?: { rowCount?: number; columnCount?: number } };
    protectedRanges?: ProtectedRange[];
  }[];
  namedRanges?: { namedRangeId?: string; range?: GridRange }[];
}

/**
 * One sheet of a Google spreadsheet as a table.
 * Reads with UNFORMATTED_VALUE; writes with RAW, so "=1+1", "+372..." and "00123" are stored as typed.
 * Writes queue until flush and go out as values.batchUpdate requests of under 2 MB each, in row order
 * (plus one grid growth when needed). A part refused after its retries leaves it and the parts after it
 * pending; the parts before it are written.
 */
export class SheetsRestTable implements Table {
  readonly label: string;
  readonly id: string;
  /** Each save is a batchUpdate, and Google allows 60 writes a minute. */
  readonly saveEveryMs = 10_000;
  readonly maxCellChars = MAX_CELL_CHARS;
  /** Requests made (read, write) and retried. */
  readonly calls: SheetsRest['calls'];
  private readonly rest: SheetsRest;
  private title: string | undefined;
  private sheetId: number | undefined;
  private grid: { rows: number; cols: number } | undefined;
  /** From the last metadata read: every sheet's grid (the cell limit counts them all) and this sheet's protection. */
  private meta:
    | { sheets: { title: string; rows: number; cols: number }[]; protectedRanges: ProtectedRange[]; named: Map<string, GridRange> }
    | undefined;
  private pending = new PendingCells();
  /** The service account's client_email when a key is used: the address to share the spreadsheet with. */
  private readonly account: string | undefined;

  constructor(private readonly options: SheetsRestTableOptions) {
    this.rest = new SheetsRest(options);
    this.calls = this.rest.calls;
    this.account = options.tokens?.account;
    this.title = options.sheet;
    this.label = `spreadsheet ${options.spreadsheetId}${options.sheet ? ` sheet "${options.sheet}"` : ''}`;
    this.id = `gsheet:${options.spreadsheetId}#${options.sheet ?? ''}`;
  }

  private async loadMetadata(): Promise<void> {
    const data = await this.rest.send<SpreadsheetMeta>({
      kind: 'read',
      method: 'GET',
      path: '',
      query: [
        [
          'fields',
          'sheets(properties(sheetId,title,gridProperties(rowCount,columnCount)),' +
            'protectedRanges(protectedRangeId,range,namedRangeId,description,warningOnly,requestingUserCanEdit,unprotectedRanges)),' +
            'namedRanges(namedRangeId,range)',
        ],
      ],
    });
    const sheets = data.sheets ?? [];
    const s = this.title === undefined ? sheets[0] : sheets.find((x) => x.properties?.title === this.title);
    if (!s?.properties) {
      // The sheets a person works with: not the hidden lease sheets of runs (lease/port.ts).
      const titles = sheets.filter((x) => !isLeaseSheet(x.properties?.title ?? '')).map((x) => `"${x.properties?.title ?? ''}"`);
      throw new SheetsError({
        code: 'no_such_sheet',
        field: 'sheet',
        rule:
          `no sheet named "${this.title ?? '(first)'}" in spreadsheet ${this.options.spreadsheetId}; ` +
          (titles.length ? `its sheets are ${titles.join(', ')}` : 'it has no sheets'),
        hint: titles.length ? say`Set ${setting('sheet')} to one of them.` : 'Add a sheet to the spreadsheet, or name another spreadsheet.',
      });
    }
    this.title = s.properties.title ?? undefined;
    this.sheetId = s.properties.sheetId ?? 0;
    this.grid = { rows: s.properties.gridProperties?.rowCount ?? 0, cols: s.properties.gridProperties?.columnCount ?? 0 };
    this.meta = {
      sheets: sheets.map((x) => ({
        title: x.properties?.title ?? '',
        rows: x.properties?.gridProperties?.rowCount ?? 0,
        cols: x.properties?.gridProperties?.columnCount ?? 0,
      })),
      protectedRanges: s.protectedRanges ?? [],
      named: new Map((data.namedRanges ?? []).flatMap((n) => (n.namedRangeId && n.range ? [[n.namedRangeId, n.range]] : []))),
    };
  }

  /**
   * The checks before paying (docs/decisions/sheets-engine.md, "Checks before paying"): fresh metadata (sheet,
   * every sheet's grid, protected ranges as they stand for this account), then a write that changes
   * nothing as the probe of write access, which Sheets offers no call to ask about: one cell the run
   * writes anyway, given the text it holds now (a header cell the run creates is empty until then).
   * A real run whose cells lie beyond the grid grows it first (it must anyway); a dry run never does.
   */
  async checkWrites(plan: WritePlan, opts: { dryRun: boolean }): Promise<WriteCheck[]> {
    await this.loadMetadata();
    const meta = this.meta!;
    const grid = this.grid!;
    const title = this.title!;
    const sheetId = this.sheetId!;
    const lastRow = plan.rows.reduce((n, [, end]) => Math.max(n, end), 1);
    const checks: WriteCheck[] = [
      sheetFound(
        title,
        meta.sheets.map((s) => s.title).filter((t) => !isLeaseSheet(t)),
      ),
      cellLimitCheck(meta.sheets, title, { rows: lastRow, cols: plan.width }),
      protectionCheck(plan, meta.protectedRanges, sheetId, meta.named, this.account, plan.width > grid.cols || lastRow > grid.rows),
    ];
    const free = (c: { col: number }) => c.col < this.grid!.cols && !cellProtected(0, c.col, meta.protectedRanges, sheetId, meta.named);
    let cell = plan.probe.find(free);
    try {
      if (!cell && !opts.dryRun && checks.every((c) => c.ok) && plan.width > grid.cols) {
        await this.ensureGrid(grid.rows, plan.width);
        cell = plan.probe.find(free);
      }
      if (!cell) {
        checks.push(
          writeAccessUnchecked(
            opts.dryRun
              ? 'the cells this run writes are beyond the grid or protected, and a dry run changes nothing; the run checks it before paying'
              : 'the cells this run writes are protected',
          ),
        );
        return checks;
      }
      const probe = cell;
      await this.rest.send({
        kind: 'write',
        method: 'PUT',
        path: `/values/${encodeURIComponent(`${a1Sheet(title)}!${columnLetters(probe.col)}1`)}`,
        query: [['valueInputOption', 'RAW']],
        body: JSON.stringify({ values: [[probe.value]] }),
      });
      checks.push(writeAccessOk(this.account));
    } catch (err) {
      const status = err instanceof SheetsError ? err.status : undefined;
      if (status === 403 && !(err as SheetsError).protectedCell) checks.push(writeAccessRefused(this.account));
      else if (status === 401 || status === 403)
        checks.push({ check: 'write access', ok: false, text: (err as Error).message.replace(/^Google Sheets /, 'Google answered ') });
      // The table is shared with the CLI, so no n8n error types here: the node converts errors at its entry points.
      // eslint-disable-next-line @n8n/community-nodes/require-node-api-error
      else throw err;
    }
    return checks;
  }

  /** The sheet's lease is kept in a hidden sheet of the same spreadsheet (lease/port.ts), through the same quotas. */
  async leaseTarget() {
    if (this.title === undefined) await this.loadMetadata();
    return { sheets: new SheetsRestLease(this.rest, this.options.random ?? Math.random, this.account), sheetTitle: this.title! };
  }

  async read(): Promise<TableSnapshot> {
    if (this.title === undefined) await this.loadMetadata();
    const res = await this.rest
      .send<ValueRange>({
        kind: 'read',
        method: 'GET',
        path: `/values/${encodeURIComponent(a1Sheet(this.title!))}`,
        query: [
          ['valueRenderOption', 'UNFORMATTED_VALUE'],
          ['majorDimension', 'ROWS'],
        ],
      })
      .catch(async (err: unknown) => {
        // A title that is not there is a 400 "Unable to parse range": answer with the sheets that are.
        if ((err as { status?: number }).status === 400 && this.sheetId === undefined) await this.loadMetadata();
        throw err;
      });
    // A whole-sheet range answers with the grid's extent (Sheet1!A1:Z1000), which saves a metadata read.
    const m = /!?\$?([A-Z]+)\$?(\d+):\$?([A-Z]+)\$?(\d+)$/.exec(res.range ?? '');
    if (m && !this.grid) this.grid = { rows: Number(m[4]), cols: columnIndex(m[3]!) + 1 };
    const values = res.values ?? [];
    const header = (values[0] ?? []).map(cellText);
    while (header.length && header[header.length - 1] === '') header.pop();
    // Converted in place: a copy of every row would double the largest thing a run holds.
    const rows = values.slice(1) as string[][];
    for (const r of rows) {
      for (let j = 0; j < r.length; j++) if (typeof r[j] !== 'string') r[j] = cellText(r[j]);
      while (r.length < header.length) r.push('');
    }
    while (rows.length && rows[rows.length - 1]!.every((v) => v === '')) rows.pop();
    return { header, rows };
  }

  /**
   * The header row and whole columns, as they are now: one values.batchGet (one read request against
   * Google's 60 a minute, however many columns), unformatted like read().
   */
  async readColumns(cols: readonly number[]): Promise<ColumnsView> {
    if (this.title === undefined) await this.loadMetadata();
    const sheet = a1Sheet(this.title!);
    const ranges = [`${sheet}!1:1`, ...cols.map((c) => `${sheet}!${columnLetters(c)}2:${columnLetters(c)}`)];
    const res = await this.rest.send<{ valueRanges?: ValueRange[] }>({
      kind: 'read',
      method: 'GET',
      path: '/values:batchGet',
      query: [
        ...ranges.map((r) => ['ranges', r] as const),
        ['valueRenderOption', 'UNFORMATTED_VALUE'],
        // By column: one list per column, where rows would wrap every cell in a list of its own (100,000 rows, a
        // dozen columns: over a million small arrays per save).
        ['majorDimension', 'COLUMNS'],
      ],
    });
    const got = res.valueRanges ?? [];
    const header = (got[0]?.values ?? []).map((c) => cellText(c?.[0]));
    while (header.length && header[header.length - 1] === '') header.pop();
    const columns = new Map<number, string[]>();
    cols.forEach((c, i) => {
      const values = (got[i + 1]?.values?.[0] ?? []) as string[];
      // Converted in place: the parsed answer's list becomes the column.
      for (let r = 0; r < values.length; r++) values[r] = cellText(values[r]);
      columns.set(c, values);
    });
    return { header, columns };
  }

  /**
   * One spreadsheets.batchUpdate: addSheet (with a sheetId of our choosing, so the same batch can name it),
   * then the header's cells. Atomic, as every batchUpdate: the sheet is never there without its header.
   * Google answers "already exists" when a sheet of the title is there (titles compared without case,
   * also when an earlier attempt of this same request was applied and its answer lost): nothing to do.
   */
  async create(header: readonly string[]): Promise<boolean> {
    const title = this.title;
    if (title === undefined)
      throw new SheetsError({
        code: 'sheet_title_needed',
        field: 'sheet',
        rule: 'a sheet is made only with its title given',
        hint: say`Set ${setting('sheet')} to the new sheet's name.`,
      });
    const cols = Math.max(26, header.length);
    for (let attempt = 0; ; attempt++) {
      // Google's sheet ids are positive 31-bit integers; one in use is refused, and another is tried.
      const sheetId = 1 + Math.floor((this.options.random ?? Math.random)() * 0x7ffffffe);
      try {
        await this.rest.send({
          kind: 'write',
          method: 'POST',
          path: ':batchUpdate',
          body: JSON.stringify({
            requests: [
              { addSheet: { properties: { sheetId, title, gridProperties: { rowCount: 1000, columnCount: cols } } } },
              {
                updateCells: {
                  start: { sheetId, rowIndex: 0, columnIndex: 0 },
                  rows: [{ values: header.map((h) => ({ userEnteredValue: { stringValue: h } })) }],
                  fields: 'userEnteredValue',
                },
              },
            ],
          }),
          // Sent twice it answers "already exists", taken as made below.
          idempotent: true,
        });
        this.sheetId = sheetId;
        this.grid = { rows: 1000, cols };
        return true;
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        if (/already exists/i.test(message) && /\bid\b/i.test(message) && attempt < 3) continue;
        if (/already exists/i.test(message)) return false;
        // eslint-disable-next-line @n8n/community-nodes/require-node-api-error -- shared with the CLI; the node converts errors at its entry points
        throw err;
      }
    }
  }

  async write(cells: readonly CellWrite[]): Promise<void> {
    // Google refuses a cell over 50,000 characters, and the whole batch with it: capped, with a marker.
    this.pending.add(cells, (v) => capCell(v));
  }

  private async ensureGrid(rows: number, cols: number): Promise<void> {
    if (!this.grid || this.sheetId === undefined) await this.loadMetadata();
    const g = this.grid!;
    const requests: Record<string, unknown>[] = [];
    if (rows > g.rows) requests.push({ appendDimension: { sheetId: this.sheetId, dimension: 'ROWS', length: rows - g.rows } });
    if (cols > g.cols) requests.push({ appendDimension: { sheetId: this.sheetId, dimension: 'COLUMNS', length: cols - g.cols } });
    if (!requests.length) return;
    await this.rest.send({ kind: 'write', method: 'POST', path: ':batchUpdate', body: JSON.stringify({ requests }) });
    this.grid = { rows: Math.max(rows, g.rows), cols: Math.max(cols, g.cols) };
  }

  async flush(): Promise<void> {
    if (this.pending.empty) return;
    const cells = this.pending;
    this.pending = new PendingCells();
    try {
      if (this.title === undefined) await this.loadMetadata();
      const { rows, cols } = cells.extent();
      if (!this.grid || rows > this.grid.rows || cols > this.grid.cols) await this.ensureGrid(rows, cols);
      const sheet = a1Sheet(this.title!);
      const range = (s: Span) => `${sheet}!${columnLetters(s.col)}${s.row + 1}:${columnLetters(s.col + s.width - 1)}${s.row + s.height}`;
      const budget = {
        maxBytes: this.maxRequestBytes(),
        baseBytes: jsonBytes({ valueInputOption: 'RAW', data: [] }),
        // The longest range this sheet can have: the last column and a row number past Google's 10 million cells.
        rangeBytes: jsonBytes(`${sheet}!ZZZ10000000:ZZZ10000000`),
      };
      for (const { spans, bytes } of packSpans(cells, budget)) {
        // Written straight into the body (bytes is an upper bound): the values are read from the pending cells, not copied per request.
        const body = Buffer.allocUnsafe(bytes);
        let at = 0;
        const put = (text: string) => (at += body.write(text, at));
        put('{"valueInputOption":"RAW","data":[');
        spans.forEach((s, i) => {
          put(`${i ? ',' : ''}{"range":${JSON.stringify(range(s))},"values":[`);
          for (let k = 0; k < s.height; k++) {
            if (k) put(',');
            put(JSON.stringify(cells.line(s.row + k, s.col, s.width)));
          }
          put(']}');
        });
        put(']}');
        await this.rest.send({ kind: 'write', method: 'POST', path: '/values:batchUpdate', body: body.toString('utf8', 0, at) });
        cells.remove(spans);
      }
    } catch (err) {
      // Parts already written stay written; the rest is pending again, under anything written since.
      this.pending = cells.under(this.pending);
      // eslint-disable-next-line @n8n/community-nodes/require-node-api-error -- shared with the CLI; the node converts errors at its entry points
      throw err;
    }
  }

  private maxRequestBytes(): number {
    return this.options.maxRequestBytes ?? MAX_REQUEST_BYTES;
  }

  async append(rows: readonly string[][]): Promise<void> {
    if (!rows.length) return;
    if (this.title === undefined) await this.loadMetadata();
    let width = 0;
    for (const r of rows) if (r.length > width) width = r.length;
    if (!this.grid || width > this.grid.cols) await this.ensureGrid(this.grid?.rows ?? 0, width);
    // Split like saves, under the request size; each part lands after the rows of the one before.
    const max = this.maxRequestBytes();
    const base = jsonBytes({ values: [] });
    let part: string[] = [];
    let bytes = base;
    for (const r of rows) {
      const json = JSON.stringify(r.map((v) => capCell(v)));
      const b = Buffer.byteLength(json);
      if (part.length && bytes + 1 + b > max) {
        await this.appendPart(part);
        part = [];
        bytes = base;
      }
      bytes += (part.length ? 1 : 0) + b;
      part.push(json);
    }
    await this.appendPart(part);
  }

  /** Appends rows given as JSON arrays. */
  private async appendPart(rows: string[]): Promise<void> {
    // Appends are not idempotent: retried only on 429 (not processed); callers reconcile by id otherwise.
    await this.rest.send({
      kind: 'write',
      method: 'POST',
      path: `/values/${encodeURIComponent(`${a1Sheet(this.title!)}!A1`)}:append`,
      query: [
        ['valueInputOption', 'RAW'],
        ['insertDataOption', 'INSERT_ROWS'],
      ],
      body: `{"values":[${rows.join(',')}]}`,
      idempotent: false,
    });
    if (this.grid) this.grid.rows += rows.length;
  }
}
