import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { describeNode, executeNode, nodeSpecs } from '../../src/n8n';

export class CompanyDataAssets implements INodeType {
  description: INodeTypeDescription = describeNode(nodeSpecs.assets, { light: 'file:companyDataAssets.svg', dark: 'file:companyDataAssets.dark.svg' });

  async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    return await executeNode(this, nodeSpecs.assets);
  }
}
