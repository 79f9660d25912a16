import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';
import { executeGoogleSheets, googleSheetsMethods, googleSheetsProperties } from '../../src/n8n';

export class CompanyDataGoogleSheets implements INodeType {
  description: INodeTypeDescription = {
    displayName: 'Company Data: Google Sheets',
    name: 'companyDataGoogleSheets',
    icon: { light: 'file:companyDataGoogleSheets.svg', dark: 'file:companyDataGoogleSheets.dark.svg' },
    group: ['transform'],
    version: 1,
    subtitle: '={{$parameter["operation"]}}',
    description:
      'Enrich a Google sheet with Estonian company data and keep it current (its companies watched, each change written into its row), safely: checked before paying, right rows while others edit',
    defaults: { name: 'Company Data: Google Sheets' },
    usableAsTool: true,
    inputs: [NodeConnectionTypes.Main],
    outputs: [NodeConnectionTypes.Main],
    credentials: [
      // Write Events to Rows asks the service nothing: the changes come from the trigger.
      { name: 'companyDataApi', required: true, displayOptions: { show: { operation: ['enrich', 'watch'] } } },
      {
        name: 'companyDataGoogleServiceAccountApi',
        required: true,
        displayOptions: { show: { authentication: ['serviceAccount'] } },
        testedBy: 'companyDataGoogleServiceAccountTest',
      },
      {
        name: 'companyDataGoogleSheetsOAuth2Api',
        required: true,
        displayOptions: { show: { authentication: ['oAuth2'] } },
      },
    ],
    // Authentication, Operation, Spreadsheet and Sheet, then each operation's fields (src/n8n/google-sheets/descriptions).
    properties: googleSheetsProperties,
  };

  methods = googleSheetsMethods;

  async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    return await executeGoogleSheets(this);
  }
}
