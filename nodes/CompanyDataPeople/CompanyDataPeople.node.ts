import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';
import { executeNode, nodeMethods, nodeProperties, nodeSpecs, nodeSubtitle } from '../../src/n8n';

export class CompanyDataPeople implements INodeType {
  description: INodeTypeDescription = {
    displayName: 'Company Data: People & Ownership',
    name: 'companyDataPeople',
    icon: { light: 'file:companyDataPeople.svg', dark: 'file:companyDataPeople.dark.svg' },
    group: ['transform'],
    // Version 3 (English unless the Language option says otherwise) is what new nodes get;
    // versions 2 (pickers, Simplify) and 1 keep saved workflows running as before.
    version: [1, 2, 3],
    defaultVersion: 3,
    subtitle: nodeSubtitle(nodeSpecs.people),
    description: 'Representatives, shareholders, beneficial owners and holdings of Estonian companies, and roles of people',
    defaults: { name: 'Company Data: People & Ownership' },
    usableAsTool: true,
    inputs: [NodeConnectionTypes.Main],
    outputs: [NodeConnectionTypes.Main],
    credentials: [{ name: 'companyDataApi', required: true }],
    // Resource, operation and parameter fields come from the operation table (packages/core/operations).
    properties: nodeProperties(nodeSpecs.people),
  };

  methods = nodeMethods;

  async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    return await executeNode(this, nodeSpecs.people);
  }
}
