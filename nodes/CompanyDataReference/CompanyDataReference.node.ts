import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { describeNode, executeNode, nodeSpecs } from '../../src/n8n';

export class CompanyDataReference implements INodeType {
  description: INodeTypeDescription = describeNode(nodeSpecs.reference, { light: 'file:companyDataReference.svg', dark: 'file:companyDataReference.dark.svg' });

  async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    return await executeNode(this, nodeSpecs.reference);
  }
}
