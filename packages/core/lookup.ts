import type { LookupResult } from './schemas/company';
import { classifyLookupQuery, lookupQueryProblem, type LookupQueryType } from './validation';
import { QUERY_TOO_SHORT } from './vocabulary';

/**
 * The lookup's vocabulary, written once for the client's bulkLookup, the Sheets enrich and the n8n
 * Lookup: how a query is read before anything is sent, its dedupe key, and the status word of a row.
 */

/**
 * - matched: at least one company (for a VAT number without a current holder: its last holder)
 * - no_match: searched, nothing found
 * - vat_group: a VAT number held by more than one company now (raise the limit to get all)
 * - skipped: a name without a word of 3+ characters; the service would not search it (never sent)
 * - invalid: empty, or a code form that cannot exist (bad check digit); never sent
 * - error: the request carrying the query failed
 */
export type LookupStatus = 'matched' | 'no_match' | 'vat_group' | 'skipped' | 'invalid' | 'error';

/** Statuses that settle a query for good: looking it up again would give the same answer. */
export const FINAL_LOOKUP_STATUSES: ReadonlySet<LookupStatus> = new Set<LookupStatus>([
  'matched',
  'no_match',
  'vat_group',
  'skipped',
  'invalid',
]);

/** Reason of a skipped query, as the service words it (machine word, in its answers): packages/core/vocabulary.ts. */
export { QUERY_TOO_SHORT };

/**
 * Why a query was skipped, for the people who read the reason column in n8n and the status column of
 * a sheet: the one sentence bulkLookup's reason, the n8n Lookup and enrich all show, whoever skipped
 * (the client before sending, or the service answering query_too_short). The status word stays skipped.
 */
export const SKIPPED_REASON = 'needs a word of 3 or more characters';

export interface LookupKey {
  /** Two inputs with the same key get the same answer. */
  key: string;
  type: LookupQueryType;
  /** What is sent: the registry code, the VAT number as EE + 9 digits, or the name with white space collapsed. */
  send: string;
  skipped?: typeof QUERY_TOO_SHORT;
}

/**
 * The dedupe key: the registry code, the normalised VAT number (EE + 9 digits), or the name trimmed,
 * with white space collapsed and case folded.
 */
export function lookupKey(query: string): LookupKey {
  const c = classifyLookupQuery(query);
  if (c.type !== 'name') return { key: `${c.type}:${c.normalised}`, type: c.type, send: c.normalised };
  const send = c.normalised.replace(/\s+/g, ' ');
  return { key: `name:${send.normalize('NFC').toLocaleLowerCase('et')}`, type: 'name', send, skipped: c.skipped };
}

/** How one input is read before anything is sent. */
export type QueryReading =
  | { status: 'invalid'; reason: string }
  | ({ status: 'skipped'; reason: typeof SKIPPED_REASON } & LookupKey)
  | ({ status: 'send' } & LookupKey);

/** Reads one input: invalid and too-short inputs are settled here, for free; the rest is sent by key. */
export function readQuery(query: unknown): QueryReading {
  if (typeof query !== 'string') return { status: 'invalid', reason: 'is not text' };
  const problem = lookupQueryProblem(query);
  if (problem) return { status: 'invalid', reason: problem };
  const k = lookupKey(query);
  if (k.skipped) return { status: 'skipped', reason: SKIPPED_REASON, ...k };
  return { status: 'send', ...k };
}

/** Whether two inputs would be answered alike (" 12417834 " and 12417834, ee… and EE…). */
export function sameQuery(a: string, b: string): boolean {
  if (a === b) return true;
  const norm = (q: string) => {
    const r = readQuery(q);
    return r.status === 'invalid' ? q.trim() : r.key;
  };
  return norm(a) === norm(b);
}

