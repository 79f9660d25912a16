/**
 * What a file holds, told from its first bytes: for the error that names what was expected and
 * what was found instead, without echoing the bytes themselves (they could be terminal control codes).
 */
export type ContentKind = 'empty' | 'zip' | 'xls' | 'pdf' | 'gzip' | 'binary' | 'text';

/** What each kind is called in an error, when the file should have been something else. */
const described: Record<ContentKind, string> = {
  empty: 'an empty file',
  zip: 'a ZIP archive (an XLSX workbook is one: name it .xlsx)',
  xls: 'an old Excel 97-2003 (.xls) workbook; save it as .xlsx or .csv',
  pdf: 'a PDF document',
  gzip: 'gzip-compressed data',
  binary: 'binary data',
  text: 'text',
};

export function contentKind(head: Uint8Array): { kind: ContentKind; text: string } {
  const is = (kind: ContentKind, text = described[kind]) => ({ kind, text });
  const starts = (...bytes: number[]) => bytes.every((b, i) => head[i] === b);
  if (head.length === 0) return is('empty');
  if (starts(0x50, 0x4b, 0x03, 0x04)) return is('zip');
  if (starts(0xd0, 0xcf, 0x11, 0xe0)) return is('xls');
  if (starts(0x25, 0x50, 0x44, 0x46)) return is('pdf');
  if (starts(0x1f, 0x8b)) return is('gzip');
  const sample = head.subarray(0, 65536);
  if (sample.includes(0)) return is('binary');
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(sample.subarray(0, Math.max(0, sample.length - 4)));
  } catch {
    return is('binary', 'binary data (not UTF-8 text)');
  }
  return is('text');
}

/** The error for a file that is not what its name says. */
export function notAFile(path: string, expected: string, found: string): Error {
  return new Error(`file: ${path} is not ${expected}; it holds ${found}`);
}
