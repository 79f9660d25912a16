/**
 * Streaming pieces of one worksheet part (xl/worksheets/sheetN.xml): everything before the rows
 * (head), each <row> element with its number, and everything after (tail). Only a row at a time is
 * held, so a sheet of 100,000 rows is never one string in memory.
 */
import { columnIndex } from '@company-data/core/sheets/a1';

export type SheetPiece =
  | { kind: 'head'; xml: string; prefix: string }
  | { kind: 'row'; xml: string; r: number; prefix: string }
  | { kind: 'tail'; xml: string };

const ATTR = /([\w:.-]+)="([^"]*)"/g;

/** Attributes of a start tag, by name. */
export function attrsOf(tag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of tag.matchAll(ATTR)) out[m[1]!] = m[2]!;
  return out;
}

export class SheetScanner {
  private buf = '';
  private state: 'head' | 'rows' | 'tail' = 'head';
  private lastRow = 0;
  /** Namespace prefix of the sheet's elements ('' or e.g. 'x:'), known once the head is read. */
  private prefix = '';

  push(text: string): SheetPiece[] {
    this.buf += text;
    return this.drain();
  }

  end(): SheetPiece[] {
    const out = this.drain();
    if (this.state === 'head') throw new Error('the worksheet has no <sheetData> element');
    if (this.state === 'rows') throw new Error('the worksheet ends inside <sheetData>');
    return out;
  }

  private drain(): SheetPiece[] {
    const out: SheetPiece[] = [];
    if (this.state === 'head') {
      const m = /<(\w+:)?sheetData\b[^>]*?(\/?)>/.exec(this.buf);
      if (!m) return out;
      this.prefix = m[1] ?? '';
      const end = m.index + m[0].length;
      if (m[2] === '/') {
        // An empty <sheetData/>: written open and closed, so new rows have a place to go.
        out.push({ kind: 'head', xml: `${this.buf.slice(0, m.index)}<${this.prefix}sheetData>`, prefix: this.prefix });
        this.buf = `</${this.prefix}sheetData>${this.buf.slice(end)}`;
      } else {
        out.push({ kind: 'head', xml: this.buf.slice(0, end), prefix: this.prefix });
        this.buf = this.buf.slice(end);
      }
      this.state = 'rows';
    }
    if (this.state === 'rows') {
      const open = `<${this.prefix}row`;
      const close = `</${this.prefix}row>`;
      const closeData = `</${this.prefix}sheetData`;
      let pos = 0;
      for (;;) {
        while (pos < this.buf.length && /\s/.test(this.buf[pos]!)) pos++;
        const rest = this.buf.length - pos;
        if (this.buf.startsWith(closeData, pos)) {
          this.state = 'tail';
          break;
        }
        if (this.buf.startsWith(open, pos) && rest > open.length) {
          if (!/[\s>/]/.test(this.buf[pos + open.length]!))
            throw new Error(`unexpected element inside <sheetData>: ${this.buf.slice(pos, pos + 40)}`);
          const tagEnd = this.buf.indexOf('>', pos);
          if (tagEnd < 0) break;
          const selfClosing = this.buf[tagEnd - 1] === '/';
          const closeAt = selfClosing ? tagEnd + 1 : this.buf.indexOf(close, tagEnd);
          if (closeAt < 0) break;
          const stop = selfClosing ? closeAt : closeAt + close.length;
          const xml = this.buf.slice(pos, stop);
          const r = Number(/\sr="(\d+)"/.exec(this.buf.slice(pos, tagEnd))?.[1]) || this.lastRow + 1;
          this.lastRow = r;
          out.push({ kind: 'row', xml, r, prefix: this.prefix });
          pos = stop;
          continue;
        }
        // More text may complete a row or the closing tag; anything else does not belong here.
        const tail = this.buf.slice(pos);
        if (open.startsWith(tail) || closeData.startsWith(tail) || tail.startsWith(open)) break;
        throw new Error(`unexpected element inside <sheetData>: ${tail.slice(0, 40)}`);
      }
      this.buf = this.buf.slice(pos);
    }
    if (this.state === 'tail' && this.buf) {
      out.push({ kind: 'tail', xml: this.buf });
      this.buf = '';
    }
    return out;
  }
}

export interface CellXml {
  /** 0-based column. */
  col: number;
  xml: string;
  attrs: Record<string, string>;
  /** What is between <c> and </c>; '' for <c/>. */
  inner: string;
}

/**
 * The start tag and cells of one <row> element; a cell without r takes the column after the previous
 * one. `rest` is whatever else the row holds after its cells (an <extLst>), kept when the row is rewritten.
 */
export function parseRow(xml: string, prefix: string): { startTag: string; cells: CellXml[]; rest: string } {
  const tagEnd = xml.indexOf('>');
  const selfClosing = xml[tagEnd - 1] === '/';
  const startTag = selfClosing ? `${xml.slice(0, tagEnd - 1).trimEnd()}>` : xml.slice(0, tagEnd + 1);
  const cells: CellXml[] = [];
  if (selfClosing) return { startTag, cells, rest: '' };
  const re = new RegExp(`<${prefix}c\\b([^>]*?)(?:/>|>([\\s\\S]*?)</${prefix}c>)`, 'g');
  const body = xml.slice(tagEnd + 1, xml.length - `</${prefix}row>`.length);
  let col = -1;
  let end = 0;
  for (const m of body.matchAll(re)) {
    const attrs = attrsOf(m[1]!);
    col = attrs.r ? columnIndex(attrs.r) : col + 1;
    cells.push({ col, xml: m[0], attrs, inner: m[2] ?? '' });
    end = m.index + m[0].length;
  }
  return { startTag, cells, rest: body.slice(end).trim() };
}
