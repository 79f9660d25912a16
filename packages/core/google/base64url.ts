/**
 * Base64url (RFC 4648 §5, no padding) in plain code: the core also runs where neither Buffer nor
 * TextEncoder exists (Apps Script), and a JWT needs no more than this.
 */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** The text's UTF-8 bytes (a lone surrogate becomes U+FFFD, as TextEncoder does). */
export function utf8Bytes(text: string): number[] {
  const out: number[] = [];
  for (const ch of text) {
    let c = ch.codePointAt(0)!;
    if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
    if (c < 0x80) out.push(c);
    else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63));
    else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
  }
  return out;
}

/** Bytes as base64url. Bytes may come signed (-128..127, as Apps Script's Utilities gives them). */
export function base64url(bytes: ArrayLike<number>): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const n = ((bytes[i]! & 255) << 16) | (((bytes[i + 1] ?? 0) & 255) << 8) | ((bytes[i + 2] ?? 0) & 255);
    out += ALPHABET[n >> 18]! + ALPHABET[(n >> 12) & 63]!;
    if (i + 1 < bytes.length) out += ALPHABET[(n >> 6) & 63]!;
    if (i + 2 < bytes.length) out += ALPHABET[n & 63]!;
  }
  return out;
}

/** A text's UTF-8 bytes as base64url. */
export const base64urlText = (text: string): string => base64url(utf8Bytes(text));
