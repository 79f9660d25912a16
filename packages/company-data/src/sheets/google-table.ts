import { JWT } from 'googleapis-common';
import { sheets_v4 } from 'googleapis/build/src/apis/sheets';
import { GoogleAuthError, googleAuthClient, unauthenticatedAdvice, type GoogleAuthClient, type GoogleCredentials } from './google-auth';
import {
  capCell,
  columnLetters,
  jsonBytes,
  MAX_CELL_CHARS,
  packSpans,
  PendingCells,
  type Span,
  type CellWrite,
  type ColumnsView,
  type Table,
  type TableSnapshot,
} from './table';
import { parseRetryAfter } from '@company-data/core/errors';
import { RateLimiter } from '@company-data/core/limiter';
import { backoffDelay } from '@company-data/core/retry';
import type { Clock } from '@company-data/core/transport';
import { systemClock } from '../transport/clock';
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
} from './preflight';

/** The client's clock (packages/core/transport.ts), so one fake clock drives the client and the sheet in tests. */
export type SheetsClock = Clock;

/** Google's cap on one back-off wait. */
const MAX_BACKOFF_MS = 64_000;

/** Google's recommended maximum request size ("2 MB"): every write is split to stay under it. */
export const MAX_REQUEST_BYTES = 2_000_000;

export interface GoogleSheetTableOptions {
  spreadsheetId: string;
  /** Sheet (tab) title; the first sheet when not given. */
  sheet?: string;
  auth: GoogleCredentials | GoogleAuthClient;
  /** API root, default https://sheets.googleapis.com/ (a local stand-in in tests). */
  rootUrl?: string;
  /** Google's per-user write quota; calls are spaced to stay within it. Default 60 per minute. */
  writesPerMinute?: number;
  /** Google's per-user read quota, likewise. Default 60 per minute. */
  readsPerMinute?: number;
  /** Largest request body in bytes; saves and appends are split to stay under it. Default 2,000,000. */
  maxRequestBytes?: number;
  /** Attempts after a 429 or 5xx before giving up. Default 6. */
  maxRetries?: number;
  /**
   * First back-off step; doubles per attempt, capped at 64 s (Google's advice). Each wait is the
   * client's jittered step (packages/core/retry.ts backoffDelay): between half and all of it.
   */
  backoffBaseMs?: number;
  clock?: SheetsClock;
  random?: () => number;
}

/**
 * Quotes a sheet title for A1 notation, always: 'My Sheet'!A1, 'Q1'!A1, 'Q3 ''hot'' leads'!A1.
 * Google reads an unquoted title that looks like a cell or column (Q1, Jan2025, AB) as cells of the
 * first sheet, and quoting a plain title is always allowed.
 */
export function a1Sheet(title: string): string {
  return `'${title.replace(/'/g, "''")}'`;
}

function cellText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'boolean') return v ? 'TRUE' : 'FALSE';
  return String(v);
}

interface HttpishError {
  status?: number;
  code?: number | string;
  response?: { status?: number; headers?: unknown };
}

function errorStatus(err: unknown): number | undefined {
  const e = err as HttpishError;
  const s = e?.response?.status ?? e?.status ?? (typeof e?.code === 'number' ? e.code : undefined);
  return typeof s === 'number' ? s : undefined;
}

/** Google's Retry-After, read as the client reads the service's (seconds or an HTTP date). */
function retryAfterMs(err: unknown, nowMs: number): number | undefined {
  const h = (err as HttpishError)?.response?.headers as { get?: (k: string) => string | null } | Record<string, string> | undefined;
  if (!h) return undefined;
  const raw =
    typeof (h as { get?: unknown }).get === 'function'
      ? (h as { get(k: string): string | null }).get('retry-after')
      : (h as Record<string, string>)['retry-after'];
  return parseRetryAfter(raw ?? undefined, nowMs);
}

/**
 * One sheet of a Google spreadsheet as a table.
 * Reads with UNFORMATTED_VALUE; writes with RAW, so "=1+1", "+372..." and "00123" are stored as typed.
 * Writes queue until flush and go out as values.batchUpdate requests of under 2 MB each, in row order
 * (plus one grid growth when needed). A part refused after its retries leaves it and the parts after it
 * pending; the parts before it are written.
 */
