import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';
import { executeNode, nodeMethods, nodeProperties, nodeSpecs, nodeSubtitle } from '../../src/n8n';

export class CompanyDataReference implements INodeType {
  description: INodeTypeDescription = {
    displayName: 'Company Data: Reference',
    name: 'companyDataReference',
    icon: { light: 'file:companyDataReference.svg', dark: 'file:companyDataReference.dark.svg' },
    group: ['transform'],
    // Version 3 (English unless the Language option says otherwise) is what new nodes get;
    // versions 2 (pickers, Simplify) and 1 keep saved workflows running as before.
    version: [1, 2, 3],
    defaultVersion: 3,
    subtitle: nodeSubtitle(nodeSpecs.reference),
    description: 'Classifier codes, EMTAK activity codes, API usage and the OpenAPI description',
    defaults: { name: 'Company Data: Reference' },
    usableAsTool: true,
    inputs: [NodeConnectionTypes.Main],
    outputs: [NodeConnectionTypes.Main],
    credentials: [{ name: 'companyDataApi', required: true }],
    // Resource, operation and parameter fields come from the operation table (packages/core/operations).
    properties: nodeProperties(nodeSpecs.reference),
  };

  methods = nodeMethods;

  async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    return await executeNode(this, nodeSpecs.reference);
  }
}
