import { SheetsError } from '../errors';

/**
 * Which spreadsheet: its ID, or its address as the browser shows it. People copy the address bar, so
 * every address Google shows for a spreadsheet is taken, and nothing else:
 *
 * - docs.google.com/spreadsheets/d/<ID>, also with /u/<N>/ (signed in to several accounts) and /a/<domain>/
 *   (old Google Workspace addresses) before /d/;
 * - drive.google.com/…/d/<ID> (Drive's "Copy link");
 * - each followed by anything Google appends: /edit, /view, ?usp=sharing, #gid=<N>, …; the scheme may be left out.
 *
 * Refused with the rule named: other files' addresses (Docs, Slides), the published-to-web address
 * (…/d/e/<publish id>, which holds no spreadsheet ID), and a bare value with characters no ID has.
 *
 * The rules are regular-expression sources because n8n's resource locator takes strings: it tests a
 * mode's validation as ^…$ and takes the one capturing group of extractValue; spreadsheetIdOf uses the same.
 */

/** Google's spreadsheet IDs: letters, digits, - and _ (44 of them today; short ones are kept for test doubles). */
export const SPREADSHEET_ID_PATTERN = '[0-9A-Za-z_-]+';

/** A bare ID as n8n validates it (it adds ^…$): blanks around it are dropped, as by spreadsheetIdOf. */
export const SPREADSHEET_ID_VALIDATION = `\\s*${SPREADSHEET_ID_PATTERN}\\s*`;

const SEGMENT = '[^\\/?#\\s]+';
/** Everything before the ID; the lookahead refuses the published-to-web address (/d/e/…). */
const BEFORE_ID =
  '(?:https?:\\/\\/)?' +
  `(?:docs\\.google\\.com(?:\\/a\\/${SEGMENT})?\\/spreadsheets(?:\\/u\\/\\d+)?|drive\\.google\\.com(?:\\/${SEGMENT})*?)` +
  '\\/d\\/(?!e\\/)';

/** An address, from its start to the ID: n8n's extractValue (exactly one group: the ID). */
export const SPREADSHEET_URL_PATTERN = `^\\s*${BEFORE_ID}(${SPREADSHEET_ID_PATTERN})`;

/** The whole address (n8n adds ^…$): the ID, then nothing or what Google appends after /, ? or #. */
export const SPREADSHEET_URL_VALIDATION = `\\s*${BEFORE_ID}(${SPREADSHEET_ID_PATTERN})(?:[\\/?#]\\S*)?\\s*`;

const wholeAddress = new RegExp(`^${SPREADSHEET_URL_VALIDATION}$`);
const wholeId = new RegExp(`^${SPREADSHEET_ID_PATTERN}$`);

/** What to do, whichever rule was broken. */
const SPREADSHEET_HINT =
  'Paste the address of the spreadsheet from the browser (https://docs.google.com/spreadsheets/d/…), or its ID (the part after /d/).';

const shown = (v: string) => `"${v.length > 80 ? `${v.slice(0, 80)}…` : v}"`;

function brokenRule(text: string): string {
  if (!text) return "is empty: give the spreadsheet's address or its ID";
  if (/\/d\/e\//.test(text))
    return `${shown(text)} is a published-to-web address, which holds no spreadsheet ID: open the spreadsheet and copy the address from the browser`;
  if (/[/.:]/.test(text))
    return `${shown(text)} is not a Google Sheets address: it must look like https://docs.google.com/spreadsheets/d/ID/…`;
  return `${shown(text)} is not a spreadsheet ID: an ID has only letters, digits, - and _ (the part after /d/ in its address)`;
}

/**
 * The spreadsheet ID in an address or an ID (surrounding blanks ignored); else a SheetsError naming the
 * spreadsheet setting and the rule broken, which each door words with its name for it.
 */
export function spreadsheetIdOf(value: string): string {
  const text = value.trim();
  const id = wholeAddress.exec(text)?.[1] ?? (wholeId.test(text) ? text : undefined);
  if (id) return id;
  throw new SheetsError({ field: 'spreadsheet', rule: brokenRule(text), code: 'invalid_spreadsheet', hint: SPREADSHEET_HINT });
}
