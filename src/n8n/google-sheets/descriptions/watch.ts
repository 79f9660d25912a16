import type { INodeProperties } from 'n8n-workflow';
import { maxBilledQueriesOption } from '../../descriptions/properties';
import { keyColumnProperty } from './enrich';

/** The fields of Keep Current (operation `watch`). */
export const watchProperties: INodeProperties[] = [
  keyColumnProperty,
  {
    displayName: 'List Name',
    name: 'listName',
    type: 'string',
    default: '',
    placeholder: 'Leads under watch',
    description:
      'The monitoring list that holds exactly the companies of the sheet; made when missing, found again by this name. Empty: named after the spreadsheet and sheet, as the command line does.',
  },
  {
    ...maxBilledQueriesOption,
    description:
      'Rows not enriched yet are enriched first. Stop before sending anything when that would bill more unique queries than this (rows already enriched cost nothing). 0: no cap.',
  },
];
