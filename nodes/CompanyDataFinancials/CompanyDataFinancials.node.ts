import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';
import { executeNode, nodeProperties, nodeSpecs } from '../../src/n8n';

export class CompanyDataFinancials implements INodeType {
  description: INodeTypeDescription = {
    displayName: 'Company Data: Financials',
    name: 'companyDataFinancials',
    icon: { light: 'file:companyDataFinancials.svg', dark: 'file:companyDataFinancials.dark.svg' },
    group: ['transform'],
    version: 1,
    subtitle: '={{$parameter["operation"]}}',
    description: 'Annual report figures, ratios, statements and quarterly taxes of Estonian companies',
    defaults: { name: 'Company Data: Financials' },
    usableAsTool: true,
    inputs: [NodeConnectionTypes.Main],
    outputs: [NodeConnectionTypes.Main],
    credentials: [{ name: 'companyDataApi', required: true }],
    // Resource, operation and parameter fields come from the operation table (src/core/operations).
    properties: nodeProperties(nodeSpecs.financials),
  };

  async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    return await executeNode(this, nodeSpecs.financials);
  }
}
