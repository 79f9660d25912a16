/**
 * The text encodings a CSV from a spreadsheet app comes in (issue 22): UTF-8 with or without BOM,
 * UTF-16 (Excel's "Unicode text": UTF-16LE with BOM) and Windows-1257, the Baltic code page Excel
 * uses in an Estonian locale. Told from the bytes; decoded and encoded again the same way.
 */
import { Transform } from 'node:stream';

export type TextEncodingName = 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1257';

/** How each encoding is called in messages. */
export const encodingLabel: Record<TextEncodingName, string> = {
  'utf-8': 'UTF-8',
  'utf-16le': 'UTF-16LE',
  'utf-16be': 'UTF-16BE',
  'windows-1257': 'Windows-1257 (Baltic)',
};

/** Bytes Windows-1257 leaves undefined (WHATWG maps them to C1 controls): text with one is not Windows-1257. */
const undefined1257 = new Set([0x81, 0x83, 0x88, 0x8a, 0x8c, 0x90, 0x98, 0x9a, 0x9c, 0x9f]);

/** C0 control bytes that plain text does not hold (tab, LF, FF, CR and Ctrl-Z at a DOS file's end aside). */
const isStrayControl = (b: number) => (b < 0x20 && b !== 9 && b !== 10 && b !== 12 && b !== 13 && b !== 0x1a) || b === 0x7f;

export type EightBit = { encoding: 'utf-8' | 'windows-1257' } | { undecodable: string } | { binary: true };

/**
 * UTF-8 or Windows-1257 for bytes without NUL: UTF-8 when they decode strictly (`complete` false: a
 * sequence cut at the end is not held against them); else Windows-1257 when they hold no control bytes
 * (random bytes do) and no byte that code page leaves undefined.
 */
export function utf8OrBaltic(bytes: Uint8Array, complete: boolean): EightBit {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: !complete });
    return { encoding: 'utf-8' };
  } catch {
    /* not UTF-8: a code page */
  }
  for (let i = 0; i < bytes.length; i++) if (isStrayControl(bytes[i]!)) return { binary: true };
  for (let i = 0; i < bytes.length; i++) {
    if (undefined1257.has(bytes[i]!)) {
      return { undecodable: `text that is neither UTF-8 nor Windows-1257 (byte 0x${bytes[i]!.toString(16).toUpperCase()} at offset ${i})` };
    }
  }
  return { encoding: 'windows-1257' };
}

/** UTF-16 without a BOM, told by its zero bytes: nearly every other byte is 0 in text of Latin letters. */
export function utf16ByZeros(bytes: Uint8Array): 'utf-16le' | 'utf-16be' | undefined {
  const pairs = Math.floor(Math.min(bytes.length, 65536) / 2);
  if (pairs < 2) return undefined;
  let even = 0;
  let odd = 0;
  for (let i = 0; i < pairs * 2; i += 2) {
    if (bytes[i] === 0) even++;
    if (bytes[i + 1] === 0) odd++;
  }
  if (odd >= pairs / 2 && even * 10 <= odd) return 'utf-16le';
  if (even >= pairs / 2 && odd * 10 <= even) return 'utf-16be';
  return undefined;
}

export function isAscii(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) if (bytes[i]! >= 0x80) return false;
  return true;
}

/** The byte-order mark each encoding writes (Windows-1257 has none). */
function bomBytes(encoding: TextEncodingName): Buffer {
  if (encoding === 'utf-8') return Buffer.from([0xef, 0xbb, 0xbf]);
  if (encoding === 'utf-16le') return Buffer.from([0xff, 0xfe]);
  if (encoding === 'utf-16be') return Buffer.from([0xfe, 0xff]);
  return Buffer.alloc(0);
}

let baltic: Map<number, number> | undefined;
/** Code point → Windows-1257 byte, built once from the decoder itself. */
function balticTable(): Map<number, number> {
  if (baltic) return baltic;
  baltic = new Map();
  const d = new TextDecoder('windows-1257');
  for (let b = 0; b < 256; b++) {
    if (undefined1257.has(b)) continue;
    baltic.set(d.decode(Uint8Array.of(b)).codePointAt(0)!, b);
  }
  return baltic;
}

/** The first character of `text` the encoding cannot hold (only Windows-1257 lacks any), or undefined. */
export function unencodableChar(text: string, encoding: TextEncodingName): string | undefined {
  if (encoding !== 'windows-1257') return undefined;
  const table = balticTable();
  for (const ch of text) if (!table.has(ch.codePointAt(0)!)) return ch;
  return undefined;
}

/** `text` in the encoding. Callers check unencodableChar first: a character Windows-1257 lacks is refused here too. */
export function encodeText(text: string, encoding: TextEncodingName): Buffer {
  if (encoding === 'utf-8') return Buffer.from(text, 'utf8');
  if (encoding === 'utf-16le') return Buffer.from(text, 'utf16le');
  if (encoding === 'utf-16be') return Buffer.from(text, 'utf16le').swap16();
  const table = balticTable();
  const out = Buffer.allocUnsafe(text.length);
  let n = 0;
  for (const ch of text) {
    const b = table.get(ch.codePointAt(0)!);
    if (b === undefined) throw new Error(`${describeChar(ch)} cannot be written in Windows-1257`);
    out[n++] = b;
  }
  return out.subarray(0, n);
}

export function encodeBom(encoding: TextEncodingName): Buffer {
  return bomBytes(encoding);
}

/** A character for a message: itself when printable, and its code point. */
export function describeChar(ch: string): string {
  const cp = ch.codePointAt(0)!;
  const code = `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
  return /[\p{L}\p{N}\p{P}\p{S}]/u.test(ch) ? `"${ch}" (${code})` : code;
}

/** Decodes all of `bytes` (a BOM dropped); throws naming the encoding where they cannot be decoded. */
export function decodeAll(bytes: Uint8Array, encoding: TextEncodingName): string {
  const d = textDecoder(encoding);
  return checked(d.decode(bytes), encoding, 0);
}

function textDecoder(encoding: TextEncodingName): InstanceType<typeof TextDecoder> {
  // Windows-1257 never fails to decode: its undefined bytes come out as C1 controls, checked below.
  return new TextDecoder(encoding, { fatal: encoding !== 'windows-1257' });
}

function checked(text: string, encoding: TextEncodingName, at: number): string {
  if (encoding === 'windows-1257') {
    const i = text.search(/[\u0080-\u009f]/);
    if (i >= 0) throw new TextDecodeError(encoding, at + i);
  }
  return text;
}

export class TextDecodeError extends Error {
  constructor(
    readonly encoding: TextEncodingName,
    readonly offset?: number,
  ) {
    super(`it is not valid ${encodingLabel[encoding]} text${offset === undefined ? '' : ` (at byte ${offset})`}`);
  }
}

/** A stream of bytes in, of text out, decoded chunk-safely (a character split between chunks is kept whole). */
export function decodingStream(encoding: TextEncodingName): Transform {
  const d = textDecoder(encoding);
  let seen = 0;
  return new Transform({
    readableObjectMode: true,
    transform(chunk: Buffer, _enc, done) {
      try {
        const text = checked(d.decode(chunk, { stream: true }), encoding, seen);
        seen += chunk.length;
        done(null, text);
      } catch (e) {
        done(e instanceof TextDecodeError ? e : new TextDecodeError(encoding));
      }
    },
    flush(done) {
      try {
        const text = d.decode();
        done(null, text || undefined);
      } catch {
        done(new TextDecodeError(encoding));
      }
    },
  });
}
