import type { INodeProperties } from 'n8n-workflow';
import { defaultFields, summaryFields } from '@company-data/core/sheets/enrich/options';
import { humanize } from '../../descriptions/fields';
import { maxBilledQueriesOption } from '../../descriptions/properties';

/** The fields of Enrich Rows (operation `enrich`). */

/** Fields a user can add from the company summary, in the CLI's order; written as company_data_match_<field>. */
const fieldChoices = Object.keys(summaryFields);

export type EnrichModeChoice = 'missing' | 'olderThan' | 'all';

/** The column the companies are found by (Enrich Rows, Keep Current). */
export const keyColumnProperty: INodeProperties = {
  displayName: 'Key Column',
  name: 'keyColumn',
  type: 'options',
  typeOptions: { loadOptionsMethod: 'keyColumns', loadOptionsDependsOn: ['spreadsheet.value', 'sheet.value'] },
  default: '',
  description:
    'The column holding registry codes, VAT numbers or company names. Empty: found from the header row (Registry code, VAT number, then Name). Choose from the list, or specify it using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
};

export const enrichProperties: INodeProperties[] = [
  keyColumnProperty,
  {
    displayName: 'Fields',
    name: 'fields',
    type: 'multiOptions',
    options: fieldChoices.map((f) => ({ name: humanize(f), value: f })),
    default: [...defaultFields],
    description: 'What to write about each company, each in its own column company_data_match_<field> (added at the right when missing)',
  },
  {
    displayName: 'Rows to Enrich',
    name: 'mode',
    type: 'options',
    options: [
      {
        name: 'Not Enriched Yet',
        value: 'missing',
        description: 'Rows without an answer for the key they hold now (a changed key is looked up again)',
      },
      { name: 'Not Enriched Yet or Older Than', value: 'olderThan', description: 'Also rows enriched more than some days ago' },
      { name: 'All Rows', value: 'all', description: 'Every row with a key, billed again' },
    ],
    default: 'missing',
  },
  {
    displayName: 'Older Than (Days)',
    name: 'olderThanDays',
    type: 'number',
    typeOptions: { minValue: 1 },
    default: 30,
    displayOptions: { show: { mode: ['olderThan'] } },
    description: 'Rows enriched more than this many days ago are looked up again',
  },
  {
    ...maxBilledQueriesOption,
    description:
      'Stop before sending anything when this run would bill more unique queries than this (duplicates, invalid keys, rows already enriched and answers already paid for are free). 0: no cap.',
  },
];
