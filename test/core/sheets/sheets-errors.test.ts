import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import { describe, expect, it } from 'vitest';
import { findKeyColumn } from '@company-data/core/sheets';
import { say, setting, SheetsError, sheetsFields, wordSheetsError, engineFieldNames } from '@company-data/core/sheets/errors';
import { sheetsError } from '@company-data/core/sheets/google/sheets-errors';
import { CLI_FLAGS, inCliWords } from '../../../packages/company-data/src/cli/sheets-errors';
import { NODE_FIELDS, toSheetsNodeError } from '../../../src/n8n/google-sheets/errors';
import { googleSheetsNode } from '../../support/n8n-google-context';

const caught = (f: () => unknown): SheetsError => {
  try {
    f();
  } catch (e) {
    if (e instanceof SheetsError) return e;
    throw e;
  }
  throw new Error('nothing was thrown');
};

describe('typed Sheets errors: the engine names a setting, each door words it', () => {
  it('every door names every setting', () => {
    for (const names of [CLI_FLAGS, NODE_FIELDS, engineFieldNames]) expect(Object.keys(names).sort()).toEqual([...sheetsFields].sort());
  });

  it('no key column: the field, the rule, what to do; worded by the CLI and the node', () => {
    const e = caught(() => findKeyColumn(['Lead', 'Owner']));
    expect(e).toMatchObject({ code: 'no_key_column', field: 'column' });
    expect(e.message).toBe('column: no registry code, VAT number or name header found (headers: Lead, Owner)');
    expect(inCliWords(e)).toBe(
      'column: no registry code, VAT number or name header found (headers: Lead, Owner). Set --column to the header of the column holding them.',
    );
    const shown = toSheetsNodeError(googleSheetsNode, e);
    expect(shown).toBeInstanceOf(NodeOperationError);
    expect(shown.message).toBe('Key Column: no registry code, VAT number or name header found (headers: Lead, Owner)');
    expect(shown.description).toBe('Set Key Column to the header of the column holding them.');
    const sidebar = { ...engineFieldNames, column: 'Company column' };
    expect(wordSheetsError(e, sidebar).hint).toBe('Set Company column to the header of the column holding them.');
  });

  it('what a user typed is text, never a reference to a setting', () => {
    const typed = { field: 'sheet' };
    const e = new SheetsError({
      code: 'x',
      field: 'column',
      rule: say`no header ${typed} ${'{column}'}`,
      hint: say`Set ${setting('column')}.`,
    });
    expect(wordSheetsError(e, NODE_FIELDS)).toEqual({
      message: 'Key Column: no header [object Object] {column}',
      rule: 'no header [object Object] {column}',
      hint: 'Set Key Column.',
    });
  });

  it("Google's refusal keeps its words in every door and carries Google's status and reason", () => {
    const body = { message: 'The caller does not have permission', status: 'PERMISSION_DENIED' };
    const e = sheetsError(403, body, 'HTTP 403', { spreadsheetId: 'abc', account: 'bot@x.iam.gserviceaccount.com' });
    expect(e).toMatchObject({ status: 403, reason: 'PERMISSION_DENIED', code: 'google_refused', protectedCell: false });
    expect(e.field).toBeUndefined();
    expect(e.message).toMatch(
      /^Google Sheets 403 PERMISSION_DENIED: The caller does not have permission \(share the spreadsheet with bot@/,
    );
    expect(inCliWords(e)).toBe(e.message);
    const shown = toSheetsNodeError(googleSheetsNode, e);
    expect(shown).toBeInstanceOf(NodeApiError);
    expect(shown.message).toBe(e.message);
    expect((shown as NodeApiError).httpCode).toBe('403');
    expect(e.toJSON()).toMatchObject({ name: 'SheetsError', code: 'google_refused', status: 403, reason: 'PERMISSION_DENIED' });
  });
});
