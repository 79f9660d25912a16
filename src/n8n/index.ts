export { executeNode } from './execute';
export { nodeProperties } from './properties';
export { nodeSpecs, type NodeKey, type NodeSpec } from './nodes';
