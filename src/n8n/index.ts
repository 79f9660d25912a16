/**
 * Everything the node and credential files use, in one module: the build bundles it once into
 * dist/shared/index.js, and every node bundle loads that file instead of carrying its own copy.
 * Node files import from here only (the build refuses any other path into src/).
 */
export { executeNode } from './actions/router';
export { nodeProperties, nodeSubtitle } from './descriptions/properties';
export { nodeMethods } from './methods';
export { nodeSpecs, type NodeKey, type NodeSpec } from './descriptions/nodes';
export { clientFor, type CompanyDataCredential } from './transport/client';
export { CREDENTIAL_TYPE } from './transport';
export { dropSeenDeliveries, receiveDelivery, webhookLifecycle } from './actions/webhook-trigger';
export { pollTrigger } from './actions/poll-trigger';
export { pollTriggerProperties, triggerSubtitle, webhookTriggerProperties } from './descriptions/trigger-properties';
export { executeGoogleSheets, googleSheetsMethods, googleSheetsProperties } from './google-sheets';
