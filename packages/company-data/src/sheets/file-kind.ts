import { isAscii, utf16ByZeros, utf8OrBaltic, type TextEncodingName } from './text-encoding';

/**
 * What a file holds, told from its first bytes: for the error that names what was expected and
 * what was found instead, without echoing the bytes themselves (they could be terminal control codes).
 */
export type ContentKind = 'empty' | 'zip' | 'xls' | 'pdf' | 'gzip' | 'binary' | 'undecodable' | 'text';

/** What each kind is called in an error, when the file should have been something else. */
const described: Record<ContentKind, string> = {
  empty: 'an empty file',
  zip: 'a ZIP archive (an XLSX workbook is one: name it .xlsx)',
  xls: 'an old Excel 97-2003 (.xls) workbook; save it as .xlsx or .csv',
  pdf: 'a PDF document',
  gzip: 'gzip-compressed data',
  binary: 'binary data',
  undecodable: 'text in an encoding that cannot be read (save it as "CSV UTF-8")',
  text: 'text',
};

/** Text found: its encoding, whether it starts with a byte-order mark, and whether all seen was ASCII (same in UTF-8 and Windows-1257). */
export interface TextFound {
  encoding: TextEncodingName;
  bom: boolean;
  ascii: boolean;
}

/**
 * `head` is the file's first bytes (all of them when `complete`). Text is UTF-16 (by its BOM, or by its
 * zero bytes without one), UTF-8 (by its BOM, or decoding strictly) or else Windows-1257, the Baltic code
 * page of Excel in Estonia; bytes holding NUL or control bytes (and none of those) are binary.
 */
export function contentKind(head: Uint8Array, complete = false): { kind: ContentKind; text: string; found?: TextFound } {
  const is = (kind: ContentKind, text = described[kind], found?: TextFound) => ({ kind, text, found });
  const starts = (...bytes: number[]) => bytes.every((b, i) => head[i] === b);
  if (head.length === 0) return is('empty');
  if (starts(0x50, 0x4b, 0x03, 0x04)) return is('zip');
  if (starts(0xd0, 0xcf, 0x11, 0xe0)) return is('xls');
  if (starts(0x25, 0x50, 0x44, 0x46)) return is('pdf');
  if (starts(0x1f, 0x8b)) return is('gzip');
  const sample = head.subarray(0, 65536);
  const whole = complete && sample.length === head.length;
  const text = (encoding: TextEncodingName, bom: boolean) => is('text', described.text, { encoding, bom, ascii: false });
  if (starts(0xef, 0xbb, 0xbf)) return text('utf-8', true);
  if (starts(0xff, 0xfe)) return text('utf-16le', true);
  if (starts(0xfe, 0xff)) return text('utf-16be', true);
  const wide = utf16ByZeros(sample);
  if (wide) return text(wide, false);
  if (sample.includes(0)) return is('binary');
  const narrow = utf8OrBaltic(sample, whole);
  if ('binary' in narrow) return is('binary');
  if ('undecodable' in narrow) return is('undecodable', narrow.undecodable);
  return is('text', described.text, { encoding: narrow.encoding, bom: false, ascii: isAscii(sample) });
}

/** The error for a file that is not what its name says. */
export function notAFile(path: string, expected: string, found: string): Error {
  return new Error(`file: ${path} is not ${expected}; it holds ${found}`);
}
