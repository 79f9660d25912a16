/**
 * An XLSX file as the zip package it is. Reading and saving go through the one worksheet part the
 * table works on, row by row: the rest of the package (other sheets, styles, charts, images, names)
 * is copied byte for byte, so nothing a person made in Excel is lost, and a 100,000-row sheet is
 * never held as a whole workbook model.
 */
import { posix } from 'node:path';
import { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import JSZip from 'jszip';
import { columnIndex, columnLetters } from '@company-data/core/sheets/a1';
import { attrsOf, parseRow, SheetScanner, type CellXml, type SheetPiece } from './sheet-xml';

export interface SheetPart {
  name: string;
  path: string;
}

export interface WorkbookPackage {
  zip: JSZip;
  sheets: SheetPart[];
  date1904: boolean;
  /** The workbook's relationships part. */
  workbookRels: string;
  /** Parts the workbook points to, by relationship type (styles, sharedStrings, calcChain). */
  parts: { styles?: string; sharedStrings?: string; calcChain?: string };
}

function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-fA-F]+|#\d+|amp|lt|gt|quot|apos);/g, (_, e: string) => {
    if (e[0] === '#') return String.fromCodePoint(e[1] === 'x' ? parseInt(e.slice(2), 16) : Number(e.slice(1)));
    return ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" } as Record<string, string>)[e]!;
  });
}

