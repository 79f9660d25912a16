/**
 * Everything the node and credential files use, in one module: the build bundles it once into
 * dist/shared/index.js, and every node bundle loads that file instead of carrying its own copy.
 * Node files import from here only (the build refuses any other path into src/).
 */
export { executeNode } from './execute';
export { nodeProperties, nodeSubtitle } from './properties';
export { nodeMethods } from './pickers';
export { nodeSpecs, type NodeKey, type NodeSpec } from './nodes';
export { CompanyDataError } from '../core/errors';
export { clientFor, type CompanyDataCredential } from './client';
export { CREDENTIAL_TYPE } from './transport';
export { pollApi, webhookApi } from './trigger/api';
export { handleDelivery } from './trigger/delivery';
export { checkExists, create, knownSecrets, remove, WebhookSetupError, type HookState } from './trigger/lifecycle';
export { pollOnce, pollSources, type PollState } from './trigger/poll';
export { pollTriggerProperties, readTriggerOptions, triggerSubtitle, webhookTriggerProperties } from './trigger/properties';
export { hasProcessedData, memoryCheck, newIdsInProcessedData, triggerKey } from './trigger/seen';
