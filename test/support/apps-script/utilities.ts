/** Utilities and Blob. Apps Script's bytes are Java's: signed, -128..127. */
import { createHash, createHmac, createSign, randomUUID } from 'node:crypto';
import { MESSAGES, ScriptException } from './errors';
import type { Exec } from './execution-context';
import { Facade } from './facade';

export const MAX_SLEEP_MS = 300_000;

export const signedBytes = (b: Uint8Array): number[] => Array.from(b, (x) => (x > 127 ? x - 256 : x));
export const bytesOf = (arr: readonly number[]): Buffer => Buffer.from(arr.map((x) => x & 255));

/** A string (UTF-8 unless the charset says ISO-8859-1, US-ASCII) or a byte array, as bytes. */
function input(value: unknown, charset?: unknown): Buffer {
  if (Array.isArray(value)) return bytesOf(value as number[]);
  if (value instanceof BlobFacade) return value._bytes();
  return Buffer.from(String(value), charset === 'US_ASCII' || charset === 'ISO_8859_1' ? 'latin1' : 'utf8');
}

export class BlobFacade extends Facade {
  readonly _type = 'Blob';
  constructor(
    private bytes: Buffer,
    private contentType: string | null = null,
    private name: string | null = null,
  ) {
    super();
  }
  _bytes(): Buffer {
    return this.bytes;
  }
  getBytes(): number[] {
    return signedBytes(this.bytes);
  }
  getDataAsString(charset?: string): string {
    return this.bytes.toString(charset && /^(iso-8859-1|us-ascii)$/i.test(charset) ? 'latin1' : 'utf8');
  }
  setDataFromString(s: string): BlobFacade {
    this.bytes = Buffer.from(String(s), 'utf8');
    return this;
  }
  setBytes(b: number[]): BlobFacade {
    this.bytes = bytesOf(b);
    return this;
  }
  getContentType(): string | null {
    return this.contentType;
  }
  setContentType(t: string): BlobFacade {
    this.contentType = String(t);
    return this;
  }
  getName(): string | null {
    return this.name;
  }
  setName(n: string): BlobFacade {
    this.name = String(n);
    return this;
  }
  copyBlob(): BlobFacade {
    return new BlobFacade(Buffer.from(this.bytes), this.contentType, this.name);
  }
  getAs(): BlobFacade {
    return this.copyBlob();
  }
  getBlob(): BlobFacade {
    return this;
  }
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** Java SimpleDateFormat, the patterns scripts use (y M d H h m s S a E z Z X and quoted text). */
export function formatDate(date: Date, timeZone: string, pattern: string): string {
  const tz = timeZone === 'GMT' || timeZone === 'UTC' ? 'UTC' : timeZone;
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      weekday: 'short',
    })
      .formatToParts(date)
      .map((p) => [p.type, p.value]),
  ) as Record<string, string>;
  const local = Date.UTC(+parts.year!, +parts.month! - 1, +parts.day!, +parts.hour!, +parts.minute!, +parts.second!);
  const offsetMin = Math.round((local - (date.getTime() - date.getUTCMilliseconds())) / 60000);
  const sign = offsetMin < 0 ? '-' : '+';
  const off = `${pad(Math.floor(Math.abs(offsetMin) / 60))}${pad(Math.abs(offsetMin) % 60)}`;
  const fields: Record<string, (n: number) => string> = {
    y: (n) => (n === 2 ? pad(+parts.year! % 100) : parts.year!.padStart(n, '0')),
    M: (n) => pad(+parts.month!, n),
    d: (n) => pad(+parts.day!, n),
    H: (n) => pad(+parts.hour!, n),
    h: (n) => pad(+parts.hour! % 12 || 12, n),
    m: (n) => pad(+parts.minute!, n),
    s: (n) => pad(+parts.second!, n),
    S: (n) => pad(date.getUTCMilliseconds(), 3).slice(0, Math.max(n, 3)),
    a: () => (+parts.hour! < 12 ? 'AM' : 'PM'),
    E: () => parts.weekday!,
    Z: () => sign + off,
    X: (n) => (offsetMin === 0 ? 'Z' : n >= 3 ? `${sign}${off.slice(0, 2)}:${off.slice(2)}` : sign + off),
    z: () => (offsetMin === 0 ? 'UTC' : `GMT${sign}${off.slice(0, 2)}:${off.slice(2)}`),
  };
  return pattern.replace(/'([^']*)'|([a-zA-Z])\2*/g, (tok, quoted: string | undefined, letter: string | undefined) => {
    if (quoted !== undefined) return quoted === '' ? "'" : quoted;
    const f = letter ? fields[letter] : undefined;
    return f ? f(tok.length) : tok;
  });
}

