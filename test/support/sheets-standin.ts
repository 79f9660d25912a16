/**
 * A local stand-in for the subset of the Google Sheets v4 API the sheets module uses:
 * spreadsheets.get / batchUpdate (appendDimension, insertDimension, addSheet (hidden too), deleteSheet, updateCells from a start cell),
 * values.get / batchGet / update /
 * append / batchUpdate. It keeps Google's quota behaviour (reads and writes per minute per user → 429
 * RESOURCE_EXHAUSTED with Google's error body, sheets-standin-quota.ts), RAW vs USER_ENTERED input, the
 * value render options (FORMATTED_VALUE in the spreadsheet's locale), ragged rows, atomic batches and
 * Google's size limits, and counts calls. Every request is checked against Google's discovery document
 * (sheets-standin-discovery.ts): a problem is answered 400 like Google and recorded, and close() throws
 * with the problems no test took (takeViolations), so every test using the stand-in checks its requests.
 * googleapis talks to it through rootUrl.
 *
 * Auth works offline like Google's (sheets-standin-auth.ts): access tokens from its token endpoint
 * (service-account keys made here, or a person signed in on its consent page), plus one fixed token.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { readBody } from './http-server';
import type { AddressInfo } from 'node:net';
import { StandinAuth, UNAUTHENTICATED_MESSAGE, type StandinAuthOptions } from './sheets-standin-auth';
import { applyFields, CELL_LIMIT, MESSAGES, StandinPermissions, StandinRefusal, type CellRect } from './sheets-standin-permissions';
import { sheetsDiscovery, type RequestCheck } from './sheets-standin-discovery';
import { PerUserQuota, type QuotaOptions } from './sheets-standin-quota';

/** Google's limit on all sheets' cells together (the permissions module holds it, with Google's message). */
export const MAX_SPREADSHEET_CELLS = CELL_LIMIT;

type Scalar = string | number | boolean;
export interface Cell {
  v: Scalar;
  f?: string;
}
export interface Sheet {
  sheetId: number;
  title: string;
  rowCount: number;
  columnCount: number;
  cells: (Cell | undefined)[][];
  /** Hidden in the UI (SheetProperties.hidden); the API reads and writes it like any other. */
  hidden?: boolean;
}
interface Spreadsheet {
  id: string;
  title: string;
  /** Google's locale code (et_EE): how FORMATTED_VALUE shows numbers. */
  locale: string;
  sheets: Sheet[];
}

export interface StandinOptions extends QuotaOptions {
  /** Google does not send Retry-After on quota errors; set to test that the client honours it. */
  retryAfterSeconds?: number;
  /** Token life, the account on the consent page. */
  auth?: StandinAuthOptions;
}

export interface CallLog {
  method: string;
  kind: 'read' | 'write';
  status: number;
  valueInputOption?: string;
  /** Size of the request body in bytes (Google recommends at most 2 MB per request). */
  bytes: number;
}

class HttpError extends StandinRefusal {}

const colIndex = (letters: string) => [...letters.toUpperCase()].reduce((n, ch) => n * 26 + ch.charCodeAt(0) - 64, 0) - 1;
const colLetters = (i: number): string => {
  let n = i + 1;
  let s = '';
  while (n > 0) {
    s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
    n = Math.floor((n - 1) / 26);
  }
  return s;
};

/** The longest row's length, without spreading the rows into Math.max (a write can hold 100,000s). */
const widest = (rows: readonly unknown[][]) => rows.reduce((w, r) => Math.max(w, r.length), 0);

/** Inserts n new items at `at`, shifting the rest, without spreading them into splice's arguments. */
function insertAt<T>(arr: T[], at: number, n: number, make: () => T): void {
  if (at >= arr.length) return;
  const tail = arr.splice(at);
  for (let i = 0; i < n; i++) arr.push(make());
  for (const x of tail) arr.push(x);
}

/** A number as Google shows it in the spreadsheet's locale with the automatic format (et_EE: 13 545 698, 1,5). */
function formatNumber(n: number, locale: string): string {
  let f = formats.get(locale);
  if (!f) formats.set(locale, (f = new Intl.NumberFormat(locale.replace('_', '-'), { maximumFractionDigits: 10, useGrouping: true })));
  // Intl writes a minus sign (U+2212) where Sheets shows a hyphen.
  return f.format(n).replace(/\u2212/g, '-');
}
const formats = new Map<string, Intl.NumberFormat>();

