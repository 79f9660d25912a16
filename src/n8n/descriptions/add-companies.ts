import type { INodeProperties } from 'n8n-workflow';
import type { AnyOperation } from '@company-data/core/operation';
import { operationId } from '@company-data/core/operation';
import type { At } from './display';

/** The service takes up to 2000 companies per request (spec: POST /monitoring/lists/{list_id}/companies). */
export const ADD_BATCH = 2000;

/** Version 2 of Monitoring → Add Companies can take the companies from the input items, in one request. */
export const addsFromItems = (op: AnyOperation) => operationId(op) === 'monitoring.addCompanies';

export function addFromItemsProperties(at: At): INodeProperties[] {
  return [
    {
      displayName: 'Companies From',
      name: 'companiesFrom',
      type: 'options',
      options: [
        { name: 'Input Items', value: 'items', description: 'Add the registry code of every incoming item, all in one request' },
        { name: 'Entered Below', value: 'list', description: 'Type the companies one by one' },
      ],
      default: 'items',
      description: 'Which companies to add: those of the input items, or ones entered here',
      displayOptions: at(),
    },
    {
      displayName: 'Registry Code Field',
      name: 'registryCodeField',
      type: 'string',
      default: 'registry_code',
      required: true,
      placeholder: 'e.g. registry_code',
      description: 'Name of the input field that holds the 8-digit registry code. Use dots for nested fields, e.g. company.code.',
      displayOptions: at({ companiesFrom: ['items'] }),
    },
    {
      displayName: 'External Reference Field',
      name: 'externalRefField',
      type: 'string',
      default: '',
      placeholder: 'e.g. crm_id',
      description: 'Optional: name of the input field with your own reference for the company, returned in every event',
      displayOptions: at({ companiesFrom: ['items'] }),
    },
  ];
}
