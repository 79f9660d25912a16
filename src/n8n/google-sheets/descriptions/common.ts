import type { INodeProperties } from 'n8n-workflow';
import {
  SPREADSHEET_ID_VALIDATION,
  SPREADSHEET_URL_PATTERN,
  SPREADSHEET_URL_VALIDATION,
} from '@company-data/core/sheets/google/spreadsheet-address';

/**
 * The fields every operation of Company Data: Google Sheets shares: how Google is reached and which
 * sheet. An operation's own fields are in its module (./enrich.ts, ...) and listed in ./index.ts.
 */

export const SERVICE_ACCOUNT_CREDENTIAL = 'companyDataGoogleServiceAccountApi';
export const USER_ACCOUNT_CREDENTIAL = 'companyDataGoogleSheetsOAuth2Api';
/** The node's credentialTest for the service account (methods.credentialTest, the credential's testedBy). */
export const SERVICE_ACCOUNT_TEST = 'companyDataGoogleServiceAccountTest';
export const DEFAULT_SHEETS_API_URL = 'https://sheets.googleapis.com';

export type GoogleAuthentication = 'serviceAccount' | 'oAuth2';

export const authenticationProperty: INodeProperties = {
  displayName: 'Authentication',
  name: 'authentication',
  type: 'options',
  options: [
    {
      name: 'Service Account',
      value: 'serviceAccount',
      description: 'A JSON key of a Google service account; share the spreadsheet with its email',
    },
    { name: 'OAuth2 (Your Google Account)', value: 'oAuth2', description: 'Sign in with your own Google account' },
  ],
  default: 'serviceAccount',
};

export const spreadsheetProperty: INodeProperties = {
  displayName: 'Spreadsheet',
  name: 'spreadsheet',
  type: 'resourceLocator',
  default: { mode: 'url', value: '' },
  required: true,
  description: 'The spreadsheet to work on: paste its address from the browser, or its ID',
  modes: [
    {
      displayName: 'By URL',
      name: 'url',
      type: 'string',
      placeholder: 'https://docs.google.com/spreadsheets/d/1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms/edit',
      extractValue: { type: 'regex', regex: SPREADSHEET_URL_PATTERN },
      validation: [
        {
          type: 'regex',
          properties: {
            regex: SPREADSHEET_URL_VALIDATION,
            errorMessage: 'Not a Google Sheets address (https://docs.google.com/spreadsheets/d/…)',
          },
        },
      ],
    },
    {
      displayName: 'By ID',
      name: 'id',
      type: 'string',
      placeholder: '1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms',
      validation: [
        {
          type: 'regex',
          properties: {
            regex: SPREADSHEET_ID_VALIDATION,
            errorMessage: 'Not a spreadsheet ID: only letters, digits, - and _ (the part after /d/ in its address)',
          },
        },
      ],
    },
  ],
};

export const sheetProperty: INodeProperties = {
  displayName: 'Sheet',
  name: 'sheet',
  type: 'resourceLocator',
  default: { mode: 'list', value: '' },
  required: true,
  description: 'The tab of the spreadsheet. Picked from the list it stays right when someone renames the tab.',
  modes: [
    {
      displayName: 'From List',
      name: 'list',
      type: 'list',
      typeOptions: { searchListMethod: 'sheetSearch', searchable: true },
    },
    {
      displayName: 'By Name',
      name: 'name',
      type: 'string',
      placeholder: 'Sheet1',
    },
  ],
};
