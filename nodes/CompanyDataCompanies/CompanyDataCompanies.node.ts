import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { describeNode, executeNode, nodeSpecs } from '../../src/n8n';

export class CompanyDataCompanies implements INodeType {
  description: INodeTypeDescription = describeNode(nodeSpecs.companies, { light: 'file:companyDataCompanies.svg', dark: 'file:companyDataCompanies.dark.svg' });

  async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    return await executeNode(this, nodeSpecs.companies);
  }
}
