import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { describeNode, executeNode, nodeSpecs } from '../../src/n8n';

export class CompanyDataRisk implements INodeType {
  description: INodeTypeDescription = describeNode(nodeSpecs.risk, { light: 'file:companyDataRisk.svg', dark: 'file:companyDataRisk.dark.svg' });

  async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    return await executeNode(this, nodeSpecs.risk);
  }
}
