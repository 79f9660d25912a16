import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { describeNode, executeNode, nodeSpecs } from '../../src/n8n';

export class CompanyDataPeople implements INodeType {
  description: INodeTypeDescription = describeNode(nodeSpecs.people, { light: 'file:companyDataPeople.svg', dark: 'file:companyDataPeople.dark.svg' });

  async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    return await executeNode(this, nodeSpecs.people);
  }
}
