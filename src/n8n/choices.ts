import type { ParamOption } from '../core/params';
import { statusOptions } from '../core/params';

/**
 * Lists a user picks from where the operation table keeps free text or plain codes. The service's
 * rule stays the table's; this is only how the choices read in n8n.
 */

// Counties as registered (src/reference/estonian-registry.md). Free text let a typo such as
// "Harjumaa" match nothing without a word of warning; an expression can still give any value.
const counties = ['Harju', 'Hiiu', 'Ida-Viru', 'Jõgeva', 'Järva', 'Lääne', 'Lääne-Viru', 'Põlva', 'Pärnu', 'Rapla', 'Saare', 'Tartu', 'Valga', 'Viljandi', 'Võru'];
export const countyOptions: readonly ParamOption[] = counties.map((c) => ({ value: `${c} maakond`, label: c }));

/** Choices by parameter name, wherever the parameter sits (top level, Options, saved-search filters). */
export const choicesByParam: Readonly<Record<string, readonly ParamOption[]>> = {
  county: countyOptions,
  status: statusOptions,
};

/** Profile sections named as the Assets node names its operations, so one thing has one name. */
export const labelOverrides: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  include: { announcements: 'Official Notices', properties: 'Real Estate' },
};

const SMALL_WORDS = new Set(['a', 'an', 'and', 'as', 'at', 'by', 'for', 'from', 'in', 'of', 'on', 'or', 'per', 'the', 'to']);

/** n8n writes option names in Title Case: "Annual reports" → "Annual Reports". */
export function titleCase(label: string): string {
  return label
    .split(' ')
    .map((w, i) => (i > 0 && SMALL_WORDS.has(w.toLowerCase()) ? w.toLowerCase() : w ? w[0]!.toUpperCase() + w.slice(1) : w))
    .join(' ');
}
