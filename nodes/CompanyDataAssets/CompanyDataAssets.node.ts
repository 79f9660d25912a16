import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';
import { executeNode, nodeMethods, nodeProperties, nodeSpecs, nodeSubtitle } from '../../src/n8n';

export class CompanyDataAssets implements INodeType {
  description: INodeTypeDescription = {
    displayName: 'Company Data: Assets & Activity',
    name: 'companyDataAssets',
    icon: { light: 'file:companyDataAssets.svg', dark: 'file:companyDataAssets.dark.svg' },
    group: ['transform'],
    // Version 3 (English unless the Language option says otherwise) is what new nodes get;
    // versions 2 (pickers, Simplify) and 1 keep saved workflows running as before.
    version: [1, 2, 3],
    defaultVersion: 3,
    subtitle: nodeSubtitle(nodeSpecs.assets),
    description: 'Real estate, domains, permits, state payments, official notices and consumer disputes of Estonian companies',
    defaults: { name: 'Company Data: Assets & Activity' },
    usableAsTool: true,
    inputs: [NodeConnectionTypes.Main],
    outputs: [NodeConnectionTypes.Main],
    credentials: [{ name: 'companyDataApi', required: true }],
    // Resource, operation and parameter fields come from the operation table (packages/core/operations).
    properties: nodeProperties(nodeSpecs.assets),
  };

  methods = nodeMethods;

  async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    return await executeNode(this, nodeSpecs.assets);
  }
}
