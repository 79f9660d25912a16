import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { langs, languageNames } from '@company-data/core/vocabulary';
import { authenticationProperty, DEFAULT_SHEETS_API_URL, sheetProperty, spreadsheetProperty } from './common';
import { enrichProperties } from './enrich';
import { watchProperties } from './watch';
import { writeEventsOptions, writeEventsProperties } from './write-events';

/**
 * The operations of Company Data: Google Sheets, one entry each: its choice in the Operation field and
 * its own fields (shown for it only). A new operation is a new entry here and a handler in
 * ../actions/router.ts.
 */
export const sheetOperations = [
  {
    value: 'enrich',
    name: 'Enrich Rows',
    action: 'Enrich rows with company data',
    description:
      'Look up the company of each row by registry code, VAT number or name and write its data into the same row, checked before paying',
    properties: enrichProperties,
  },
  {
    value: 'watch',
    name: 'Keep Current',
    action: "Keep a sheet's companies under watch",
    description:
      "Put the sheet's companies under watch: one monitoring list holds exactly them, new rows enriched first. Outputs what was added and removed.",
    properties: watchProperties,
  },
  {
    value: 'writeEvents',
    name: 'Write Events to Rows',
    action: 'Write company changes into their rows',
    description:
      "Write each change from the Company Data Trigger or Poll Trigger into its company's rows and add it to an events sheet, once each; outputs one digest of the new changes",
    properties: writeEventsProperties,
  },
] as const satisfies ReadonlyArray<INodePropertyOptions & { value: string; properties: INodeProperties[] }>;

export type SheetOperation = (typeof sheetOperations)[number]['value'];

/** An operation's field, shown for that operation only (its own displayOptions kept). */
function forOperation(op: string, p: INodeProperties): INodeProperties {
  const show = { ...(p.displayOptions?.show ?? {}), operation: [op] };
  return { ...p, displayOptions: { ...p.displayOptions, show } };
}

const operationProperty: INodeProperties = {
  displayName: 'Operation',
  name: 'operation',
  type: 'options',
  noDataExpression: true,
  options: sheetOperations.map(({ name, value, action, description }) => ({ name, value, action, description })),
  default: 'enrich',
};

const optionsProperty: INodeProperties = {
  displayName: 'Options',
  name: 'options',
  type: 'collection',
  placeholder: 'Add option',
  default: {},
  options: [
    ...writeEventsOptions,
    {
      displayName: 'Language',
      name: 'lang',
      type: 'options',
      options: langs.map((value) => ({ name: languageNames[value], value })),
      default: 'en',
      description:
        'Language of labels and classifier values written to the sheet (status, legal form), and of the change summaries and the digest. Unset: English.',
      displayOptions: { show: { '/operation': ['enrich', 'watch', 'writeEvents'] } },
    },
    {
      displayName: 'Sheets API URL',
      name: 'sheetsApiUrl',
      type: 'string',
      default: DEFAULT_SHEETS_API_URL,
      description: 'Where the Google Sheets API is reached. Change it only for a proxy in front of Google, or a test server.',
    },
  ],
};

export const googleSheetsProperties: INodeProperties[] = [
  authenticationProperty,
  operationProperty,
  spreadsheetProperty,
  sheetProperty,
  ...sheetOperations.flatMap((op) => op.properties.map((p) => forOperation(op.value, p))),
  optionsProperty,
];