export class GoogleSheetTable implements Table {
  readonly label: string;
  readonly id: string;
  /** Each save is a batchUpdate, and Google allows 60 writes a minute. */
  readonly saveEveryMs = 10_000;
  readonly maxCellChars = MAX_CELL_CHARS;
  readonly calls = { read: 0, write: 0, retries: 0 };
  private readonly api: sheets_v4.Sheets;
  private readonly clock: SheetsClock;
  private readonly random: () => number;
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
  /** What a 401 means for these credentials (renewable or not). */
  private readonly on401: string;
  /**
   * Google's per-minute quotas, kept by the client's limiter: it counts each call from its start plus
   * how late it may have reached Google, so calls whose trips differ cannot bunch up in Google's minute.
   */
  private readonly quota: Record<'read' | 'write', RateLimiter>;

  constructor(private readonly options: GoogleSheetTableOptions) {
    const auth = 'request' in options.auth ? options.auth : googleAuthClient(options.auth);
    this.account = auth instanceof JWT ? (auth.email ?? undefined) : undefined;
    this.on401 = unauthenticatedAdvice(auth);
    this.api = new sheets_v4.Sheets({ auth, ...(options.rootUrl ? { rootUrl: options.rootUrl } : {}) });
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? Math.random;
    this.quota = {
      read: new RateLimiter(this.clock, { requests: options.readsPerMinute ?? 60, perMs: 60_000 }),
      write: new RateLimiter(this.clock, { requests: options.writesPerMinute ?? 60, perMs: 60_000 }),
    };
    this.title = options.sheet;
    this.label = `spreadsheet ${options.spreadsheetId}${options.sheet ? ` sheet "${options.sheet}"` : ''}`;
    this.id = `gsheet:${options.spreadsheetId}#${options.sheet ?? ''}`;
  }

  /** Runs one API call within Google's quota, backing off on 429 and 5xx as Google advises. */
  private async call<T>(kind: 'read' | 'write', fn: () => Promise<T>, retryServerErrors = true): Promise<T> {
    const max = this.options.maxRetries ?? 6;
    const base = this.options.backoffBaseMs ?? 1000;
    for (let attempt = 0; ; attempt++) {
      const release = await this.quota[kind].acquire();
      this.calls[kind]++;
      try {
        const result = await fn();
        release();
        return result;
      } catch (err) {
        release();
        const status = errorStatus(err);
        const retriable = status === 429 || (retryServerErrors && status !== undefined && status >= 500);
        if (!retriable || attempt >= max)
          throw sheetsError(err, status, { spreadsheetId: this.options.spreadsheetId, account: this.account, on401: this.on401 });
        this.calls.retries++;
        const backoff = backoffDelay(attempt + 1, { baseDelayMs: base, maxDelayMs: MAX_BACKOFF_MS, random: this.random });
        await this.clock.sleep(Math.max(retryAfterMs(err, this.clock.now()) ?? 0, backoff));
      }
    }
  }

  private async loadMetadata(): Promise<void> {
    const res = await this.call('read', () =>
      this.api.spreadsheets.get(
        {
          spreadsheetId: this.options.spreadsheetId,
          fields:
            'sheets(properties(sheetId,title,gridProperties(rowCount,columnCount)),' +
            'protectedRanges(protectedRangeId,range,namedRangeId,description,warningOnly,requestingUserCanEdit,unprotectedRanges)),' +
            'namedRanges(namedRangeId,range)',
        },
        { retry: false },
      ),
    );
    const sheets = res.data.sheets ?? [];
    const s = this.title === undefined ? sheets[0] : sheets.find((x) => x.properties?.title === this.title);
    if (!s?.properties) {
      const titles = sheets.map((x) => `"${x.properties?.title ?? ''}"`);
      throw new Error(
        `sheet: no sheet named "${this.title ?? '(first)'}" in spreadsheet ${this.options.spreadsheetId}; ` +
          (titles.length ? `its sheets are ${titles.join(', ')} (pass one with --sheet)` : 'it has no sheets'),
      );
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
      named: new Map((res.data.namedRanges ?? []).flatMap((n) => (n.namedRangeId && n.range ? [[n.namedRangeId, n.range]] : []))),
    };
  }

