import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';
import { executeNode, nodeMethods, nodeProperties, nodeSpecs, nodeSubtitle } from '../../src/n8n';

export class CompanyDataCompanies implements INodeType {
  description: INodeTypeDescription = {
    displayName: 'Company Data: Companies',
    name: 'companyDataCompanies',
    icon: { light: 'file:companyDataCompanies.svg', dark: 'file:companyDataCompanies.dark.svg' },
    group: ['transform'],
    // Version 2 (pickers, Simplify) is what new nodes get; version 1 keeps saved workflows running as before.
    version: [1, 2],
    defaultVersion: 2,
    subtitle: nodeSubtitle(nodeSpecs.companies),
    description: 'Search Estonian companies, look them up in bulk by registry code, VAT number or name, and read registry profiles',
    defaults: { name: 'Company Data: Companies' },
    usableAsTool: true,
    inputs: [NodeConnectionTypes.Main],
    outputs: [NodeConnectionTypes.Main],
    credentials: [{ name: 'companyDataApi', required: true }],
    // Resource, operation and parameter fields come from the operation table (src/core/operations).
    properties: nodeProperties(nodeSpecs.companies),
  };

  methods = nodeMethods;

  async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    return await executeNode(this, nodeSpecs.companies);
  }
}
