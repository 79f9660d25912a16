import { changeSummary, matchCompanySummary, type SummaryLang } from '../../event-summary';
import type { MonitoringChangeEvent, SearchMatchesEvent, WebhookEvent } from '../../schemas/events';
import { CellValueError } from '../table/table';
import { isJsonObject } from '../../json';

/**
 * Columns of the events sheet; a search.matches event gives one row per company. `summary` is last so
 * a sheet made before it existed gets it as one more column at the end, its old rows untouched.
 */
export const EVENT_COLUMNS = [
  'event_id',
  'type',
  'created_at',
  'registry_code',
  'company_name',
  'category',
  'kind',
  'tone',
  'details',
  'lists',
  'search',
  'match_date',
  'legal_form',
  'status',
  'registered_on',
  'address',
  'activity_code',
  'employees',
  'revenue',
  'tax_debt',
  'rating',
  'summary',
] as const;
export type Column = (typeof EVENT_COLUMNS)[number];
/** One row of an event: column → text. */
export type EventRecord = Partial<Record<Column, string>>;

export const TOOL_COLUMNS: ReadonlySet<string> = new Set(EVENT_COLUMNS);

const text = (v: unknown) => (v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));

/**
 * Rows of one event as column → text (the summary in lang); webhook.test and unknown types give none.
 * Every value goes through text(): a field of another type in a malformed event would reach the table as is.
 */
export function eventRecords(event: WebhookEvent | { id: string; type: string }, lang: SummaryLang = 'en'): EventRecord[] {
  if (event.type === 'monitoring.change') {
    const e = event as MonitoringChangeEvent;
    return [
      {
        event_id: e.id,
        type: e.type,
        created_at: text(e.created_at),
        registry_code: e.data.company.registry_code,
        company_name: text(e.data.company.name),
        category: text(e.data.category),
        kind: text(e.data.kind),
        tone: text(e.data.tone),
        details: text(e.data.details),
        lists: (e.data.lists ?? []).map((l) => (l.external_ref ? `${text(l.name)} (${text(l.external_ref)})` : text(l.name))).join('; '),
        summary: changeSummary(e, lang),
      },
    ];
  }
  if (event.type === 'search.matches') {
    const e = event as SearchMatchesEvent;
    return e.data.companies.map((c) => ({
      event_id: e.id,
      type: e.type,
      created_at: text(e.created_at),
      registry_code: c.registry_code,
      company_name: text(c.name),
      search: text(e.data.search.name),
      match_date: text(e.data.date),
      legal_form: text(c.legal_form),
      status: text(c.status),
      registered_on: text(c.registered_on),
      address: text(c.address),
      activity_code: text(c.activity_code),
      employees: text(c.employees),
      revenue: text(c.revenue),
      tax_debt: text(c.tax_debt),
      rating: text(c.rating),
      summary: matchCompanySummary(e.data.search, c, lang),
    }));
  }
  return [];
}

/**
 * An event id or registry code as a row's identity: printable ASCII, at most 200 characters. The
 * spec's are far shorter (evt_<number>, evt_<search>_<date>_<part>, 8 digits); a longer one would be
 * cut in the cell and no longer match itself, and a stub row of identities alone must fit any sheet.
 */
export const isIdentity = (v: unknown): v is string => typeof v === 'string' && /^[\x21-\x7e]{1,200}$/.test(v);

/** The field that keeps an event's rows from being built, or undefined. Other fields are shown as they come. */
function shapeProblem(event: { type: string; data?: unknown }): string | undefined {
  const d = event.data;
  if (!isJsonObject(d)) return 'data is missing';
  if (event.type === 'monitoring.change') {
    if (!isJsonObject(d.company) || !isIdentity(d.company.registry_code)) return 'data.company.registry_code is missing or not a code';
    if (d.lists !== undefined && d.lists !== null && (!Array.isArray(d.lists) || !d.lists.every(isJsonObject)))
      return 'data.lists is not a list';
    return undefined;
  }
  if (!Array.isArray(d.companies)) return 'data.companies is not a list';
  const bad = d.companies.findIndex((c) => !isJsonObject(c) || !isIdentity(c.registry_code));
  if (bad >= 0) return `data.companies.${bad}.registry_code is missing or not a code`;
  if (!isJsonObject(d.search)) return 'data.search is missing';
  return undefined;
}

/** The rows of an event, or why they cannot be built (a malformed payload). */
export function readEvent(event: { id: string; type: string }, lang: SummaryLang = 'en'): { records: EventRecord[] } | { problem: string } {
  if (event.type !== 'monitoring.change' && event.type !== 'search.matches') return { records: [] };
  const problem = shapeProblem(event);
  if (problem) return { problem };
  try {
    return { records: eventRecords(event, lang) };
  } catch (e) {
    return { problem: `it could not be read (${(e as Error).message})` };
  }
}

/** The row of an event whose rows cannot be built: its id, and the event as received in details. */
export function unreadableRecord(event: { id: string; type: unknown; created_at?: unknown }, problem: string): EventRecord {
  return {
    event_id: event.id,
    type: isIdentity(event.type) ? event.type : '',
    created_at: isIdentity(event.created_at) ? event.created_at : '',
    details: text(event),
    summary: `Not readable: ${problem}. The event as received is in details; report it to the service with this event_id.`,
  };
}

/** What is left of a row the sheet refused: identities only, printable ASCII, which every sheet takes. */
export function stubRecord(r: EventRecord): EventRecord {
  return {
    event_id: r.event_id ?? '',
    type: isIdentity(r.type) ? r.type : '',
    created_at: isIdentity(r.created_at) ? r.created_at : '',
    registry_code: r.registry_code ?? '',
    summary:
      'Not written in full: the sheet refused a value of this event (the events-to-sheet log says which). The service has the whole event under this event_id.',
  };
}

/** The table refused a value as such (nothing was written): Google's 400, a character a CSV's encoding lacks. */
export function refusesValue(e: unknown): boolean {
  return e instanceof CellValueError || (e as { status?: unknown })?.status === 400;
}

export const rowKey = (eventId: string, registryCode: string) => `${eventId}|${registryCode}`;