/** Tiny evaluator for USER_ENTERED formulas of numbers and + - * / ( ); enough to show the difference from RAW. */
function evalFormula(expr: string): Scalar {
  const tokens = expr.match(/\d+(?:\.\d+)?|[-+*/()]/g) ?? [];
  let i = 0;
  const atom = (): number => {
    const t = tokens[i++];
    if (t === '(') {
      const v = sum();
      i++;
      return v;
    }
    if (t === '-') return -atom();
    return Number(t);
  };
  const product = (): number => {
    let v = atom();
    while (tokens[i] === '*' || tokens[i] === '/') v = tokens[i++] === '*' ? v * atom() : v / atom();
    return v;
  };
  const sum = (): number => {
    let v = product();
    while (tokens[i] === '+' || tokens[i] === '-') v = tokens[i++] === '+' ? v + product() : v - product();
    return v;
  };
  const v = sum();
  return Number.isFinite(v) ? v : '#ERROR!';
}

function userEntered(value: Scalar): Cell {
  if (typeof value !== 'string') return { v: value };
  if (value.startsWith("'")) return { v: value.slice(1) };
  if (value.startsWith('=')) return { v: evalFormula(value.slice(1)), f: value };
  if (/^[+-]?\d+(\.\d+)?$/.test(value.trim())) return { v: Number(value) };
  if (/^(true|false)$/i.test(value)) return { v: value.toUpperCase() === 'TRUE' };
  return { v: value };
}

interface Range {
  sheet: Sheet;
  r0: number;
  c0: number;
  /** Inclusive ends; undefined = to the grid edge. */
  r1?: number;
  c1?: number;
  whole: boolean;
}

export class SheetsStandin {
  readonly spreadsheets = new Map<string, Spreadsheet>();
  readonly calls: CallLog[] = [];
  /** Requests that broke Google's discovery document, and answers of the stand-in that did: close() throws while any is left. */
  readonly violations: string[] = [];
  /** A token that never expires, for tests that are not about sign-in; it acts as 'oauth-user'. */
  readonly accessToken = 'standin-access-token';
  /** Google's sign-in: token endpoint, consent page, revocation, the tokens it issued. */
  readonly auth: StandinAuth;
  /** Roles, protected ranges, revoked credentials and the cell limit (sheets-standin-permissions.ts). */
  readonly access = new StandinPermissions();
  /** The next n writes are applied, then answered 503, like an answer lost after the work was done. */
  failAfterApply = 0;
  /** Called before each request is served: a test acting between requests (sheets-standin-colleague.ts). */
  readonly beforeRequest: ((req: { httpMethod: string; path: string; spreadsheetId: string }) => void)[] = [];
  private readonly quotas: PerUserQuota;
  url = '';
  private server = createServer((req, res) => void this.handle(req, res));

  constructor(private readonly options: StandinOptions = {}) {
    this.auth = new StandinAuth(options.auth);
    this.auth.fixedTokens.set(this.accessToken, 'oauth-user');
    this.quotas = new PerUserQuota(options);
  }

