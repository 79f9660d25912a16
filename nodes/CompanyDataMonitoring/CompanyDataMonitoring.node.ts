import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';
import { executeNode, nodeMethods, nodeProperties, nodeSpecs, nodeSubtitle } from '../../src/n8n';

export class CompanyDataMonitoring implements INodeType {
  description: INodeTypeDescription = {
    displayName: 'Company Data: Monitoring',
    name: 'companyDataMonitoring',
    icon: { light: 'file:companyDataMonitoring.svg', dark: 'file:companyDataMonitoring.dark.svg' },
    group: ['transform'],
    // Version 2 (pickers, Simplify) is what new nodes get; version 1 keeps saved workflows running as before.
    version: [1, 2],
    defaultVersion: 2,
    subtitle: nodeSubtitle(nodeSpecs.monitoring),
    description: 'Watch lists of Estonian companies, read their change events, and check webhook deliveries (API plan)',
    defaults: { name: 'Company Data: Monitoring' },
    usableAsTool: true,
    inputs: [NodeConnectionTypes.Main],
    outputs: [NodeConnectionTypes.Main],
    credentials: [{ name: 'companyDataApi', required: true }],
    // Resource, operation and parameter fields come from the operation table (packages/core/operations).
    properties: nodeProperties(nodeSpecs.monitoring),
  };

  methods = nodeMethods;

  async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    return await executeNode(this, nodeSpecs.monitoring);
  }
}
