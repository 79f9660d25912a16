import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';
import { executeNode, nodeMethods, nodeProperties, nodeSpecs, nodeSubtitle } from '../../src/n8n';

export class CompanyDataRisk implements INodeType {
  description: INodeTypeDescription = {
    displayName: 'Company Data: Risk',
    name: 'companyDataRisk',
    icon: { light: 'file:companyDataRisk.svg', dark: 'file:companyDataRisk.dark.svg' },
    group: ['transform'],
    // Version 3 (English unless the Language option says otherwise) is what new nodes get;
    // versions 2 (pickers, Simplify) and 1 keep saved workflows running as before.
    version: [1, 2, 3],
    defaultVersion: 3,
    subtitle: nodeSubtitle(nodeSpecs.risk),
    description: 'Credit score, tax debt, tax declarations, court cases, payment orders, enforcements and rulings of Estonian companies',
    defaults: { name: 'Company Data: Risk' },
    usableAsTool: true,
    inputs: [NodeConnectionTypes.Main],
    outputs: [NodeConnectionTypes.Main],
    credentials: [{ name: 'companyDataApi', required: true }],
    // Resource, operation and parameter fields come from the operation table (packages/core/operations).
    properties: nodeProperties(nodeSpecs.risk),
  };

  methods = nodeMethods;

  async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    return await executeNode(this, nodeSpecs.risk);
  }
}
