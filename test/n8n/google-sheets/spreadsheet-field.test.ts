import type { INode, INodeParameterResourceLocator, INodeType } from 'n8n-workflow';
import { NodeHelpers, NodeOperationError } from 'n8n-workflow';
import { describe, expect, it } from 'vitest';
// n8n's own extractValue, as getNodeParameter(…, { extractValue: true }) runs it.
import { extractValue } from 'n8n-core/dist/execution-engine/node-execution-context/utils/extract-value';
import { CompanyDataGoogleSheets } from '../../../nodes/CompanyDataGoogleSheets/CompanyDataGoogleSheets.node';
import { spreadsheetProperty } from '../../../src/n8n/google-sheets/descriptions/common';
import { toSheetsNodeError } from '../../../src/n8n/google-sheets/errors';
import { SheetsError } from '@company-data/core/sheets';
import { spreadsheetIdOf } from '../../../src/n8n/google-sheets/transport/sheets-api';
import { googleSheetsNode } from '../../support/n8n-google-context';
import { accepted, refused } from '../../support/spreadsheet-addresses';

/**
 * The Spreadsheet field by the same table as the CLI's --spreadsheet: n8n's own validation of the field
 * (what the editor marks as an issue), n8n's own extractValue (what the node is handed at run time) and
 * the node's reading of the value all agree with the core's rule.
 */
const nodeType: INodeType = new CompanyDataGoogleSheets();
/** n8n-core carries its own copy of n8n-workflow's types: the same shapes, another declaration. */
type CoreArgs = Parameters<typeof extractValue>;
const rl = (mode: 'url' | 'id', value: string): INodeParameterResourceLocator => ({ __rl: true, mode, value });
const node = (spreadsheet: INodeParameterResourceLocator): INode => ({
  ...googleSheetsNode,
  parameters: { authentication: 'serviceAccount', operation: 'enrich', spreadsheet },
});
const issues = (value: INodeParameterResourceLocator) =>
  NodeHelpers.getParameterIssues(spreadsheetProperty, { spreadsheet: value }, '', node(value), nodeType.description).parameters
    ?.spreadsheet ?? [];
/** The mode a user would pick for this value: By URL for an address, By ID otherwise. */
const modeOf = (value: string): 'url' | 'id' => (/[/.:]/.test(value) ? 'url' : 'id');

describe('the Spreadsheet field', () => {
  it.each(accepted)('takes %j: no issue in the editor, and the ID at run time', (value, id) => {
    const v = rl(modeOf(value), value);
    expect(issues(v)).toEqual([]);
    const handed = extractValue(v, 'spreadsheet', node(v) as unknown as CoreArgs[2], nodeType as unknown as CoreArgs[3]);
    expect(spreadsheetIdOf(handed)).toBe(id);
    expect(spreadsheetIdOf(v)).toBe(id);
  });

  it.each(refused)('refuses %j in either mode, naming the field and the rule', (value, rule) => {
    for (const mode of ['url', 'id'] as const) {
      if (value.trim()) expect(issues(rl(mode, value))).not.toEqual([]);
      let error: unknown;
      try {
        spreadsheetIdOf(rl(mode, value));
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(SheetsError);
      expect((error as SheetsError).field).toBe('spreadsheet');
      const shown = toSheetsNodeError(googleSheetsNode, error);
      expect(shown).toBeInstanceOf(NodeOperationError);
      expect(shown.message).toMatch(/^Spreadsheet: /);
      expect(shown.message).toMatch(rule);
      expect(shown.description).toMatch(/Paste the address of the spreadsheet/);
    }
  });
});
