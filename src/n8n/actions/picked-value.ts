import { ValidationError } from '@company-data/core/errors';
import type { PickerKey } from '@company-data/core/params';
import { pickers } from '../descriptions/pickers';

/** A picked value at run time: the id the user chose, typed, or gave as a page link. */

interface LocatorValue {
  __rl: true;
  mode?: string;
  value?: unknown;
}
const isLocator = (v: unknown): v is LocatorValue => typeof v === 'object' && v !== null && (v as { __rl?: unknown }).__rl === true;

/**
 * The id a resourceLocator value names. A link is read here rather than through n8n's extractValue, so
 * the same rule holds wherever the node runs (and as an AI tool, where an agent fills the value).
 * A wrong id is left for the operation's own rule, which also checks the registry code's check digit.
 */
export function pickedValue(key: PickerKey, param: string, raw: unknown): unknown {
  if (!isLocator(raw)) return raw;
  const value = typeof raw.value === 'string' ? raw.value.trim() : raw.value;
  const url = pickers[key].url;
  if (raw.mode !== 'url' || !url || typeof value !== 'string' || value === '') return value;
  const m = new RegExp(url.extract).exec(value);
  if (!m) throw new ValidationError({ field: param, rule: url.message.replace(/^Paste/, 'must be') });
  return m[1];
}
