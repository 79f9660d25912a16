/**
 * `company-data watch`: what a monitoring change writes into its company's row(s) of the watched sheet. Pure:
 * the CLI finds the rows and writes. Decisions in docs/decisions/watch.md, "Changes into their rows".
 */

import { changeSummary, type SummaryLang } from '../event-summary';
import { LOOKUP_COLUMN_PREFIX, matchColumn } from '../lookup';
import { companyStatuses, type CompanyStatusCode } from '../vocabulary';
import { isJsonObject } from '../json';

/** The tool's columns a change writes, beside enrich's. */
export const rowChangeColumns = {
  lastChange: `${LOOKUP_COLUMN_PREFIX}last_change`,
  changedAt: `${LOOKUP_COLUMN_PREFIX}changed_at`,
  lastEventId: `${LOOKUP_COLUMN_PREFIX}last_event_id`,
} as const;

type Rec = Record<string, unknown>;
const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined);

export interface RowChange {
  id: string;
  registryCode: string;
  detectedAt: string;
  /** Column name → cell text: the three change columns and the enriched fields the change makes stale. */
  cells: Record<string, string>;
}

/**
 * Enriched fields (enrich's company_data_match_<field> columns) a change makes stale, with their new text, as
 * enrich would write them now: the name after a rename, the status code and the register's label after a
 * status change, the address (and its postal code) after a move, no VAT number after deregistration.
 * Other kinds change nothing enrich writes (sections such as tax debt are refreshed by enrich's --mode older-than).
 */
export function staleFields(kind: string, details: Rec, lang: SummaryLang): Record<string, string> {
  const nw = text(details.new);
  switch (kind) {
    case 'name_changed':
      return nw ? { name: nw } : {};
    case 'status_changed': {
      if (!nw) return {};
      const label = Object.hasOwn(companyStatuses, nw) ? companyStatuses[nw as CompanyStatusCode][lang] : undefined;
      return { status: nw, ...(label ? { status_label: label } : {}) };
    }
    case 'address_changed': {
      if (!nw) return {};
      const postal = /\b(\d{5})\s*$/.exec(nw)?.[1];
      return { address: nw, ...(postal ? { postal_code: postal } : {}) };
    }
    case 'vat_deregistered':
      return { vat_number: '' };
    default:
      return {};
  }
}

/** The row cells of one monitoring.change event; undefined for anything else (no id, no company). */
export function rowChange(event: unknown, lang: SummaryLang): RowChange | undefined {
  if (!isJsonObject(event) || typeof event.id !== 'string' || (event.type !== undefined && event.type !== 'monitoring.change'))
    return undefined;
  const data = event.data;
  if (!isJsonObject(data) || !isJsonObject(data.company)) return undefined;
  const code = text(data.company.registry_code);
  if (!code) return undefined;
  const kind = typeof data.kind === 'string' ? data.kind : '';
  const details = isJsonObject(data.details) ? data.details : {};
  const detectedAt = text(data.detected_at) ?? text(event.created_at) ?? '';
  const sentence = changeSummary(
    {
      data: {
        company: { registry_code: code, name: text(data.company.name) ?? code },
        kind,
        ...(typeof data.tone === 'string' ? { tone: data.tone } : {}),
        details,
      },
    },
    lang,
    { lists: false },
  );
  const cells: Record<string, string> = {
    [rowChangeColumns.lastChange]: sentence,
    [rowChangeColumns.changedAt]: detectedAt,
    [rowChangeColumns.lastEventId]: event.id,
  };
  for (const [field, value] of Object.entries(staleFields(kind, details, lang))) cells[matchColumn(field)] = value;
  return { id: event.id, registryCode: code, detectedAt, cells };
}

/** The number in evt_<number>, for ordering ids of the same detection time; NaN for other ids. */
const idNumber = (id: string) => Number(/^evt_(\d+)$/.exec(id)?.[1] ?? NaN);

/** Whether change a happened after change b: detected_at, then the event id's number, then the id's text. */
export function isNewer(a: { detectedAt: string; id: string }, b: { detectedAt: string; id: string }): boolean {
  if (a.detectedAt !== b.detectedAt) return a.detectedAt > b.detectedAt;
  const na = idNumber(a.id);
  const nb = idNumber(b.id);
  if (!Number.isNaN(na) && !Number.isNaN(nb) && na !== nb) return na > nb;
  return a.id > b.id;
}

/**
 * One company's changes of a batch merged into the cells its rows get: every change's stale fields in the
 * order they happened (a later rename wins), and the newest change's sentence, time and id.
 */
export function mergeChanges(changes: readonly RowChange[]): RowChange {
  const ordered = [...changes].sort((a, b) => (isNewer(a, b) ? 1 : isNewer(b, a) ? -1 : 0));
  const newest = ordered[ordered.length - 1]!;
  const cells: Record<string, string> = {};
  for (const c of ordered) Object.assign(cells, c.cells);
  return { ...newest, cells };
}