export class UtilitiesService extends Facade {
  readonly _type = 'Utilities';
  constructor(private x: Exec) {
    super();
  }
  override _props() {
    return {
      DigestAlgorithm: { MD2: 'MD2', MD5: 'MD5', SHA_1: 'SHA_1', SHA_256: 'SHA_256', SHA_384: 'SHA_384', SHA_512: 'SHA_512' },
      Charset: { US_ASCII: 'US_ASCII', UTF_8: 'UTF_8' },
      MacAlgorithm: {
        HMAC_MD5: 'HMAC_MD5',
        HMAC_SHA_1: 'HMAC_SHA_1',
        HMAC_SHA_256: 'HMAC_SHA_256',
        HMAC_SHA_384: 'HMAC_SHA_384',
        HMAC_SHA_512: 'HMAC_SHA_512',
      },
    };
  }
  /** Blocks the execution: virtual time moves on by `milliseconds` (at most 300,000). */
  sleep(milliseconds: number): void {
    if (typeof milliseconds !== 'number' || !(milliseconds >= 0))
      throw new ScriptException(MESSAGES.signature('Utilities', 'sleep', [milliseconds]));
    if (milliseconds > MAX_SLEEP_MS) throw new ScriptException(MESSAGES.invalidArgument('milliseconds'));
    this.x.advance(milliseconds);
  }
  getUuid(): string {
    return randomUUID();
  }
  base64Encode(data: unknown, charset?: unknown): string {
    return input(data, charset).toString('base64');
  }
  base64EncodeWebSafe(data: unknown, charset?: unknown): string {
    return input(data, charset).toString('base64').replace(/\+/g, '-').replace(/\//g, '_');
  }
  base64Decode(encoded: string): number[] {
    return signedBytes(Buffer.from(String(encoded), 'base64'));
  }
  base64DecodeWebSafe(encoded: string): number[] {
    return signedBytes(Buffer.from(String(encoded).replace(/-/g, '+').replace(/_/g, '/'), 'base64'));
  }
  newBlob(data: unknown, contentType?: string, name?: string): BlobFacade {
    return new BlobFacade(input(data ?? ''), contentType ?? null, name ?? null);
  }
  computeDigest(algorithm: string, value: unknown, charset?: unknown): number[] {
    const algo = { MD5: 'md5', SHA_1: 'sha1', SHA_256: 'sha256', SHA_384: 'sha384', SHA_512: 'sha512' }[algorithm];
    if (!algo) throw new ScriptException(MESSAGES.invalidArgument('algorithm'));
    return signedBytes(createHash(algo).update(input(value, charset)).digest());
  }
  computeHmacSha256Signature(value: unknown, key: unknown, charset?: unknown): number[] {
    return signedBytes(createHmac('sha256', input(key, charset)).update(input(value, charset)).digest());
  }
  computeHmacSignature(algorithm: string, value: unknown, key: unknown, charset?: unknown): number[] {
    const algo = { HMAC_MD5: 'md5', HMAC_SHA_1: 'sha1', HMAC_SHA_256: 'sha256', HMAC_SHA_384: 'sha384', HMAC_SHA_512: 'sha512' }[algorithm];
    if (!algo) throw new ScriptException(MESSAGES.invalidArgument('algorithm'));
    return signedBytes(createHmac(algo, input(key, charset)).update(input(value, charset)).digest());
  }
  /** RSASSA-PKCS1-v1_5 with SHA-256; the key in PEM (a service account's private_key). */
  computeRsaSignatureSha256(value: unknown, key: string, charset?: unknown): number[] {
    try {
      return signedBytes(createSign('RSA-SHA256').update(input(value, charset)).sign(String(key)));
    } catch {
      throw new ScriptException(MESSAGES.invalidArgument('key'));
    }
  }
  formatDate(date: Date, timeZone: string, format: string): string {
    if (!(date instanceof Date)) throw new ScriptException(MESSAGES.signature('Utilities', 'formatDate', [date, timeZone, format]));
    return formatDate(date, String(timeZone), String(format));
  }
  formatString(template: string, ...args: unknown[]): string {
    let i = 0;
    return String(template).replace(/%(\d*\.?\d*)([sdf%])/g, (_m, w: string, c: string) => {
      if (c === '%') return '%';
      const v = args[i++];
      if (c === 'd') return String(Math.trunc(Number(v)));
      if (c === 'f') return w.includes('.') ? Number(v).toFixed(Number(w.split('.')[1])) : String(Number(v));
      return String(v);
    });
  }
}