  async listen(): Promise<this> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/`;
    this.auth.baseUrl = this.url;
    return this;
  }

  /** Closes the server; throws when requests or answers broke the discovery document and no test took them. */
  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
    const left = this.takeViolations();
    if (left.length) throw new Error(`Sheets stand-in: ${left.length} request(s) broke Google's discovery document:\n${left.join('\n')}`);
  }

  /** The discovery problems so far, forgotten: for a test that sends a wrong request on purpose. */
  takeViolations(): string[] {
    return this.violations.splice(0);
  }

  /** A service-account key (JSON as Google's) whose assertions this stand-in's token endpoint accepts. */
  serviceAccountKey(email = 'sync@standin.iam.gserviceaccount.com') {
    return this.auth.serviceAccountKey(email);
  }

  /**
   * Creates a spreadsheet; rows are stored as given (strings as RAW text, numbers as numbers). The locale
   * is Google's code for how FORMATTED_VALUE shows numbers, Estonian unless given.
   */
  create(
    id: string,
    sheets: { title: string; rows?: Scalar[][]; rowCount?: number; columnCount?: number; hidden?: boolean }[],
    options: { locale?: string } = {},
  ): void {
    this.spreadsheets.set(id, {
      id,
      title: id,
      locale: options.locale ?? 'et_EE',
      sheets: sheets.map((s, i) => ({
        sheetId: i === 0 ? 0 : 1000 + i,
        title: s.title,
        rowCount: Math.max(s.rowCount ?? 1000, s.rows?.length ?? 0),
        columnCount: Math.max(s.columnCount ?? 26, widest(s.rows ?? [])),
        cells: (s.rows ?? []).map((r) => r.map((v) => (v === '' ? undefined : { v }))),
        ...(s.hidden ? { hidden: true } : {}),
      })),
    });
  }

  /** The titles of a spreadsheet's sheets, hidden ones too, in order. */
  sheetTitles(id: string): string[] {
    return this.spreadsheets.get(id)!.sheets.map((x) => x.title);
  }

  /** Adds a sheet as a person or another program would (rows stored as given). */
  addSheet(id: string, sheet: { title: string; rows?: Scalar[][]; hidden?: boolean }): void {
    const ss = this.spreadsheets.get(id)!;
    ss.sheets.push({
      sheetId: Math.max(0, ...ss.sheets.map((x) => x.sheetId)) + 1,
      title: sheet.title,
      rowCount: Math.max(1000, sheet.rows?.length ?? 0),
      columnCount: Math.max(26, widest(sheet.rows ?? [])),
      cells: (sheet.rows ?? []).map((r) => r.map((v) => (v === '' ? undefined : { v }))),
      ...(sheet.hidden ? { hidden: true } : {}),
    });
  }

  /** Deletes a sheet as a person would (Delete on its tab). */
  deleteSheet(id: string, title: string): void {
    const ss = this.spreadsheets.get(id)!;
    const at = ss.sheets.findIndex((x) => x.title === title);
    if (at < 0) throw new Error(`no sheet "${title}" in ${id}`);
    ss.sheets.splice(at, 1);
  }

  /** Shares a spreadsheet with these users only, as writers (service-account emails, 'oauth-user'); others get Google's 403. */
  share(id: string, editors: string[]): void {
    this.access.share(id, editors);
  }

  /** The stored cells of a sheet (values as stored: numbers stay numbers, formulas as results). */
  values(id: string, title: string): Scalar[][] {
    const sheet = this.sheetOf(this.spreadsheets.get(id)!, title);
    return sheet.cells.map((r) => Array.from(r ?? [], (c) => c?.v ?? ''));
  }

  cell(id: string, title: string, a1: string): Cell | undefined {
    const m = /^([A-Z]+)(\d+)$/.exec(a1)!;
    return this.sheetOf(this.spreadsheets.get(id)!, title).cells[Number(m[2]) - 1]?.[colIndex(m[1]!)];
  }

  count(kind: 'read' | 'write', okOnly = true): number {
    return this.calls.filter((c) => c.kind === kind && (!okOnly || c.status < 300)).length;
  }

  private sheetOf(ss: Spreadsheet, title: string | undefined): Sheet {
    // No sheet named: the first VISIBLE sheet, as Google documents.
    const s = title === undefined ? ss.sheets.find((x) => !x.hidden) : ss.sheets.find((x) => x.title === title);
    if (!s) throw new HttpError(400, 'INVALID_ARGUMENT', `Unable to parse range: ${title}`);
    return s;
  }

  /**
   * A1 as Google reads it: 'Title'!A1:B2 (quotes doubled inside), Title!A1:B2, 'Title' or Title alone
   * for the whole sheet, and a range with no sheet (A1:B2, A:A, 1:2) as cells of the first visible sheet. So an
   * unquoted Q1 or Jan2025 is a cell of the first sheet even when a sheet has that title.
   */
  private parseRange(ss: Spreadsheet, a1: string): Range {
    let title: string | undefined;
    let cells: string;
    const quoted = /^'((?:[^']|'')+)'(?:!(.*))?$/.exec(a1);
    const bang = a1.lastIndexOf('!');
    if (quoted) {
      title = quoted[1]!.replace(/''/g, "'");
      cells = quoted[2] ?? '';
    } else if (a1.startsWith("'")) {
      throw new HttpError(400, 'INVALID_ARGUMENT', `Unable to parse range: ${a1}`);
    } else if (bang >= 0) {
      title = a1.slice(0, bang);
      cells = a1.slice(bang + 1);
      if (/['!]/.test(title)) throw new HttpError(400, 'INVALID_ARGUMENT', `Unable to parse range: ${a1}`);
    } else if (CELLS.test(a1)) {
      cells = a1;
    } else {
      title = a1;
      cells = '';
    }
    const sheet = this.sheetOf(ss, title);
    if (!cells) return { sheet, r0: 0, c0: 0, whole: true };
    const [a, b] = cells.replace(/\$/g, '').split(':');
    const pa = /^([A-Z]{0,3})(\d*)$/i.exec(a!);
    const pb = b !== undefined ? /^([A-Z]{0,3})(\d*)$/i.exec(b) : pa;
    if (!CELLS.test(cells) || !pa || !pb) throw new HttpError(400, 'INVALID_ARGUMENT', `Unable to parse range: ${a1}`);
    return {
      sheet,
      r0: pa[2] ? Number(pa[2]) - 1 : 0,
      c0: pa[1] ? colIndex(pa[1]) : 0,
      r1: pb[2] ? Number(pb[2]) - 1 : undefined,
      c1: pb[1] ? colIndex(pb[1]) : undefined,
      whole: false,
    };
  }

  private render(cell: Cell | undefined, option: string, locale: string): Scalar {
    if (!cell) return '';
    if (option === 'FORMULA' && cell.f) return cell.f;
    if (option === 'UNFORMATTED_VALUE' || option === 'FORMULA') return cell.v;
    if (typeof cell.v === 'number') return formatNumber(cell.v, locale);
    return typeof cell.v === 'boolean' ? (cell.v ? 'TRUE' : 'FALSE') : cell.v;
  }

  /** Values of a range as Google answers them: trailing empty cells of each row and trailing empty rows left out. */
  private readRange(r: Range, option: string, locale: string, majorDimension = 'ROWS') {
    const s = r.sheet;
    const r1 = Math.min(r.r1 ?? s.rowCount - 1, s.rowCount - 1);
    const c1 = Math.min(r.c1 ?? s.columnCount - 1, s.columnCount - 1);
    const range = `${quote(s.title)}!${colLetters(r.c0)}${r.r0 + 1}:${colLetters(c1)}${r1 + 1}`;
    if (majorDimension === 'COLUMNS') {
      // One list per column, each without its trailing empty cells; trailing empty columns left out.
      const columns: Scalar[][] = [];
      for (let col = r.c0; col <= c1; col++) {
        const line: Scalar[] = [];
        for (let row = r.r0; row <= r1 && row < s.cells.length; row++) line.push(this.render(s.cells[row]?.[col], option, locale));
        while (line.length && line[line.length - 1] === '') line.pop();
        columns.push(line);
      }
      while (columns.length && columns[columns.length - 1]!.length === 0) columns.pop();
      return { range, majorDimension: 'COLUMNS', ...(columns.length ? { values: columns } : {}) };
    }
    const values: Scalar[][] = [];
    for (let row = r.r0; row <= r1; row++) {
      const line: Scalar[] = [];
      const stored = s.cells[row];
      // Past the stored cells every row is empty, and so left out.
      if (stored === undefined && row >= s.cells.length) break;
      for (let col = r.c0; col <= c1 && stored && col < stored.length; col++) line.push(this.render(stored[col], option, locale));
      while (line.length && line[line.length - 1] === '') line.pop();
      values.push(line);
    }
    while (values.length && values[values.length - 1]!.length === 0) values.pop();
    return { range, majorDimension: 'ROWS', ...(values.length ? { values } : {}) };
  }

  /** Google's grid check: data may not reach past the sheet's rows and columns. */
  private checkGrid(r: Range, values: Scalar[][]): void {
    const s = r.sheet;
    const height = values.length;
    const width = widest(values);
    if (r.r0 + height > s.rowCount || r.c0 + width > s.columnCount) {
      throw new HttpError(
        400,
        'INVALID_ARGUMENT',
        `Range (${quote(s.title)}!${colLetters(r.c0 + width - 1)}${r.r0 + height}) exceeds grid limits. Max rows: ${s.rowCount}, max columns: ${s.columnCount}`,
      );
    }
  }

  private writeRange(r: Range, values: Scalar[][], input: string) {
    const s = r.sheet;
    const height = values.length;
    const width = widest(values);
    this.checkGrid(r, values);
    values.forEach((line, i) => {
      const row = (s.cells[r.r0 + i] ??= []);
      line.forEach((v, j) => {
        if (v === null) return;
        row[r.c0 + j] = v === '' ? undefined : input === 'USER_ENTERED' ? userEntered(v) : { v };
      });
    });
    const cells = values.reduce((n, l) => n + l.filter((v) => v !== null).length, 0);
    return {
      spreadsheetId: '',
      updatedRange: `${quote(s.title)}!${colLetters(r.c0)}${r.r0 + 1}:${colLetters(r.c0 + Math.max(width, 1) - 1)}${r.r0 + Math.max(height, 1)}`,
      updatedRows: height,
      updatedColumns: width,
      updatedCells: cells,
    };
  }

  private quota(user: string, kind: 'read' | 'write'): void {
    const refused = this.quotas.take(user, kind);
    if (refused) throw new HttpError(429, 'RESOURCE_EXHAUSTED', refused);
  }

  private user(req: IncomingMessage): string {
    const who = this.auth.user(req.headers.authorization);
    if (who) return who;
    throw new HttpError(401, 'UNAUTHENTICATED', UNAUTHENTICATED_MESSAGE);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://x');
    const path = decodeURIComponent(url.pathname);
    let kind: 'read' | 'write' = req.method === 'GET' ? 'read' : 'write';
    let method = 'unknown';
    let input: string | undefined;
    let bytes = 0;
    let checked: RequestCheck | undefined;
    try {
      if (await this.auth.handle(req, res)) return;
      const raw = await readBody(req);
      bytes = raw.length;
      let body: Record<string, unknown> = {};
      if (raw.length) {
        try {
          body = JSON.parse(raw.toString()) as Record<string, unknown>;
        } catch (e) {
          this.violations.push(`${req.method} ${path}: the body is not JSON (${(e as Error).message})`);
          throw new HttpError(400, 'INVALID_ARGUMENT', `Invalid JSON payload received. ${(e as Error).message}`);
        }
      }
      if (path.startsWith('/v4/')) {
        checked = sheetsDiscovery().check({
          verb: req.method ?? 'GET',
          path,
          query: url.searchParams,
          contentType: req.headers['content-type'],
          body: raw.length ? body : undefined,
        });
        if (checked.status) {
          this.violations.push(`${req.method} ${path}${url.search}: ${checked.problems.join('; ')}`);
          throw new HttpError(checked.status, checked.status === 404 ? 'NOT_FOUND' : 'INVALID_ARGUMENT', checked.problems.join('\n'));
        }
      }
      const m = /^\/v4\/spreadsheets\/([^/:]+)(?::(batchUpdate)|\/values(?::(batchGet|batchUpdate)|\/(.+?)(:append)?))?$/.exec(path);
      if (!m) throw new HttpError(404, 'NOT_FOUND', `Not found: ${path}`);
      for (const hook of [...this.beforeRequest]) hook({ httpMethod: req.method ?? 'GET', path, spreadsheetId: m[1]! });
      const user = this.user(req);
      this.access.authenticate(user);
      const ss = this.spreadsheets.get(m[1]!);
      if (!ss) throw new HttpError(404, 'NOT_FOUND', 'Requested entity was not found.');
      this.access.checkAccess(ss.id, user, kind);
      const q = url.searchParams;
      input = q.get('valueInputOption') ?? (body.valueInputOption as string | undefined) ?? undefined;
      let out: unknown;
      if (m[2] === 'batchUpdate') {
        method = 'spreadsheets.batchUpdate';
        this.quota(user, kind);
        this.access.checkBatch(ss, user, body.requests as Record<string, Record<string, unknown>>[]);
        // Atomic like Google's: every request is checked (against the grid the ones before it leave) before any applies.
        const grid = new Map<Sheet, { rows: number; cols: number }>();
        const steps = ((body.requests ?? []) as Record<string, Record<string, unknown>>[]).map((r, i) =>
          this.planStructural(ss, r, i, grid, user),
        );
        this.checkCellLimit(ss, grid);
        out = { spreadsheetId: ss.id, replies: steps.map((apply) => apply()) };
      } else if (m[3] === 'batchGet') {
        method = 'values.batchGet';
        this.quota(user, kind);
        const opt = q.get('valueRenderOption') ?? 'FORMATTED_VALUE';
        const ranges = q.getAll('ranges').map((r) => this.parseRange(ss, r));
        out = {
          spreadsheetId: ss.id,
          valueRanges: ranges.map((r) => this.readRange(r, opt, ss.locale, q.get('majorDimension') ?? undefined)),
        };
      } else if (m[3] === 'batchUpdate') {
        method = 'values.batchUpdate';
        this.requireInput(input);
        this.quota(user, kind);
        const data = body.data as { range: string; values: Scalar[][] }[];
        // Atomic like Google's: every range is parsed and checked before any is written.
        const ranges = data.map((d) => this.parseRange(ss, d.range));
        ranges.forEach((r, i) => {
          this.checkFits(r, data[i]!.values);
          this.checkGrid(r, data[i]!.values);
        });
        this.access.checkCells(
          ss.id,
          user,
          ranges.map((r, i) => cellRect(r, data[i]!.values)),
        );
        const responses = ranges.map((r, i) => this.writeRange(r, data[i]!.values, input!));
        out = { spreadsheetId: ss.id, totalUpdatedCells: responses.reduce((n, r) => n + r.updatedCells, 0), responses };
      } else if (m[4] !== undefined && m[5]) {
        method = 'values.append';
        this.requireInput(input);
        this.quota(user, kind);
        out = {
          spreadsheetId: ss.id,
          ...this.appendRows(
            ss,
            this.parseRange(ss, m[4]),
            body.values as Scalar[][],
            input!,
            q.get('insertDataOption') ?? 'OVERWRITE',
            (rect) => this.access.checkCells(ss.id, user, [rect]),
          ),
        };
      } else if (m[4] !== undefined) {
        const r = this.parseRange(ss, m[4]);
        if (req.method === 'GET') {
          method = 'values.get';
          this.quota(user, kind);
          out = this.readRange(r, q.get('valueRenderOption') ?? 'FORMATTED_VALUE', ss.locale, q.get('majorDimension') ?? undefined);
        } else {
          method = 'values.update';
          this.requireInput(input);
          this.quota(user, kind);
          this.checkFits(r, body.values as Scalar[][]);
          this.access.checkCells(ss.id, user, [cellRect(r, body.values as Scalar[][])]);
          out = { ...this.writeRange(r, body.values as Scalar[][], input!), spreadsheetId: ss.id };
        }
      } else {
        method = 'spreadsheets.get';
        kind = 'read';
        this.quota(user, kind);
        out = {
          spreadsheetId: ss.id,
          properties: { title: ss.title, locale: ss.locale },
          sheets: ss.sheets.map((s, index) => ({
            properties: {
              sheetId: s.sheetId,
              title: s.title,
              index,
              sheetType: 'GRID',
              gridProperties: { rowCount: s.rowCount, columnCount: s.columnCount },
              // Google leaves false booleans out of its answers.
              ...(s.hidden ? { hidden: true } : {}),
            },
            protectedRanges: this.access.protectedRangesOf(ss.id, s.sheetId, user),
          })),
          namedRanges: this.access.namedRangesOf(ss.id),
        };
        out = applyFields(out, q.get('fields'));
      }
      if (kind === 'write' && this.failAfterApply > 0) {
        this.failAfterApply--;
        throw new HttpError(503, 'UNAVAILABLE', 'The service is currently unavailable.');
      }
      if (checked?.method)
        for (const p of sheetsDiscovery().responseProblems(checked.method, out))
          this.violations.push(`the stand-in's answer to ${method}: ${p}`);
      this.calls.push({ method, kind, status: 200, bytes, ...(input ? { valueInputOption: input } : {}) });
      if (kind === 'write') this.access.onWrite?.(ss.id, method);
      res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' }).end(JSON.stringify(out));
    } catch (err) {
      const e = err instanceof StandinRefusal ? err : new HttpError(400, 'INVALID_ARGUMENT', (err as Error).message);
      this.calls.push({ method, kind, status: e.status, bytes });
      const headers: Record<string, string> = { 'content-type': 'application/json; charset=UTF-8' };
      if (e.status === 429 && this.options.retryAfterSeconds !== undefined) headers['retry-after'] = String(this.options.retryAfterSeconds);
      const details =
        e.status === 429
          ? [
              {
                '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
                reason: 'RATE_LIMIT_EXCEEDED',
                domain: 'googleapis.com',
                metadata: {
                  service: 'sheets.googleapis.com',
                  quota_metric: `sheets.googleapis.com/${kind}_requests`,
                  quota_limit: `${kind === 'write' ? 'Write' : 'Read'}RequestsPerMinutePerUser`,
                },
              },
            ]
          : undefined;
      res
        .writeHead(e.status, headers)
        .end(JSON.stringify({ error: { code: e.status, message: e.message, status: e.googleStatus, ...(details ? { details } : {}) } }));
    }
  }

  private requireInput(input: string | undefined): void {
    if (input !== 'RAW' && input !== 'USER_ENTERED')
      throw new HttpError(400, 'INVALID_ARGUMENT', "Invalid valueInputOption: must be 'RAW' or 'USER_ENTERED'");
  }

  /** Google's 50,000-character cell limit; checked before anything is applied (writes are atomic). */
  private checkCells(values: Scalar[][]): void {
    for (const line of values)
      for (const v of line)
        if (typeof v === 'string' && v.length > 50_000)
          throw new HttpError(400, 'INVALID_ARGUMENT', 'Your input contains more than the maximum of 50000 characters in a single cell.');
  }

  private checkFits(r: Range, values: Scalar[][]): void {
    this.checkCells(values);
    if (r.r1 !== undefined && r.r0 + values.length - 1 > r.r1) {
      throw new HttpError(
        400,
        'INVALID_ARGUMENT',
        `Requested writing within range [${r.sheet.title}], but tried writing to row [${r.r0 + values.length}]`,
      );
    }
  }

  private appendRows(ss: Spreadsheet, r: Range, values: Scalar[][], input: string, insert: string, guard: (rect: CellRect) => void) {
    this.checkCells(values);
    const s = r.sheet;
    let last = -1;
    s.cells.forEach((row, i) => {
      if (row?.some((c) => c !== undefined)) last = i;
    });
    const at = last + 1;
    const width = widest(values);
    const rows = insert === 'INSERT_ROWS' ? s.rowCount + values.length : Math.max(s.rowCount, at + values.length);
    guard(cellRect({ ...r, r0: at }, values));
    this.checkCellLimit(ss, new Map([[s, { rows, cols: Math.max(s.columnCount, r.c0 + width) }]]));
    if (insert === 'INSERT_ROWS') insertAt(s.cells, at, values.length, () => []);
    s.rowCount = rows;
    if (r.c0 + width > s.columnCount) s.columnCount = r.c0 + width;
    const upd = this.writeRange({ sheet: s, r0: at, c0: r.c0, whole: false }, values, input);
    return { tableRange: last >= 0 ? `${quote(s.title)}!A1:${colLetters(s.columnCount - 1)}${last + 1}` : undefined, updates: upd };
  }

  /** Google's 10,000,000 cells per spreadsheet, with some sheets at the sizes a request would give them. */
  private checkCellLimit(ss: Spreadsheet, sizes: Map<Sheet, { rows: number; cols: number }>): void {
    let cells = 0;
    for (const s of ss.sheets) {
      const g = sizes.get(s) ?? { rows: s.rowCount, cols: s.columnCount };
      cells += g.rows * g.cols;
    }
    if (cells > CELL_LIMIT) throw new HttpError(400, 'INVALID_ARGUMENT', MESSAGES.cellLimit);
  }

  /**
   * Checks one request of a spreadsheets.batchUpdate against the grid as the requests before it leave it
   * (`grid`, updated), and returns how to apply it: nothing is applied until every request is checked.
   */
  private planStructural(
    ss: Spreadsheet,
    req: Record<string, Record<string, unknown>>,
    i: number,
    grid: Map<Sheet, { rows: number; cols: number }>,
    user: string,
  ): () => unknown {
    // Sheets the requests before this one add, known to it before they are applied (Google plans a batch as one).
    const adding = [...grid.keys()].filter((x) => !ss.sheets.includes(x));
    const sheetById = (id: unknown) => {
      const s = [...ss.sheets, ...adding].find((x) => x.sheetId === (id ?? 0));
      if (!s) throw new HttpError(400, 'INVALID_ARGUMENT', `Invalid requests[${i}]: No grid with id: ${String(id)}`);
      let g = grid.get(s);
      if (!g) grid.set(s, (g = { rows: s.rowCount, cols: s.columnCount }));
      return { s, g };
    };
    const dimension = (d: unknown, what: string) => {
      if (d !== 'ROWS' && d !== 'COLUMNS')
        throw new HttpError(400, 'INVALID_ARGUMENT', `Invalid requests[${i}].${what}: dimension must be ROWS or COLUMNS`);
      return d;
    };
    if (req.appendDimension) {
      const a = req.appendDimension as { sheetId?: number; dimension?: string; length?: number };
      const { s, g } = sheetById(a.sheetId);
      const dim = dimension(a.dimension, 'appendDimension');
      const n = a.length ?? 0;
      if (n < 1) throw new HttpError(400, 'INVALID_ARGUMENT', `Invalid requests[${i}].appendDimension: length must be at least 1`);
      if (dim === 'ROWS') g.rows += n;
      else g.cols += n;
      return () => {
        if (dim === 'ROWS') s.rowCount += n;
        else s.columnCount += n;
        return {};
      };
    }
    if (req.insertDimension) {
      const d =
        (req.insertDimension as { range?: { sheetId?: number; dimension?: string; startIndex?: number; endIndex?: number } }).range ?? {};
      const { s, g } = sheetById(d.sheetId);
      const dim = dimension(d.dimension, 'insertDimension');
      const start = d.startIndex ?? 0;
      const n = (d.endIndex ?? 0) - start;
      if (n < 1 || start < 0 || start > (dim === 'ROWS' ? g.rows : g.cols))
        throw new HttpError(
          400,
          'INVALID_ARGUMENT',
          `Invalid requests[${i}].insertDimension: range (${start}, ${d.endIndex}) is out of bounds`,
        );
      if (dim === 'ROWS') g.rows += n;
      else g.cols += n;
      return () => {
        if (dim === 'ROWS') {
          insertAt(s.cells, start, n, () => []);
          s.rowCount += n;
        } else {
          for (const row of s.cells) if (row) insertAt(row, start, n, () => undefined);
          s.columnCount += n;
        }
        return {};
      };
    }
    if (req.addSheet) {
      const props = ((req.addSheet as { properties?: Record<string, unknown> }).properties ?? {}) as {
        sheetId?: number;
        title?: string;
        hidden?: boolean;
        gridProperties?: { rowCount?: number; columnCount?: number };
      };
      const title = props.title ?? `Sheet${ss.sheets.length + 1}`;
      // Google compares titles without regard to case.
      if (ss.sheets.some((x) => x.title.toLowerCase() === title.toLowerCase()))
        throw new HttpError(
          400,
          'INVALID_ARGUMENT',
          `Invalid requests[${i}].addSheet: A sheet with the name "${title}" already exists. Please enter another name.`,
        );
      if (adding.some((x) => x.title.toLowerCase() === title.toLowerCase()))
        throw new HttpError(400, 'INVALID_ARGUMENT', `Invalid requests[${i}].addSheet: A sheet with the name "${title}" already exists.`);
      const rowCount = props.gridProperties?.rowCount ?? 1000;
      const columnCount = props.gridProperties?.columnCount ?? 26;
      // Google takes the sheetId asked for, and refuses one in use.
      const sheetId = props.sheetId ?? Math.max(0, ...[...ss.sheets, ...adding].map((x) => x.sheetId)) + 1;
      if ([...ss.sheets, ...adding].some((x) => x.sheetId === sheetId))
        throw new HttpError(400, 'INVALID_ARGUMENT', `Invalid requests[${i}].addSheet: Sheet with id ${sheetId} already exists.`);
      const hidden = props.hidden === true;
      const sheet: Sheet = { sheetId, title, rowCount, columnCount, cells: [], ...(hidden ? { hidden } : {}) };
      grid.set(sheet, { rows: rowCount, cols: columnCount });
      return () => {
        ss.sheets.push(sheet);
        return {
          addSheet: {
            properties: {
              sheetId,
              title,
              index: ss.sheets.length - 1,
              sheetType: 'GRID',
              gridProperties: { rowCount, columnCount },
              ...(hidden ? { hidden } : {}),
            },
          },
        };
      };
    }
    if (req.deleteSheet) {
      const id = (req.deleteSheet as { sheetId?: number }).sheetId ?? 0;
      // Google's answer for an id no sheet has: the batch is refused whole, so of two deletes of one sheet one fails.
      if (!ss.sheets.some((x) => x.sheetId === id))
        throw new HttpError(400, 'INVALID_ARGUMENT', `Invalid requests[${i}].deleteSheet: No grid with id: ${id}`);
      // A spreadsheet keeps at least one visible sheet (as in Google's UI, the API refuses removing the last one).
      if (!ss.sheets.some((x) => x.sheetId !== id && !x.hidden))
        throw new HttpError(
          400,
          'INVALID_ARGUMENT',
          `Invalid requests[${i}].deleteSheet: You can't remove all the visible sheets in a document.`,
        );
      return () => {
        ss.sheets.splice(
          ss.sheets.findIndex((x) => x.sheetId === id),
          1,
        );
        return {};
      };
    }
    if (req.updateCells) {
      const u = req.updateCells as {
        start?: { sheetId?: number; rowIndex?: number; columnIndex?: number };
        rows?: { values?: { userEnteredValue?: { stringValue?: string } }[] }[];
        fields?: string;
      };
      if (!u.fields)
        throw new HttpError(400, 'INVALID_ARGUMENT', `Invalid requests[${i}].updateCells: At least one field must be updated.`);
      if (!u.start)
        throw new HttpError(400, 'INVALID_ARGUMENT', 'Unsupported in the stand-in: updateCells with a range rather than a start');
      const { s, g } = sheetById(u.start.sheetId);
      const r0 = u.start.rowIndex ?? 0;
      const c0 = u.start.columnIndex ?? 0;
      const rows = u.rows ?? [];
      const width = rows.reduce((w, r) => Math.max(w, r.values?.length ?? 0), 0);
      if (r0 + rows.length > g.rows || c0 + width > g.cols)
        throw new HttpError(400, 'INVALID_ARGUMENT', `Invalid requests[${i}].updateCells: the range is beyond the grid`);
      // A sheet this batch adds has no protected range yet; an existing one is checked as a write of those cells.
      if (!adding.includes(s))
        this.access.checkCells(ss.id, user, [
          { sheetId: s.sheetId, r0, r1: r0 + Math.max(1, rows.length), c0, c1: c0 + Math.max(1, width) },
        ]);
      return () => {
        rows.forEach((r, k) => {
          const row = (s.cells[r0 + k] ??= []);
          (r.values ?? []).forEach((v, j) => {
            const text = v.userEnteredValue?.stringValue;
            row[c0 + j] = text === undefined || text === '' ? undefined : { v: text };
          });
        });
        return {};
      };
    }
    throw new HttpError(400, 'INVALID_ARGUMENT', `Unsupported request in the stand-in: ${Object.keys(req).join(', ')}`);
  }
}

/** The cells a write of these values to this range touches. */
function cellRect(r: Range, values: Scalar[][]): CellRect {
  const width = Math.max(1, ...values.map((v) => v.length));
  return { sheetId: r.sheet.sheetId, r0: r.r0, r1: r.r0 + Math.max(1, values.length), c0: r.c0, c1: r.c0 + width };
}

/** Cells with no sheet: A1, A1:B2, A:A, 1:2, A5:A, $A$1 (columns run to ZZZ). */
const CELLS = /^(?:\$?[A-Z]{1,3}\$?\d*|\$?\d+)(?::(?:\$?[A-Z]{1,3}\$?\d*|\$?\d+))?$/i;

/** A title as Google writes it in answers: quoted when it is not a plain word or looks like cells. */
function quote(title: string): string {
  return /^[A-Za-z0-9_]+$/.test(title) && !CELLS.test(title) ? title : `'${title.replace(/'/g, "''")}'`;
}

export async function startSheetsStandin(options: StandinOptions = {}): Promise<SheetsStandin> {
  return new SheetsStandin(options).listen();
}
