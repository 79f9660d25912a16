import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { describeNode, executeNode, nodeSpecs } from '../../src/n8n';

export class CompanyDataMonitoring implements INodeType {
  description: INodeTypeDescription = describeNode(nodeSpecs.monitoring, { light: 'file:companyDataMonitoring.svg', dark: 'file:companyDataMonitoring.dark.svg' });

  async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    return await executeNode(this, nodeSpecs.monitoring);
  }
}
