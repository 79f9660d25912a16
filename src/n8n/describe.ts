import type { INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';
import type { NodeSpec } from './nodes';
import { hasResources, nodeProperties } from './properties';
import { CREDENTIAL_TYPE } from './transport';

/** The n8n description of a Company Data node, its fields generated from the operation table. */
export function describeNode(spec: NodeSpec, icon: { light: string; dark: string }): INodeTypeDescription {
  return {
    displayName: spec.displayName,
    name: spec.name,
    icon: icon as INodeTypeDescription['icon'],
    group: ['transform'],
    version: 1,
    subtitle: hasResources(spec) ? '={{$parameter["resource"] + ": " + $parameter["operation"]}}' : '={{$parameter["operation"]}}',
    description: spec.description,
    defaults: { name: spec.displayName },
    usableAsTool: true,
    inputs: [NodeConnectionTypes.Main],
    outputs: [NodeConnectionTypes.Main],
    credentials: [{ name: CREDENTIAL_TYPE, required: true }],
    properties: nodeProperties(spec),
  };
}
