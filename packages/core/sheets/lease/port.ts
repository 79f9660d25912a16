/**
 * The port of the sheet lease (lease.ts): one writer per sheet across doors and machines, held by the
 * spreadsheet itself. Each door fills it over its own access to the spreadsheet: the Sheets REST table
 * (google/sheets-rest-lease.ts; the CLI and the n8n node), the add-on over SpreadsheetApp. The algorithm
 * (take, renew, take over when expired, release) lives in the core, once; an adapter only stores.
 *
 * The lease is a hidden sheet of its own, named leaseSheetName(the locked sheet's title), whose cells are
 * leaseCells(record): one cell of JSON text (write it as text: RAW / stringValue over REST, '@' number format
 * in Apps Script), read back with readLeaseCells. The sheet's grid is that one cell (Google's cell limit).
 *
 * What an implementation MUST guarantee (the lease is only as safe as these):
 *  - create(name, record): makes the sheet `name`, hidden, holding leaseCells(record), in ONE atomic step
 *    (Sheets REST: one spreadsheets.batchUpdate of addSheet + updateCells; never a sheet without its
 *    record, as a contender would take an empty sheet for a broken lease), and only when the spreadsheet
 *    has no sheet of that title (Google compares titles without case). Of any number of callers at once,
 *    at most ONE gets an id. Answers the new sheet's id, or undefined when a sheet of that title is there
 *    (whoever made it, also an earlier attempt of this same call whose answer was lost: the caller reads).
 *    Every other failure (no access, a view-only user, quota after retries) is thrown.
 *  - read(name): the sheet of that title as it is now: its id (the id of THAT sheet, read in the same
 *    request as its cells, or read before them: never an id read after the cells, which could belong to
 *    a sheet made since) and readLeaseCells of its cells; undefined when there is no such sheet.
 *  - renew(id, record): writes leaseCells(record) into the sheet of that id, ONLY if that very sheet is
 *    still there (Sheets REST: updateCells by sheetId, refused by Google when the id is gone). Never
 *    writes by title: a sheet of the same title made since is someone else's lease. False when the
 *    sheet of that id is gone.
 *  - remove(id): deletes the sheet of that id. True when this call deleted it; false when no sheet has
 *    that id (already deleted). Of any number of callers at once with one id, at most ONE gets true.
 *  - ids are opaque strings to the algorithm; a new sheet never reuses the id of one deleted while a
 *    run may still hold it (Sheets REST picks random 31-bit ids).
 * The adapter keeps no timers and no state between calls; it may retry a call that Google did not
 * process (429, a refused connection), never turn a refusal into a success.
 */

/** What a lease sheet holds. Times are milliseconds since the epoch by the HOLDER's clock. */
export interface LeaseRecord {
  /** This holding's random id: the same through renewals, another one for every take. */
  holder: string;
  /** Who holds it, for messages: "company-data enrich (host, pid 123)". Never a secret or a token. */
  who: string;
  /** When taken, when renewed last, and until when it holds unless renewed (holder's clock). */
  takenAt: number;
  renewedAt: number;
  expiresAt: number;
  /** Optional, opaque to other doors: where the holder runs (the CLI: host and pid), so its own door can tell it is gone. */
  origin?: string;
}

/** A lease sheet as read: its id, and its record (undefined when its cells hold no lease: a user edited them). */
export interface LeaseSlot {
  id: string;
  record: LeaseRecord | undefined;
}

/** The storage of leases inside one spreadsheet. See the guarantees above. */
export interface LeaseSheets {
  create(name: string, record: LeaseRecord): Promise<string | undefined>;
  read(name: string): Promise<LeaseSlot | undefined>;
  renew(id: string, record: LeaseRecord): Promise<boolean>;
  remove(id: string): Promise<boolean>;
}

/** The first cell of a lease sheet: says what it is to a person who unhides it. */
export const LEASE_MARKER = 'company_data_lease';

/** The lease sheet of a sheet: one per locked sheet, so enriching one sheet and writing events to another go side by side. */
export function leaseSheetName(sheetTitle: string): string {
  // Google limits sheet titles to 100 characters; a long title is cut (its lease is still its own in practice).
  return `${LEASE_MARKER} ${sheetTitle}`.slice(0, 100);
}

/** Whether a sheet title is a lease sheet's (left out where sheets are listed for a person). */
export function isLeaseSheet(title: string): boolean {
  return title.toLowerCase().startsWith(`${LEASE_MARKER} `);
}

/**
 * The cells of a lease sheet: ONE cell (A1) holding the record as JSON, so the sheet takes one cell of
 * Google's 10,000,000 (a spreadsheet near the limit still takes a lease), with a note for a person who
 * unhides it and the end as ISO text beside the exact milliseconds.
 */
export function leaseCells(r: LeaseRecord): string[][] {
  const { holder, who, takenAt, renewedAt, expiresAt, origin } = r;
  const note = 'A run of company-data writes the sheet this is named after; deleted when it ends. Do not edit.';
  return [
    [JSON.stringify({ [LEASE_MARKER]: note, holder, who, takenAt, renewedAt, expiresAt, ends: new Date(expiresAt).toISOString(), origin })],
  ];
}

/** The record in a lease sheet's cells (as read unformatted), or undefined when they hold none (a person edited them). */
export function readLeaseCells(values: readonly (readonly unknown[])[] | undefined): LeaseRecord | undefined {
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(String(values?.[0]?.[0] ?? '')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (!o || typeof o !== 'object' || !(LEASE_MARKER in o)) return undefined;
  const { holder, who, takenAt, renewedAt, expiresAt, origin } = o;
  const time = (t: unknown) => typeof t === 'number' && Number.isSafeInteger(t);
  if (typeof holder !== 'string' || !holder || !time(takenAt) || !time(renewedAt) || !time(expiresAt)) return undefined;
  return {
    ...(typeof origin === 'string' ? { origin } : {}),
    holder,
    who: typeof who === 'string' ? who : '',
    takenAt: takenAt as number,
    renewedAt: renewedAt as number,
    expiresAt: expiresAt as number,
  };
}
