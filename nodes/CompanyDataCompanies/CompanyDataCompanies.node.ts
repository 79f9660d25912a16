import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';
import { executeNode, nodeMethods, nodeProperties, nodeSpecs, nodeSubtitle } from '../../src/n8n';

export class CompanyDataCompanies implements INodeType {
  description: INodeTypeDescription = {
    displayName: 'Company Data: Companies',
    name: 'companyDataCompanies',
    icon: { light: 'file:companyDataCompanies.svg', dark: 'file:companyDataCompanies.dark.svg' },
    group: ['transform'],
    // Version 3 (English unless the Language option says otherwise, Lookup's match as flat columns) is what new nodes get;
    // versions 2 (pickers, Simplify) and 1 keep saved workflows running as before.
    version: [1, 2, 3],
    defaultVersion: 3,
    subtitle: nodeSubtitle(nodeSpecs.companies),
    description: 'Search Estonian companies, look them up in bulk by registry code, VAT number or name, and read registry profiles',
    defaults: { name: 'Company Data: Companies' },
    usableAsTool: true,
    inputs: [NodeConnectionTypes.Main],
    outputs: [NodeConnectionTypes.Main],
    credentials: [{ name: 'companyDataApi', required: true }],
    // Resource, operation and parameter fields come from the operation table (packages/core/operations).
    properties: nodeProperties(nodeSpecs.companies),
  };

  methods = nodeMethods;

  async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    return await executeNode(this, nodeSpecs.companies);
  }
}
