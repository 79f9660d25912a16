import type { INodeProperties } from 'n8n-workflow';
import { enrichProperties } from './enrich';

/** The fields of Write Events to Rows (operation `writeEvents`). */

export const DEFAULT_EVENTS_SHEET = 'Company changes';

/** Enrich's Key Column, told what it is for here: rows are found by the registry code enrich wrote. */
const enrichKeyColumn = enrichProperties.find((p) => p.name === 'keyColumn')!;

export const writeEventsProperties: INodeProperties[] = [
  {
    ...enrichKeyColumn,
    description:
      'The column Enrich Rows looked up. Rows are found by the registry code enrich wrote beside it, or by this column when it holds registry codes. Empty: found from the header row (Registry code, VAT number, then Name). Choose from the list, or specify it using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
  },
  {
    displayName: 'Events Sheet',
    name: 'eventsSheet',
    type: 'string',
    default: DEFAULT_EVENTS_SHEET,
    description:
      'The tab of the same spreadsheet each change is also added to as a row (event ID, summary and the change), made when missing. A change is added there once, however often it is delivered.',
  },
];

/** Options of the Options collection that Write Events to Rows has (shown for it only). */
export const writeEventsOptions: INodeProperties[] = [
  {
    displayName: 'Digest Lines',
    name: 'digestLines',
    type: 'number',
    typeOptions: { minValue: 2, maxValue: 200 },
    default: 20,
    displayOptions: { show: { '/operation': ['writeEvents'] } },
    description: 'At most this many lines of companies and changes in the digest; the rest is counted as "…and 37 more"',
  },
];
