/**
 * What a cell holds when a value is written through Range.setValues, and how Sheets shows it.
 * setValues takes a string as if a person typed it (Google: "numeric strings become numbers, date-like
 * strings become dates") unless the cell's number format is plain text ('@'). Locale en_US, time zone UTC.
 */

export type CellValue = string | number | boolean | Date;

/** Google's default ("Automatic") number format as getNumberFormat() reports it. */
export const DEFAULT_FORMAT = '0.###############';
export const PLAIN_TEXT = '@';
export const CELL_CHAR_LIMIT = 50_000;

export interface Typed {
  value: CellValue;
  /** The number format typing applies to a cell that had the default one (a date: 'yyyy-mm-dd'). */
  format?: string;
  formula?: string;
}

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const GROUPED = /^[+-]?\d{1,3}(,\d{3})+(\.\d+)?$/;
const PERCENT = /^([+-]?(\d+\.?\d*|\.\d+))%$/;
const ISO_DATE = /^(\d{4})-(\d{1,2})-(\d{1,2})(?: (\d{1,2}):(\d{2})(?::(\d{2}))?)?$/;
const US_DATE = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/;

function dateOf(y: number, m: number, d: number, h = 0, min = 0, s = 0): Date | undefined {
  const t = Date.UTC(y, m - 1, d, h, min, s);
  const date = new Date(t);
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== m - 1 || date.getUTCDate() !== d || h > 23 || min > 59 || s > 59)
    return undefined;
  return date;
}

/** A string as if typed into a cell of the given number format. */
export function typedString(text: string, format: string | undefined): Typed {
  if (format === PLAIN_TEXT) return { value: text };
  if (text.startsWith("'")) return { value: text.slice(1) };
  if (text.length > 1 && text.startsWith('=')) return { value: '#NAME?', formula: text };
  const t = text.trim();
  if (NUMBER.test(t)) return { value: Number(t) };
  if (GROUPED.test(t)) return { value: Number(t.replace(/,/g, '')), format: '#,##0' + (t.includes('.') ? '.00' : '') };
  const pct = PERCENT.exec(t);
  if (pct) return { value: Number(pct[1]) / 100, format: '0%' };
  if (/^(true|false)$/i.test(t)) return { value: t.toUpperCase() === 'TRUE' };
  const iso = ISO_DATE.exec(t);
  if (iso) {
    const [y, m, d, h, min, s] = iso.slice(1).map((x) => (x === undefined ? undefined : Number(x)));
    const date = dateOf(y as number, m as number, d as number, h, min, s);
    if (date) return { value: date, format: iso[4] === undefined ? 'yyyy-mm-dd' : 'yyyy-mm-dd h:mm:ss' };
  }
  const us = US_DATE.exec(t);
  if (us) {
    const date = dateOf(Number(us[3]), Number(us[1]), Number(us[2]));
    if (date) return { value: date, format: 'M/d/yyyy' };
  }
  return { value: text };
}

/** Any value setValues accepts, as the cell will hold it. */
export function typedValue(v: unknown, format: string | undefined): Typed {
  if (v === null || v === undefined) return { value: '' };
  if (typeof v === 'string') return typedString(v, format);
  if (typeof v === 'number') return Number.isFinite(v) ? { value: v } : { value: '#NUM!' };
  if (typeof v === 'boolean') return { value: v };
  if (v instanceof Date) return { value: new Date(v.getTime()), format: 'M/d/yyyy H:mm:ss' };
  // Apps Script passes other objects through Java's toString; a plain object reads "{a=1}".
  return { value: String(v) };
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

function formatDate(d: Date, format: string): string {
  let out = '';
  let lastWasHour = false;
  for (const tok of format.match(/yyyy|yy|mm|m|dd|d|hh|h|HH|H|ss|s|MM|M|am\/pm|[^a-zA-Z]+|[a-zA-Z]+/g) ?? []) {
    const lower = tok.toLowerCase();
    if (lower === 'yyyy') out += d.getUTCFullYear();
    else if (lower === 'yy') out += pad(d.getUTCFullYear() % 100);
    else if (lower === 'mm' || lower === 'm') {
      const v = lastWasHour ? d.getUTCMinutes() : d.getUTCMonth() + 1;
      out += lower === 'mm' ? pad(v) : String(v);
    } else if (lower === 'dd') out += pad(d.getUTCDate());
    else if (lower === 'd') out += d.getUTCDate();
    else if (lower === 'hh') out += pad(d.getUTCHours());
    else if (lower === 'h') out += d.getUTCHours();
    else if (lower === 'ss') out += pad(d.getUTCSeconds());
    else if (lower === 's') out += d.getUTCSeconds();
    else out += tok;
    if (/^[hH]/.test(tok)) lastWasHour = true;
    else if (/^[a-zA-Z]/.test(tok)) lastWasHour = false;
  }
  return out;
}

function formatNumber(n: number, format: string): string {
  if (format.endsWith('%')) return formatNumber(n * 100, format.slice(0, -1)) + '%';
  const decimals = /\.(0+)/.exec(format)?.[1]?.length ?? 0;
  if (format.includes('#,##0')) return n.toLocaleString('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
  if (/^0(\.0+)?$/.test(format)) return n.toFixed(decimals);
  // Automatic: up to 15 significant digits, as Sheets shows them.
  return Math.abs(n) >= 1e15 ? n.toExponential().replace('e+', 'E+').toUpperCase() : String(Number(n.toPrecision(15)));
}

/** The text Sheets shows for a value in a cell of the given number format (getDisplayValues). */
export function displayValue(v: CellValue, format: string | undefined): string {
  if (v === '') return '';
  if (typeof v === 'boolean') return v ? 'TRUE' : 'FALSE';
  if (v instanceof Date) return formatDate(v, format && /[yd]/i.test(format) ? format : 'M/d/yyyy H:mm:ss');
  if (typeof v === 'number') return format === PLAIN_TEXT ? String(v) : formatNumber(v, format ?? DEFAULT_FORMAT);
  return v;
}
