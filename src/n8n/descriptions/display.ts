import type { NodeSpec } from './nodes';

/** A node offers a Resource field when it serves more than one group. */
export const hasResources = (spec: NodeSpec) => spec.groups.length > 1;

/** displayOptions showing a property under these operations of the resource, on any further conditions. */
export function show(spec: NodeSpec, resource: string, operations: string[], more: Record<string, unknown[]> = {}) {
  return { show: { ...(hasResources(spec) ? { resource: [resource] } : {}), operation: operations, ...more } };
}

/** Where a property of one operation shows, on further conditions (the property builders' `at`). */
export type At = (more?: Record<string, unknown[]>) => ReturnType<typeof show>;
