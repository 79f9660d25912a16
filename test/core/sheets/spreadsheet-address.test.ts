import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { engineFieldNames, SheetsError, wordSheetsError } from '@company-data/core/sheets/errors';
import {
  SPREADSHEET_ID_PATTERN,
  SPREADSHEET_URL_PATTERN,
  SPREADSHEET_URL_VALIDATION,
  spreadsheetIdOf,
} from '@company-data/core/sheets/google/spreadsheet-address';
import { spreadsheetIdOf as cliSpreadsheetIdOf } from '../../../packages/company-data/src/sheets/spreadsheet-address';
import { inCliWords } from '../../../packages/company-data/src/cli/sheets-errors';
import { accepted, refused } from '../../support/spreadsheet-addresses';

describe('a spreadsheet address or ID (the CLI --spreadsheet and the core rule)', () => {
  it.each(accepted)('takes %j', (value, id) => {
    expect(spreadsheetIdOf(value)).toBe(id);
    expect(cliSpreadsheetIdOf(value)).toBe(id);
  });

  it.each(refused)('refuses %j naming the field and the rule', (value, rule) => {
    let error: unknown;
    try {
      cliSpreadsheetIdOf(value);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SheetsError);
    const v = error as SheetsError;
    expect(v.field).toBe('spreadsheet');
    expect(v.code).toBe('invalid_spreadsheet');
    const worded = wordSheetsError(v, { ...engineFieldNames, spreadsheet: 'Spreadsheet' });
    expect(worded.rule).toMatch(rule);
    expect(worded.message).toMatch(/^Spreadsheet: /);
    expect(worded.hint).toMatch(/docs\.google\.com\/spreadsheets\/d\//);
    expect(v.message).toMatch(/^spreadsheet: /);
    // The CLI's words: the flag, the rule, what to do.
    expect(inCliWords(v)).toMatch(/^spreadsheet: .*\. Paste the address of the spreadsheet/);
  });

  it('shortens a long refused value in the message', () => {
    expect(() => spreadsheetIdOf('x '.repeat(500))).toThrow(/^spreadsheet: "(x ){40}…" is not a spreadsheet ID/);
  });

  it('has exactly one capturing group in the patterns n8n reads (its extractValue requires it)', () => {
    for (const src of [SPREADSHEET_URL_PATTERN, SPREADSHEET_URL_VALIDATION]) expect(new RegExp(`${src}|`).exec('')!.length).toBe(2);
    expect(new RegExp(`${SPREADSHEET_ID_PATTERN}|`).exec('')!.length).toBe(1);
  });
});

const idArb = fc.stringMatching(/^[0-9A-Za-z_-]{10,60}$/);
const addressArb = fc.tuple(
  fc.constantFrom('https://', 'http://', ''),
  fc.constantFrom(
    'docs.google.com/spreadsheets/d/',
    'docs.google.com/spreadsheets/u/0/d/',
    'docs.google.com/spreadsheets/u/3/d/',
    'docs.google.com/a/example.ee/spreadsheets/d/',
    'drive.google.com/file/d/',
  ),
  idArb,
  fc.constantFrom('', '/', '/edit', '/edit#gid=0', '/edit?usp=sharing', '?usp=drive_link', '#gid=42', '/view?usp=sharing&ouid=1#gid=7'),
);

describe('property: every address Google shows gives its ID, by the core, the CLI and n8n alike', () => {
  it('the ID comes back from any address form and suffix', () => {
    fc.assert(
      fc.property(addressArb, ([scheme, prefix, id, suffix]) => {
        const address = `${scheme}${prefix}${id}${suffix}`;
        expect(spreadsheetIdOf(address)).toBe(id);
        expect(new RegExp(`^${SPREADSHEET_URL_VALIDATION}$`).test(address)).toBe(true);
        expect(new RegExp(SPREADSHEET_URL_PATTERN).exec(address)?.[1]).toBe(id);
        expect(spreadsheetIdOf(id)).toBe(id);
      }),
    );
  });

  it('any text either gives an ID (letters, digits, - and _) or is refused with a SheetsError', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.string({ unit: 'grapheme' }),
          addressArb.map((a) => a.join('').replace(/\//g, ' ')),
        ),
        (text) => {
          try {
            expect(spreadsheetIdOf(text)).toMatch(/^[0-9A-Za-z_-]+$/);
          } catch (e) {
            expect(e).toBeInstanceOf(SheetsError);
          }
        },
      ),
    );
  });
});
