import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';
import { executeNode, nodeMethods, nodeProperties, nodeSpecs, nodeSubtitle } from '../../src/n8n';

export class CompanyDataFinancials implements INodeType {
  description: INodeTypeDescription = {
    displayName: 'Company Data: Financials',
    name: 'companyDataFinancials',
    icon: { light: 'file:companyDataFinancials.svg', dark: 'file:companyDataFinancials.dark.svg' },
    group: ['transform'],
    // Version 3 (English unless the Language option says otherwise) is what new nodes get;
    // versions 2 (pickers, Simplify) and 1 keep saved workflows running as before.
    version: [1, 2, 3],
    defaultVersion: 3,
    subtitle: nodeSubtitle(nodeSpecs.financials),
    description: 'Annual report figures, ratios, statements and quarterly taxes of Estonian companies',
    defaults: { name: 'Company Data: Financials' },
    usableAsTool: true,
    inputs: [NodeConnectionTypes.Main],
    outputs: [NodeConnectionTypes.Main],
    credentials: [{ name: 'companyDataApi', required: true }],
    // Resource, operation and parameter fields come from the operation table (packages/core/operations).
    properties: nodeProperties(nodeSpecs.financials),
  };

  methods = nodeMethods;

  async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    return await executeNode(this, nodeSpecs.financials);
  }
}
