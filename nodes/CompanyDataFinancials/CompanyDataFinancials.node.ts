import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { describeNode, executeNode, nodeSpecs } from '../../src/n8n';

export class CompanyDataFinancials implements INodeType {
  description: INodeTypeDescription = describeNode(nodeSpecs.financials, { light: 'file:companyDataFinancials.svg', dark: 'file:companyDataFinancials.dark.svg' });

  async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    return await executeNode(this, nodeSpecs.financials);
  }
}
