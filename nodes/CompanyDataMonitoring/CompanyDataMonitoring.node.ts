import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';
import { executeNode, nodeProperties, nodeSpecs } from '../../src/n8n';

export class CompanyDataMonitoring implements INodeType {
  description: INodeTypeDescription = {
    displayName: 'Company Data: Monitoring',
    name: 'companyDataMonitoring',
    icon: { light: 'file:companyDataMonitoring.svg', dark: 'file:companyDataMonitoring.dark.svg' },
    group: ['transform'],
    version: 1,
    subtitle: '={{$parameter["resource"] + ": " + $parameter["operation"]}}',
    description: 'Watch lists of Estonian companies, read their change events, and check webhook deliveries (API plan)',
    defaults: { name: 'Company Data: Monitoring' },
    usableAsTool: true,
    inputs: [NodeConnectionTypes.Main],
    outputs: [NodeConnectionTypes.Main],
    credentials: [{ name: 'companyDataApi', required: true }],
    // Resource, operation and parameter fields come from the operation table (src/core/operations).
    properties: nodeProperties(nodeSpecs.monitoring),
  };

  async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    return await executeNode(this, nodeSpecs.monitoring);
  }
}
