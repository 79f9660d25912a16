/**
 * `company-data watch`: which monitoring-list requests make a list hold exactly a sheet's companies. Pure
 * (no fs, timers or HTTP): the CLI sends what this plans. Decisions in docs/decisions/watch.md, "The sheet's companies and the list".
 */

import { lookupColumns, matchColumn, readQuery, statusWord } from '../lookup';
import { defaultFields, type SummaryField } from '../sheets/enrich/options';
import { headerName } from '../sheets/enrich/layout';

/** What a watch enriches new rows with: enrich's fields plus the registry code, which the list is made of. */
export const WATCH_FIELDS: readonly SummaryField[] = defaultFields.includes('registry_code')
  ? [...defaultFields]
  : [...defaultFields, 'registry_code'];

/** The spec's cap on companies per POST /monitoring/lists/{id}/companies. */
export const LIST_PART_SIZE = 2000;
/** The service's longest list name and external_ref (the operation table's rules). */
const MAX_NAME = 200;
const MAX_REF = 200;

/** Which sheet is watched: a Google sheet, or a file (by its name only: a local path is nobody else's business). */
export type WatchTarget = { kind: 'google'; spreadsheetId: string; sheet?: string } | { kind: 'file'; name: string; sheet?: string };

const fit = (s: string, max: number) => (s.length <= max ? s : `${s.slice(0, max - 1)}…`);

/** "Sheet 1AbC… / Leads": the list a watch keeps, found again by this name when its state is gone. */
export function defaultListName(target: WatchTarget): string {
  const where = target.kind === 'google' ? `Sheet ${target.spreadsheetId}` : `File ${target.name}`;
  return fit(`${where}${target.sheet ? ` / ${target.sheet}` : ''}`, MAX_NAME);
}

/**
 * The external_ref every company of the list carries, returned in every event: the sheet, never a row
 * (rows move). "gsheet:<spreadsheet id>#<sheet>" or "file:<name>#<sheet>".
 */
export function sheetExternalRef(target: WatchTarget): string {
  const base = target.kind === 'google' ? `gsheet:${target.spreadsheetId}` : `file:${target.name}`;
  return fit(`${base}${target.sheet ? `#${target.sheet}` : ''}`, MAX_REF);
}

/**
 * The registry codes of a sheet's matched rows, in sheet order, each once: rows enrich (or the n8n Lookup)
 * marked `matched`, by their company_data_match_registry_code, or by the key itself when that is a registry
 * code (a sheet enriched without the registry_code field). VAT groups name no single company; rows not
 * matched are not companies yet.
 */
export function matchedCodes(header: readonly string[], rows: readonly (readonly string[])[], keyCol?: number): string[] {
  const norm = header.map(headerName);
  const statusCol = norm.indexOf(lookupColumns.status);
  const codeCol = norm.indexOf(matchColumn('registry_code'));
  if (statusCol < 0) return [];
  const seen = new Set<string>();
  const codes: string[] = [];
  for (const row of rows) {
    if (statusWord(row[statusCol]) !== 'matched') continue;
    let code = codeCol >= 0 ? (row[codeCol] ?? '').trim() : '';
    if (code === '' && keyCol !== undefined) {
      const k = readQuery(row[keyCol] ?? '');
      if (k.status === 'send' && k.type === 'registry_code') code = k.send;
    }
    if (!/^\d{8}$/.test(code) || seen.has(code)) continue;
    seen.add(code);
    codes.push(code);
  }
  return codes;
}

export interface ListRequest {
  add: { registry_code: string; external_ref: string }[];
  replace: boolean;
}

export interface ListSyncPlan {
  requests: ListRequest[];
  added: string[];
  removed: string[];
  kept: string[];
  /** Companies a multi-part replace takes off the list for a moment and puts back (their monitoring restarts). */
  churned: number;
}

export interface ListSyncInput {
  /** The sheet's companies (matchedCodes). */
  desired: readonly string[];
  /** The list's members now, when known (a list just made: []); undefined: unknown, so the first part replaces. */
  current?: readonly string[];
  externalRef: string;
  /** Companies per request (default and at most 2,000, the spec's cap). */
  partSize?: number;
}

/**
 * The fewest requests that leave the list holding exactly `desired`:
 * - nothing to remove: only the companies to add, in parts (no request at all when nothing changed), so a
 *   company already watched is never touched and its monitoring never restarts;
 * - something to remove, and the whole set fits one request: one `replace: true`;
 * - else `replace: true` with the first part, then the rest added in parts. The replace takes every company of
 *   the later parts off the list until its part arrives: the parts are sent back to back, and the plan puts
 *   the companies already on the list first, so as few as possible are taken off (`churned`).
 * With `current` unknown, the first request replaces (the list's old members cannot be named otherwise).
 */
export function planListSync(input: ListSyncInput): ListSyncPlan {
  const size = Math.min(Math.max(1, Math.floor(input.partSize ?? LIST_PART_SIZE)), LIST_PART_SIZE);
  const desired = [...new Set(input.desired)];
  const entry = (registry_code: string) => ({ registry_code, external_ref: input.externalRef });
  const parts = (codes: string[], replaceFirst: boolean): ListRequest[] => {
    const out: ListRequest[] = [];
    for (let i = 0; i < codes.length; i += size) out.push({ add: codes.slice(i, i + size).map(entry), replace: replaceFirst && i === 0 });
    // Replacing with nothing empties the list: one request with an empty set.
    if (replaceFirst && out.length === 0) out.push({ add: [], replace: true });
    return out;
  };
  if (input.current === undefined) {
    const requests = parts(desired, true);
    return { requests, added: [], removed: [], kept: [], churned: Math.max(0, desired.length - size) };
  }
  const current = new Set(input.current);
  const want = new Set(desired);
  const kept = desired.filter((c) => current.has(c));
  const added = desired.filter((c) => !current.has(c));
  const removed = [...current].filter((c) => !want.has(c));
  if (removed.length === 0) return { requests: parts(added, false), added, removed, kept, churned: 0 };
  // Kept companies first: those within the first part stay on the list throughout.
  const ordered = [...kept, ...added];
  return {
    requests: parts(ordered, true),
    added,
    removed,
    kept,
    churned: Math.max(0, kept.length - size),
  };
}