  /**
   * The checks before paying (docs/assumptions.md, "Checks before paying"): fresh metadata (sheet,
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
        meta.sheets.map((s) => s.title),
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
      await this.call('write', () =>
        this.api.spreadsheets.values.update(
          {
            spreadsheetId: this.options.spreadsheetId,
            range: `${a1Sheet(title)}!${columnLetters(probe.col)}1`,
            valueInputOption: 'RAW',
            requestBody: { values: [[probe.value]] },
          },
          { retry: false },
        ),
      );
      checks.push(writeAccessOk(this.account));
    } catch (err) {
      const { status, protectedCell } = err as SheetsError;
      if (status === 403 && !protectedCell) checks.push(writeAccessRefused(this.account));
      else if (status === 401 || status === 403)
        checks.push({ check: 'write access', ok: false, text: (err as Error).message.replace(/^Google Sheets /, 'Google answered ') });
      else throw err;
    }
    return checks;
  }

  async read(): Promise<TableSnapshot> {
    if (this.title === undefined) await this.loadMetadata();
    const res = await this.call('read', () =>
      this.api.spreadsheets.values.get(
        {
          spreadsheetId: this.options.spreadsheetId,
          range: a1Sheet(this.title!),
          valueRenderOption: 'UNFORMATTED_VALUE',
          majorDimension: 'ROWS',
        },
        { retry: false },
      ),
    ).catch(async (err: unknown) => {
      // A title that is not there is a 400 "Unable to parse range": answer with the sheets that are.
      if ((err as { status?: number }).status === 400 && this.sheetId === undefined) await this.loadMetadata();
      throw err;
    });
    // A whole-sheet range answers with the grid's extent (Sheet1!A1:Z1000), which saves a metadata read.
    const m = /!?\$?([A-Z]+)\$?(\d+):\$?([A-Z]+)\$?(\d+)$/.exec(res.data.range ?? '');
    if (m && !this.grid) this.grid = { rows: Number(m[4]), cols: columnLettersToCount(m[3]!) };
    const values = (res.data.values ?? []) as unknown[][];
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
    const res = await this.call('read', () =>
      this.api.spreadsheets.values.batchGet(
        {
          spreadsheetId: this.options.spreadsheetId,
          ranges: [`${sheet}!1:1`, ...cols.map((c) => `${sheet}!${columnLetters(c)}2:${columnLetters(c)}`)],
          valueRenderOption: 'UNFORMATTED_VALUE',
          // By column: one list per column, where rows would wrap every cell in a list of its own (100,000 rows, a
          // dozen columns: over a million small arrays per save).
          majorDimension: 'COLUMNS',
        },
        { retry: false },
      ),
    );
    const ranges = res.data.valueRanges ?? [];
    const header = ((ranges[0]?.values ?? []) as unknown[][]).map((c) => cellText(c?.[0]));
    while (header.length && header[header.length - 1] === '') header.pop();
    const columns = new Map<number, string[]>();
    cols.forEach((c, i) => {
      const values = (ranges[i + 1]?.values?.[0] ?? []) as unknown[] as string[];
      // Converted in place: the parsed answer's list becomes the column.
      for (let r = 0; r < values.length; r++) values[r] = cellText(values[r]);
      columns.set(c, values);
    });
    return { header, columns };
  }

  async write(cells: readonly CellWrite[]): Promise<void> {
    // Google refuses a cell over 50,000 characters, and the whole batch with it: capped, with a marker.
    this.pending.add(cells, (v) => capCell(v));
  }

  private async ensureGrid(rows: number, cols: number): Promise<void> {
    if (!this.grid || this.sheetId === undefined) await this.loadMetadata();
    const g = this.grid!;
    const requests: sheets_v4.Schema$Request[] = [];
    if (rows > g.rows) requests.push({ appendDimension: { sheetId: this.sheetId, dimension: 'ROWS', length: rows - g.rows } });
    if (cols > g.cols) requests.push({ appendDimension: { sheetId: this.sheetId, dimension: 'COLUMNS', length: cols - g.cols } });
    if (!requests.length) return;
    await this.call('write', () =>
      this.api.spreadsheets.batchUpdate({ spreadsheetId: this.options.spreadsheetId, requestBody: { requests } }, { retry: false }),
    );
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
        const requestBody = asBody<sheets_v4.Schema$BatchUpdateValuesRequest>(body.subarray(0, at));
        await this.call('write', () =>
          this.api.spreadsheets.values.batchUpdate({ spreadsheetId: this.options.spreadsheetId, requestBody }, JSON_BODY),
        );
        cells.remove(spans);
      }
    } catch (err) {
      // Parts already written stay written; the rest is pending again, under anything written since.
      this.pending = cells.under(this.pending);
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
    await this.call(
      'write',
      () =>
        this.api.spreadsheets.values.append(
          {
            spreadsheetId: this.options.spreadsheetId,
            range: `${a1Sheet(this.title!)}!A1`,
            valueInputOption: 'RAW',
            insertDataOption: 'INSERT_ROWS',
            requestBody: asBody<sheets_v4.Schema$ValueRange>(Buffer.from(`{"values":[${rows.join(',')}]}`)),
          },
          JSON_BODY,
        ),
      false,
    );
    if (this.grid) this.grid.rows += rows.length;
  }
}

/**
 * Write requests carry JSON we write into a buffer ourselves. Given an object, googleapis and then gaxios
 * each deep-copy it and serialise it to one large string: at 100,000 rows in 2 MB requests that garbage
 * took the run from about 200 to over 300 MiB before V8 collected it. A buffer is sent as it is.
 */
function asBody<T>(json: Buffer): T {
  return json as unknown as T;
}
const JSON_BODY = { retry: false, headers: { 'content-type': 'application/json' } };

function columnLettersToCount(letters: string): number {
  let n = 0;
  for (const ch of letters) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n;
}

/** What to do about a refusal, by Google's status. */
function advice(
  status: number | undefined,
  ctx: { spreadsheetId: string; account?: string; on401?: string; protectedCell?: boolean },
): string {
  switch (status) {
    case 401:
      return ctx.on401 ?? 'the credentials were refused or have expired';
    case 403:
      if (ctx.protectedCell)
        return `a protected range covers cells this run writes: ask the spreadsheet's owner to add ${ctx.account ?? 'this account'} to its editors (Data → Protect sheets and ranges), or enrich a copy of the sheet`;
      return ctx.account
        ? `share the spreadsheet with ${ctx.account} as an Editor (Share in Google Sheets), or check the Sheets API is enabled for its project`
        : 'the account has no edit access to this spreadsheet: share it with the account as an Editor, or check the Sheets API is enabled';
    case 404:
      return `no spreadsheet has the id ${ctx.spreadsheetId}: check the id (the part of the URL after /d/)`;
    case 429:
      return "Google's quota (60 reads and 60 writes a minute per user) is still exhausted after backing off: wait a minute and run again; finished work is kept";
    default:
      return status !== undefined && status >= 500 ? 'Google Sheets is failing on its side: run again later; finished work is kept' : '';
  }
}

/** A refusal by Google Sheets: its HTTP status, and whether Google named a protected cell (a 403 of protection, not of sharing). */
type SheetsError = Error & { status?: number; protectedCell?: boolean };

/** A short error naming the Sheets status, Google's message and what to do, never the token. */
function sheetsError(err: unknown, status: number | undefined, ctx: { spreadsheetId: string; account?: string; on401?: string }): Error {
  // The sign-in failed before Sheets was asked: that error already names the key or account and what to do.
  if (err instanceof GoogleAuthError) return err;
  const data = (err as { response?: { data?: { error?: { message?: string; status?: string } } } })?.response?.data?.error;
  const msg = data?.message ?? (err as Error)?.message ?? String(err);
  const protectedCell = /protected cell/i.test(msg);
  const todo = advice(status, { ...ctx, protectedCell });
  const e: SheetsError = new Error(
    `Google Sheets${status ? ` ${status}` : ''}${data?.status ? ` ${data.status}` : ''}: ${msg.replace(/Bearer\s+\S+/g, 'Bearer ***')}${todo ? ` (${todo})` : ''}`,
  );
  e.status = status;
  e.protectedCell = protectedCell;
  return e;
}