/** Text of an OOXML string element (<si> or <is>): its <t> runs, without phonetic runs; _xHHHH_ escapes decoded. */
export function richText(inner: string): string {
  const noPhonetic = inner.replace(/<(\w+:)?rPh\b[\s\S]*?<\/(\w+:)?rPh>/g, '');
  let out = '';
  for (const m of noPhonetic.matchAll(/<(?:\w+:)?t\b[^>]*?(?:\/>|>([\s\S]*?)<\/(?:\w+:)?t>)/g)) out += m[1] ?? '';
  return decodeEntities(out).replace(/_x([0-9A-Fa-f]{4})_/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
}

/** Text for an inline-string cell: XML-escaped, with characters XML cannot hold written as Excel's _xHHHH_. */
function escapeCellText(s: string): string {
  // eslint-disable-next-line no-control-regex -- XML cannot hold these characters: finding them is the point
  if (!/[&<>_\u0000-\u001F\uFFFE\uFFFF]/.test(s)) return s;
  return s
    .replace(/_x([0-9A-Fa-f]{4})_/g, '_x005F_x$1_')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(
      // eslint-disable-next-line no-control-regex -- XML cannot hold these characters: finding them is the point
      /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g,
      (c) => `_x${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}_`,
    );
}

const partPath = (base: string, target: string) =>
  target.startsWith('/') ? target.slice(1) : posix.normalize(posix.join(posix.dirname(base), target));
const relsOf = (part: string) => posix.join(posix.dirname(part), '_rels', `${posix.basename(part)}.rels`);

async function text(zip: JSZip, path: string): Promise<string | undefined> {
  return zip.file(path)?.async('string');
}

function relationships(xml: string | undefined): Array<Record<string, string>> {
  return [...(xml ?? '').matchAll(/<(?:\w+:)?Relationship\b[^>]*>/g)].map((m) => attrsOf(m[0]));
}

async function workbookPath(zip: JSZip): Promise<string> {
  const root = relationships(await text(zip, '_rels/.rels')).find((r) => r.Type?.endsWith('/officeDocument'));
  return root?.Target ? partPath('', root.Target) : 'xl/workbook.xml';
}

export async function openWorkbook(data: Uint8Array): Promise<WorkbookPackage> {
  const zip = await JSZip.loadAsync(data);
  const wbPath = await workbookPath(zip);
  const wbXml = await text(zip, wbPath);
  if (wbXml === undefined) throw new Error('not an XLSX workbook (no workbook part)');
  const rels = relationships(await text(zip, relsOf(wbPath)));
  const sheets: SheetPart[] = [];
  for (const m of wbXml.matchAll(/<(?:\w+:)?sheet\b[^>]*>/g)) {
    const a = attrsOf(m[0]);
    const rid = Object.entries(a).find(([k]) => k === 'id' || k.endsWith(':id'))?.[1];
    const rel = rels.find((r) => r.Id === rid);
    if (a.name !== undefined && rel?.Target) sheets.push({ name: decodeEntities(a.name), path: partPath(wbPath, rel.Target) });
  }
  const pr = /<(?:\w+:)?workbookPr\b[^>]*>/.exec(wbXml);
  const date1904 = pr ? ['1', 'true'].includes(attrsOf(pr[0]).date1904 ?? '') : false;
  const partOf = (type: string) => {
    const rel = rels.find((r) => r.Type?.endsWith(`/${type}`));
    return rel?.Target ? partPath(wbPath, rel.Target) : undefined;
  };
  return {
    zip,
    sheets,
    date1904,
    workbookRels: relsOf(wbPath),
    parts: { styles: partOf('styles'), sharedStrings: partOf('sharedStrings'), calcChain: partOf('calcChain') },
  };
}

/** Streams the pieces of a worksheet part, a batch per chunk of the unzipped XML. */
async function* piecesOf(file: JSZip.JSZipObject): AsyncGenerator<SheetPiece[]> {
  const scanner = new SheetScanner();
  const decoder = new StringDecoder('utf8');
  // JSZip's stream is an older readable-stream one; wrap() makes it a Node stream that async iteration can read.
  for await (const chunk of new Readable().wrap(file.nodeStream('nodebuffer')) as AsyncIterable<Buffer>)
    yield scanner.push(decoder.write(chunk));
  yield [...scanner.push(decoder.end()), ...scanner.end()];
}

// Built-in number formats that show dates or times (ECMA-376 18.8.30, with the East Asian ones).
const BUILTIN_DATE_FORMATS = new Set([
  14, 15, 16, 17, 18, 19, 20, 21, 22, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 45, 46, 47, 50, 51, 52, 53, 54, 55, 56, 57, 58,
]);

function isDateFormat(code: string): boolean {
  return /[ymdhMsb]+/.test(code.replace(/\[[^\]]*]/g, '').replace(/"[^"]*"/g, ''));
}

/** Indexes of cell styles (the s attribute) whose number format is a date. */
async function dateStyles(pkg: WorkbookPackage): Promise<Set<number>> {
  const xml = pkg.parts.styles && (await text(pkg.zip, pkg.parts.styles));
  const out = new Set<number>();
  if (!xml) return out;
  const custom = new Map<number, string>();
  for (const m of xml.matchAll(/<(?:\w+:)?numFmt\b[^>]*>/g)) {
    const a = attrsOf(m[0]);
    custom.set(Number(a.numFmtId), decodeEntities(a.formatCode ?? ''));
  }
  const xfs = /<(?:\w+:)?cellXfs\b[^>]*>([\s\S]*?)<\/(?:\w+:)?cellXfs>/.exec(xml)?.[1] ?? '';
  [...xfs.matchAll(/<(?:\w+:)?xf\b[^>]*>/g)].forEach((m, i) => {
    const id = Number(attrsOf(m[0]).numFmtId ?? 0);
    if (custom.has(id) ? isDateFormat(custom.get(id)!) : BUILTIN_DATE_FORMATS.has(id)) out.add(i);
  });
  return out;
}

async function sharedStrings(pkg: WorkbookPackage): Promise<string[]> {
  const xml = pkg.parts.sharedStrings && (await text(pkg.zip, pkg.parts.sharedStrings));
  if (!xml) return [];
  return [...xml.matchAll(/<(?:\w+:)?si\b[^>]*?(?:\/>|>([\s\S]*?)<\/(?:\w+:)?si>)/g)].map((m) => richText(m[1] ?? ''));
}

function partFile(zip: JSZip, path: string): JSZip.JSZipObject {
  const file = zip.file(path);
  if (!file) throw new Error(`the workbook has no part ${path}`);
  return file;
}

export function sheetPart(pkg: WorkbookPackage, name: string | undefined, file: string): SheetPart {
  const part = name === undefined ? pkg.sheets[0] : pkg.sheets.find((s) => s.name === name);
  if (!part) throw new Error(name === undefined ? `${file} has no worksheet` : `sheet: no worksheet named "${name}" in ${file}`);
  return part;
}

/** A date cell (an Excel serial number under a date format) as YYYY-MM-DD, or ISO time when it has a time of day. */
function dateText(serial: number, date1904: boolean): string {
  const iso = new Date(Math.round((serial - 25569 + (date1904 ? 1462 : 0)) * 86_400_000)).toISOString();
  return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso;
}

interface CellContext {
  strings: readonly string[];
  dates: ReadonlySet<number>;
  date1904: boolean;
}

/** A cell's unformatted text: numbers as plain digits, formulas as their cached result, dates as dateText writes them. */
function cellText(c: CellXml, ctx: CellContext): string {
  const v = /<(?:\w+:)?v>([\s\S]*?)<\/(?:\w+:)?v>/.exec(c.inner)?.[1];
  switch (c.attrs.t) {
    case 's':
      return ctx.strings[Number(v)] ?? '';
    case 'inlineStr':
      return richText(/<(?:\w+:)?is>([\s\S]*?)<\/(?:\w+:)?is>/.exec(c.inner)?.[1] ?? '');
    case 'str':
    case 'e':
    case 'd':
      return decodeEntities(v ?? '');
    case 'b':
      return v === undefined ? '' : String(v === '1' || v === 'true');
    default: {
      if (v === undefined || v === '') return '';
      const n = Number(v);
      return ctx.dates.has(Number(c.attrs.s ?? 0)) && Number.isFinite(n) ? dateText(n, ctx.date1904) : String(n);
    }
  }
}

/** The worksheet as a grid of unformatted text. */
export async function readGrid(pkg: WorkbookPackage, part: SheetPart): Promise<string[][]> {
  const [strings, dates] = await Promise.all([sharedStrings(pkg), dateStyles(pkg)]);
  const ctx: CellContext = { strings, dates, date1904: pkg.date1904 };
  const grid: string[][] = [];
  for await (const batch of piecesOf(partFile(pkg.zip, part.path))) {
    for (const p of batch) {
      if (p.kind !== 'row') continue;
      const row: string[] = [];
      for (const c of parseRow(p.xml, p.prefix).cells) {
        while (row.length < c.col) row.push('');
        row[c.col] = cellText(c, ctx);
      }
      while (grid.length < p.r - 1) grid.push([]);
      grid[p.r - 1] = row;
    }
  }
  return grid;
}

export interface SheetPatch {
  /** 0-based numbers of the rows with changed cells, ascending. */
  changedRows: Uint32Array;
  /** A changed row's new values by 0-based column; '' empties a cell (its style stays). */
  cellsOf(row: number): Map<number, string>;
  /** The grid's size after the patch, for the sheet's <dimension>. */
  rows: number;
  cols: number;
}

/** Columns in an Excel sheet (A to XFD). */
export const MAX_COLUMNS = 16_384;

/** Characters in one Excel cell: a longer one makes Excel say "We found a problem with some content". */
export const MAX_XLSX_CELL_CHARS = 32_767;

function cellXml(prefix: string, ref: string, value: string, style: string | undefined): string {
  const s = style !== undefined ? ` s="${style}"` : '';
  if (value === '') return `<${prefix}c r="${ref}"${s}/>`;
  return `<${prefix}c r="${ref}"${s} t="inlineStr"><${prefix}is><${prefix}t xml:space="preserve">${escapeCellText(value)}</${prefix}t></${prefix}is></${prefix}c>`;
}

/** A row without r follows from the one before; a row inserted before it would move it, so it gets its number. */
function numbered(rowXml: string, r: number, prefix: string): string {
  return /^<[^>]*\sr="/.test(rowXml) ? rowXml : rowXml.replace(new RegExp(`^<${prefix}row\\b`), `<${prefix}row r="${r}"`);
}

function patchedRow(r: number, xml: string | undefined, values: Map<number, string>, prefix: string): string {
  const { startTag, cells, rest } = xml ? parseRow(xml, prefix) : { startTag: `<${prefix}row r="${r}">`, cells: [], rest: '' };
  const byCol = new Map(
    cells.map((c) => [
      c.col,
      c.attrs.r ? c.xml : c.xml.replace(new RegExp(`^<${prefix}c\\b`), `<${prefix}c r="${columnLetters(c.col)}${r}"`),
    ]),
  );
  for (const [col, value] of values) {
    const old = cells.find((c) => c.col === col);
    if (value === '' && !old) continue;
    byCol.set(col, cellXml(prefix, `${columnLetters(col)}${r}`, value, old?.attrs.s));
  }
  // spans is only a loading hint and would be wrong once cells are added.
  const tag = numbered(startTag.replace(/\sspans="[^"]*"/, ''), r, prefix);
  const body = [...byCol.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([, x]) => x)
    .join('');
  return `${tag}${body}${rest}</${prefix}row>`;
}

function withDimension(head: string, patch: SheetPatch): string {
  return head.replace(/(<(?:\w+:)?dimension\b[^>]*?\sref=")([^"]*)(")/, (_, a: string, ref: string, b: string) => {
    const end = ref.split(':').pop() ?? 'A1';
    const rows = Math.max(Number(/\d+/.exec(end)?.[0] ?? 1), patch.rows, 1);
    const cols = Math.max(columnIndex(end) + 1, patch.cols, 1);
    return `${a}${ref.split(':')[0] || 'A1'}:${columnLetters(cols - 1)}${rows}${b}`;
  });
}

async function* patchedPart(original: JSZip.JSZipObject, patch: SheetPatch): AsyncGenerator<string> {
  // Walks the changed rows in step with the sheet's rows: no map of all changes is ever built.
  let next = 0;
  const rowOf = (i: number) => patch.changedRows[i]! + 1;
  const takeRow = (): [number, Map<number, string>] => {
    const r = rowOf(next++);
    return [r, patch.cellsOf(r - 1)];
  };
  let prefix = '';
  const newRowsBefore = function* (limit: number) {
    while (next < patch.changedRows.length && rowOf(next) < limit) {
      const [r, values] = takeRow();
      yield patchedRow(r, undefined, values, prefix);
    }
  };
  for await (const batch of piecesOf(original)) {
    const out: string[] = [];
    for (const p of batch) {
      if (p.kind === 'head') {
        prefix = p.prefix;
        out.push(withDimension(p.xml, patch));
      } else if (p.kind === 'row') {
        for (const x of newRowsBefore(p.r)) out.push(x);
        if (next < patch.changedRows.length && rowOf(next) === p.r) out.push(patchedRow(p.r, p.xml, takeRow()[1], prefix));
        else out.push(numbered(p.xml, p.r, prefix));
      } else {
        // Not spread into push: rows added past the end can be several hundred thousand.
        for (const x of newRowsBefore(Infinity)) out.push(x);
        out.push(p.xml);
      }
    }
    if (out.length) yield out.join('');
  }
}

/**
 * Excel's calculation chain lists formula cells; one that now holds text would make Excel "repair"
 * the file. Without the part Excel rebuilds it on its own.
 */
async function dropCalcChain(pkg: WorkbookPackage): Promise<void> {
  const part = pkg.parts.calcChain;
  if (!part || !pkg.zip.file(part)) return;
  const { zip } = pkg;
  zip.remove(part);
  const types = await text(zip, '[Content_Types].xml');
  if (types)
    zip.file(
      '[Content_Types].xml',
      types.replace(new RegExp(`<(\\w+:)?Override\\b[^>]*PartName="/${part.replace(/[.]/g, '\\.')}"[^>]*/>`), ''),
    );
  const relsXml = await text(zip, pkg.workbookRels);
  if (relsXml) zip.file(pkg.workbookRels, relsXml.replace(/<(\w+:)?Relationship\b[^>]*\/calcChain"[^>]*\/>/, ''));
}

/** The package with the patch applied to one sheet, as a stream of the new file's bytes. */
export async function patchedWorkbook(pkg: WorkbookPackage, part: SheetPart, patch: SheetPatch): Promise<NodeJS.ReadableStream> {
  const original = partFile(pkg.zip, part.path);
  await dropCalcChain(pkg);
  // As UTF-8 bytes (JSZip would take strings for binary Latin-1 ones), in chunks of about 64 KB rather
  // than one small Buffer per row: fewer objects for the garbage collector on a 100,000-row save.
  const bytes = async function* () {
    let chunk = '';
    for await (const xml of patchedPart(original, patch)) {
      chunk += xml;
      if (chunk.length >= 65_536) {
        yield Buffer.from(chunk, 'utf8');
        chunk = '';
      }
    }
    if (chunk) yield Buffer.from(chunk, 'utf8');
  };
  pkg.zip.file(part.path, Readable.from(bytes()));
  return pkg.zip.generateNodeStream({ type: 'nodebuffer', streamFiles: true, compression: 'DEFLATE', compressionOptions: { level: 6 } });
}