/** The status word of an answer, and its detail for a person (VAT holders, the skip reason). */
export function answerStatus(a: LookupResult): { status: Exclude<LookupStatus, 'invalid' | 'error'>; detail?: string } {
  // The service's word for a name too short is said in the one sentence; another word is shown as the service gave it.
  if (a.skipped) return { status: 'skipped', detail: a.skipped === QUERY_TOO_SHORT ? SKIPPED_REASON : String(a.skipped) };
  if (!Array.isArray(a.matches) || a.matches.length === 0) return { status: 'no_match' };
  if (a.type === 'vat_number' && (a.vat_holders ?? 1) > 1) return { status: 'vat_group', detail: `${a.vat_holders} holders` };
  if (a.type === 'vat_number' && a.vat_holders === 0) return { status: 'matched', detail: 'last VAT holder' };
  return { status: 'matched' };
}

/** "status" or "status: detail", the text a sheet's status column shows. */
export function statusText(status: LookupStatus, detail?: string): string {
  return detail ? `${status}: ${detail}` : status;
}

const STATUS_WORDS: ReadonlySet<string> = new Set<LookupStatus>(['matched', 'no_match', 'vat_group', 'skipped', 'invalid', 'error']);

/** The status word of a status cell ("vat_group: 3 holders" → vat_group); undefined when it holds none (typed, empty). */
export function statusWord(text: unknown): LookupStatus | undefined {
  if (typeof text !== 'string') return undefined;
  const word = text.split(':', 1)[0]!.trim();
  return STATUS_WORDS.has(word) ? (word as LookupStatus) : undefined;
}

/**
 * The columns (n8n fields) a lookup adds, named once for the n8n Lookup and the Sheets enrich, so a
 * sheet enriched by either reads alike. The prefix keeps them apart from a person's own columns: a
 * sheet's "Name" or "Status" is never taken for one of them.
 */
export const LOOKUP_COLUMN_PREFIX = 'company_data_';
export const lookupColumns = {
  status: `${LOOKUP_COLUMN_PREFIX}status`,
  query: `${LOOKUP_COLUMN_PREFIX}query`,
  queryType: `${LOOKUP_COLUMN_PREFIX}query_type`,
  reason: `${LOOKUP_COLUMN_PREFIX}reason`,
  vatHolders: `${LOOKUP_COLUMN_PREFIX}vat_holders`,
  matchCount: `${LOOKUP_COLUMN_PREFIX}match_count`,
  /** The best match: an object, or (flat) one column per field through matchColumn. */
  match: `${LOOKUP_COLUMN_PREFIX}match`,
  matches: `${LOOKUP_COLUMN_PREFIX}matches`,
  enrichedAt: `${LOOKUP_COLUMN_PREFIX}enriched_at`,
} as const;

/** The column of one field of the best match: company_data_match_name, company_data_match_registry_code, ... */
export function matchColumn(field: string): string {
  return `${lookupColumns.match}_${field}`;
}

/** What an item or row carries from an earlier lookup: its status, the query it was looked up with, and when. */
export interface PriorLookup {
  status?: unknown;
  query?: unknown;
  at?: unknown;
}

/**
 * The one "needs a lookup" rule (n8n Lookup, enrich, and any caller of the library): an item already
 * looked up is skipped only when its stored status is final for the SAME query it holds now, and, with
 * maxAgeMs, the answer is younger than that (an unreadable time counts as old). A changed query, an
 * error status or no recorded query all mean: look up again, so old data never sticks to a new key.
 */
export function alreadyLookedUp(prior: PriorLookup | undefined, query: string, maxAgeMs: number | undefined, nowMs: number): boolean {
  if (!prior) return false;
  const status = statusWord(prior.status);
  if (!status || !FINAL_LOOKUP_STATUSES.has(status)) return false;
  if (prior.query === undefined || prior.query === null || !sameQuery(String(prior.query), query)) return false;
  if (maxAgeMs === undefined) return true;
  const at = Date.parse(String(prior.at ?? ''));
  return at + maxAgeMs > nowMs;
}
