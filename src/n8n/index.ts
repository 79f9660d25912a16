export { describeNode } from './describe';
export { executeNode } from './execute';
export { nodeSpecs, type NodeKey, type NodeSpec } from './nodes';
