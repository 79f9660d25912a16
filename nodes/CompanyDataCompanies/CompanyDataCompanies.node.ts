import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';
import { executeNode, nodeProperties, nodeSpecs } from '../../src/n8n';

export class CompanyDataCompanies implements INodeType {
  description: INodeTypeDescription = {
    displayName: 'Company Data: Companies',
    name: 'companyDataCompanies',
    icon: { light: 'file:companyDataCompanies.svg', dark: 'file:companyDataCompanies.dark.svg' },
    group: ['transform'],
    version: 1,
    subtitle: '={{$parameter["operation"]}}',
    description: 'Search Estonian companies, look them up in bulk by registry code, VAT number or name, and read registry profiles',
    defaults: { name: 'Company Data: Companies' },
    usableAsTool: true,
    inputs: [NodeConnectionTypes.Main],
    outputs: [NodeConnectionTypes.Main],
    credentials: [{ name: 'companyDataApi', required: true }],
    // Resource, operation and parameter fields come from the operation table (src/core/operations).
    properties: nodeProperties(nodeSpecs.companies),
  };

  async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    return await executeNode(this, nodeSpecs.companies);
  }
}
