import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';
import { executeNode, nodeProperties, nodeSpecs } from '../../src/n8n';

export class CompanyDataAssets implements INodeType {
  description: INodeTypeDescription = {
    displayName: 'Company Data: Assets & Activity',
    name: 'companyDataAssets',
    icon: { light: 'file:companyDataAssets.svg', dark: 'file:companyDataAssets.dark.svg' },
    group: ['transform'],
    version: 1,
    subtitle: '={{$parameter["operation"]}}',
    description: 'Real estate, domains, permits, state payments, official notices and consumer disputes of Estonian companies',
    defaults: { name: 'Company Data: Assets & Activity' },
    usableAsTool: true,
    inputs: [NodeConnectionTypes.Main],
    outputs: [NodeConnectionTypes.Main],
    credentials: [{ name: 'companyDataApi', required: true }],
    // Resource, operation and parameter fields come from the operation table (src/core/operations).
    properties: nodeProperties(nodeSpecs.assets),
  };

  async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    return await executeNode(this, nodeSpecs.assets);
  }
}
