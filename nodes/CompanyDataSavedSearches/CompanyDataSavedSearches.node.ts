import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { describeNode, executeNode, nodeSpecs } from '../../src/n8n';

export class CompanyDataSavedSearches implements INodeType {
  description: INodeTypeDescription = describeNode(nodeSpecs.searches, { light: 'file:companyDataSavedSearches.svg', dark: 'file:companyDataSavedSearches.dark.svg' });

  async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    return await executeNode(this, nodeSpecs.searches);
  }
}
