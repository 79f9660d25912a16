import type { MonitoringCategory } from '@company-data/core/schemas/events';
import { newToken } from '../write/ids';
import { ApiError } from '../http/errors';
import { IdStore } from '../write/id-store';

/** Monitoring lists of one account. Plain data, so the account state serialises as it is. */

export interface ListEntry {
  registry_code: string;
  external_ref: string | null;
  /** null: follows the list's categories. */
  categories: MonitoringCategory[] | null;
  /** Virtual ms; changes that happened earlier are not reported for this entry. */
  added_at: number;
}

export interface MonitoringList {
  id: string;
  name: string;
  /** null or empty: every category. */
  categories: MonitoringCategory[] | null;
  created_at: number;
  companies: Record<string, ListEntry>;
}

export interface AddInput {
  add: Array<{ registry_code: string; external_ref?: string; categories?: MonitoringCategory[] }>;
  replace?: boolean;
}

const iso = (ms: number) => new Date(ms).toISOString();
const orNull = <T>(a: T[] | null | undefined): T[] | null => (a && a.length ? a : null);

export function listView(l: MonitoringList) {
  return {
    id: l.id,
    name: l.name,
    categories: l.categories ?? [],
    companies: Object.keys(l.companies).length,
    created_at: iso(l.created_at),
  };
}

export function entryView(e: ListEntry, name: string | null) {
  return { registry_code: e.registry_code, name, external_ref: e.external_ref, categories: e.categories, added_at: iso(e.added_at) };
}

export class ListStore extends IdStore<MonitoringList> {
  constructor(readonly lists: Record<string, MonitoringList> = {}) {
    super(lists, 'list_id');
  }

  create(name: string, categories: MonitoringCategory[] | undefined, now: number): MonitoringList {
    return this.put({ id: newToken('lst'), name, categories: orNull(categories), created_at: now, companies: {} });
  }

  update(id: string, patch: { name?: string; categories?: MonitoringCategory[] }): MonitoringList {
    const l = this.get(id);
    if (patch.name !== undefined) l.name = patch.name;
    if (patch.categories !== undefined) l.categories = orNull(patch.categories);
    return l;
  }

  /**
   * Adds or updates entries; with replace, entries not in the request are removed. Existing entries keep
   * their added_at, so re-sending a list does not restart its monitoring.
   */
  addCompanies(id: string, input: AddInput, now: number, exists: (code: string) => boolean) {
    const l = this.get(id);
    const invalid: Array<{ registry_code: string; reason: string }> = [];
    const seen = new Set<string>();
    let added = 0;
    let updated = 0;
    for (const item of input.add) {
      if (!exists(item.registry_code)) {
        invalid.push({ registry_code: item.registry_code, reason: 'not_found' });
        continue;
      }
      seen.add(item.registry_code);
      const prev = l.companies[item.registry_code];
      if (prev) {
        if (item.external_ref !== undefined) prev.external_ref = item.external_ref;
        if (item.categories !== undefined) prev.categories = orNull(item.categories);
        updated++;
      } else {
        l.companies[item.registry_code] = {
          registry_code: item.registry_code,
          external_ref: item.external_ref ?? null,
          categories: orNull(item.categories),
          added_at: now,
        };
        added++;
      }
    }
    let removed = 0;
    if (input.replace) {
      for (const code of Object.keys(l.companies)) {
        if (!seen.has(code)) {
          delete l.companies[code];
          removed++;
        }
      }
    }
    return { list_id: l.id, added, updated, removed, total: Object.keys(l.companies).length, invalid };
  }

  entry(id: string, code: string): ListEntry {
    const e = this.get(id).companies[code];
    if (!e) throw new ApiError(404, 'not_found', `registry_code ${code} is not on list ${id}`, 'registry_code');
    return e;
  }

  updateEntry(id: string, code: string, patch: { categories?: MonitoringCategory[]; external_ref?: string | null }): ListEntry {
    const e = this.entry(id, code);
    if (patch.categories !== undefined) e.categories = orNull(patch.categories);
    if (patch.external_ref !== undefined) e.external_ref = patch.external_ref;
    return e;
  }

  removeEntry(id: string, code: string): void {
    this.entry(id, code);
    delete this.get(id).companies[code];
  }

  /** Every registry code on any list. */
  codes(): Set<string> {
    const out = new Set<string>();
    for (const l of Object.values(this.lists)) for (const code of Object.keys(l.companies)) out.add(code);
    return out;
  }

  /**
   * The lists that report a change of this company: they hold it since before the change and follow the
   * category (the entry's own categories win over the list's).
   */
  listsFor(code: string, category: MonitoringCategory, occurredAt: number) {
    const out: Array<{ id: string; name: string; external_ref: string | null }> = [];
    for (const l of this.all()) {
      const e = l.companies[code];
      if (!e || e.added_at > occurredAt) continue;
      const follows = e.categories ?? l.categories;
      if (follows && !follows.includes(category)) continue;
      out.push({ id: l.id, name: l.name, external_ref: e.external_ref });
    }
    return out;
  }
}
