/**
 * Validators for Estonian identifiers and the lookup-query classifier.
 * Facts: ../shared/reference/estonian-registry.md (check digits, forms).
 * Each validator returns null when valid, or a short rule text a non-programmer understands.
 */
import { charCount } from './text-length';
import { QUERY_TOO_SHORT } from './vocabulary';

const REGISTRY_FIRST_DIGITS = new Set(['1', '7', '8', '9']);

function weightedMod11(digits: string, weights: readonly number[]): number {
  let sum = 0;
  for (let i = 0; i < weights.length; i++) sum += Number(digits[i]) * weights[i]!;
  return sum % 11;
}

/** Two-stage modulo-11 check digit shared by registry codes and personal codes. */
export function mod11CheckDigit(digits: string, weights1: readonly number[], weights2: readonly number[]): number {
  let s = weightedMod11(digits, weights1);
  if (s === 10) s = weightedMod11(digits, weights2);
  return s === 10 ? 0 : s;
}

export function registryCodeCheckDigit(first7: string): number {
  return mod11CheckDigit(first7, [1, 2, 3, 4, 5, 6, 7], [3, 4, 5, 6, 7, 8, 9]);
}

export function registryCodeProblem(value: string): string | null {
  if (!/^\d{8}$/.test(value)) return 'must be exactly 8 digits';
  if (!REGISTRY_FIRST_DIGITS.has(value[0]!)) return 'must start with 1, 7, 8 or 9';
  if (registryCodeCheckDigit(value.slice(0, 7)) !== Number(value[7])) return 'has a wrong check digit (last digit)';
  return null;
}

export function isRegistryCode(value: string): boolean {
  return registryCodeProblem(value) === null;
}

/** Builds a valid registry code from a 7-digit stem (used by the sandbox generator and tests). */
export function withRegistryCheckDigit(first7: string): string {
  return first7 + String(registryCodeCheckDigit(first7));
}

const VAT_WEIGHTS = [3, 7, 1, 3, 7, 1, 3, 7, 1];

export function vatChecksumOk(nineDigits: string): boolean {
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += Number(nineDigits[i]) * VAT_WEIGHTS[i]!;
  return sum % 10 === 0;
}

/** Completes 8 digits to a 9-digit VAT number body with a valid check digit. */
export function withVatCheckDigit(eightDigits: string): string {
  for (let d = 0; d <= 9; d++) if (vatChecksumOk(eightDigits + d)) return eightDigits + d;
  /* c8 ignore next */
  throw new Error('unreachable: weight 1 on the last digit always allows a check digit');
}

/**
 * Accepted VAT forms (spec, by-vat path): "EE" + 9 digits, the same with a space and/or lower case,
 * or the 9 digits alone. Returns the normalised "EE123456789" or null when the form is not accepted.
 * The checksum is not part of the form; see vatNumberProblem.
 */
export function normaliseVatNumber(value: string): string | null {
  const m = /^\s*(?:[Ee][Ee]\s?)?(\d{9})\s*$/.exec(value);
  return m ? `EE${m[1]}` : null;
}

export function vatNumberProblem(value: string): string | null {
  const norm = normaliseVatNumber(value);
  if (!norm) return 'must be EE followed by 9 digits (for example EE102090374), or the 9 digits alone';
  if (!vatChecksumOk(norm.slice(2))) return 'has a wrong check digit (last digit)';
  return null;
}

const PERSONAL_WEIGHTS_1 = [1, 2, 3, 4, 5, 6, 7, 8, 9, 1];
const PERSONAL_WEIGHTS_2 = [3, 4, 5, 6, 7, 8, 9, 1, 2, 3];

export function personalCodeCheckDigit(first10: string): number {
  return mod11CheckDigit(first10, PERSONAL_WEIGHTS_1, PERSONAL_WEIGHTS_2);
}

/** Birth date (YYYY-MM-DD) encoded in a personal code, or null when the date part is impossible. */
export function personalCodeBirthDate(code: string): string | null {
  if (!/^[1-6]\d{10}$/.test(code)) return null;
  const century = { '1': 1800, '2': 1800, '3': 1900, '4': 1900, '5': 2000, '6': 2000 }[code[0] as '1'];
  const year = century + Number(code.slice(1, 3));
  const month = code.slice(3, 5);
  const day = code.slice(5, 7);
  const iso = `${year}-${month}-${day}`;
  return isValidDate(iso) ? iso : null;
}

export function personalCodeProblem(value: string): string | null {
  if (!/^\d{11}$/.test(value)) return 'must be exactly 11 digits';
  if (!/^[1-6]/.test(value)) return 'must start with a digit from 1 to 6 (century and sex)';
  if (!personalCodeBirthDate(value)) return 'does not contain a real birth date (digits 2-7 are YYMMDD)';
  if (personalCodeCheckDigit(value.slice(0, 10)) !== Number(value[10])) return 'has a wrong check digit (last digit)';
  return null;
}

/** YYYY-MM-DD that names a real calendar day. */
export function isValidDate(value: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  // setUTCFullYear, not Date.UTC: Date.UTC reads the years 0-99 as 1900-1999, so every date of those
  // years was refused, though RFC 3339's full-date (OpenAPI's format: date) allows the years 0000-9999.
  const dt = new Date(0);
  dt.setUTCFullYear(y, mo - 1, d);
  return dt.getUTCFullYear() === y && dt.getUTCMonth() === mo - 1 && dt.getUTCDate() === d;
}

export type LookupQueryType = 'registry_code' | 'vat_number' | 'name';

export interface LookupQueryClass {
  type: LookupQueryType;
  /** Registry code or normalised VAT number (EE + 9 digits); the trimmed text for names. */
  normalised: string;
  /** Set when the service would not search this query (a name without any word of 3+ characters). */
  skipped?: typeof QUERY_TOO_SHORT;
}

/**
 * Classifies a lookup query exactly as the service reads it (spec, POST /companies/lookup):
 * 8 digits = registry code; EE plus 9 digits, or 9 digits = VAT number; anything else = name search,
 * which is skipped with query_too_short when no word has 3 or more characters.
 * Decision (docs/decisions/service-interface.md, "Envelope, errors and validation"): the VAT forms are those of the by-vat path ("EE", "ee", one space
 * after it, or the 9 digits alone) and surrounding white space is ignored, so a pasted "EE 102224658"
 * is not billed as a name search that cannot match; the answer still echoes the query verbatim.
 */
export function classifyLookupQuery(query: string): LookupQueryClass {
  const trimmed = query.trim();
  if (/^\d{8}$/.test(trimmed)) return { type: 'registry_code', normalised: trimmed };
  const vat = normaliseVatNumber(trimmed);
  if (vat) return { type: 'vat_number', normalised: vat };
  const words = trimmed.split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  if (!words.some((w) => charCount(w) >= 3)) return { type: 'name', normalised: trimmed, skipped: QUERY_TOO_SHORT };
  return { type: 'name', normalised: trimmed };
}

/**
 * Stricter than the service: flags queries that are of a code form but cannot exist
 * (bad check digit), so spreadsheet tools can mark them invalid instead of paying for a miss.
 */
export function lookupQueryProblem(query: string): string | null {
  const c = classifyLookupQuery(query);
  if (c.type === 'registry_code') {
    const p = registryCodeProblem(c.normalised);
    return p ? `registry code ${p}` : null;
  }
  if (c.type === 'vat_number') {
    return vatChecksumOk(c.normalised.slice(2)) ? null : 'VAT number has a wrong check digit (last digit)';
  }
  if (c.type === 'name' && query.trim() === '') return 'is empty';
  return null;
}
