import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';
import { executeNode, nodeMethods, nodeProperties, nodeSpecs, nodeSubtitle } from '../../src/n8n';

export class CompanyDataSavedSearches implements INodeType {
  description: INodeTypeDescription = {
    displayName: 'Company Data: Saved Searches',
    name: 'companyDataSavedSearches',
    icon: { light: 'file:companyDataSavedSearches.svg', dark: 'file:companyDataSavedSearches.dark.svg' },
    group: ['transform'],
    // Version 2 (pickers, Simplify) is what new nodes get; version 1 keeps saved workflows running as before.
    version: [1, 2],
    defaultVersion: 2,
    subtitle: nodeSubtitle(nodeSpecs.searches),
    description: 'Store company filters and read the companies that newly match them every day (API plan)',
    defaults: { name: 'Company Data: Saved Searches' },
    usableAsTool: true,
    inputs: [NodeConnectionTypes.Main],
    outputs: [NodeConnectionTypes.Main],
    credentials: [{ name: 'companyDataApi', required: true }],
    // Resource, operation and parameter fields come from the operation table (packages/core/operations).
    properties: nodeProperties(nodeSpecs.searches),
  };

  methods = nodeMethods;

  async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    return await executeNode(this, nodeSpecs.searches);
  }
}
