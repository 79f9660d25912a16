import {
  NodeConnectionTypes,
  type IExecuteFunctions,
  type INodeExecutionData,
  type INodeType,
  type INodeTypeDescription,
  type IWebhookFunctions,
  type IWebhookResponseData,
} from 'n8n-workflow';
import {
  CREDENTIAL_TYPE,
  dropSeenDeliveries,
  nodeMethods,
  receiveDelivery,
  triggerSubtitle,
  webhookLifecycle,
  webhookTriggerProperties,
} from '../../src/n8n';

// No usableAsTool: n8n would derive a "Company Data Trigger Tool" from it, an AI tool that cannot work
// (deliveries come from the service, not from an agent).
export class CompanyDataTrigger implements INodeType {
  description: INodeTypeDescription = {
    displayName: 'Company Data Trigger',
    name: 'companyDataTrigger',
    icon: { light: 'file:companyData.svg', dark: 'file:companyData.dark.svg' },
    group: ['trigger'],
    // Version 2 loads lists and saved searches from the account; version 1 keeps saved workflows running as before.
    version: [1, 2],
    defaultVersion: 2,
    subtitle: triggerSubtitle,
    description: 'Starts the workflow when a watched company changes or a saved search finds new companies',
    defaults: { name: 'Company Data Trigger' },
    inputs: [],
    outputs: [NodeConnectionTypes.Main],
    credentials: [{ name: CREDENTIAL_TYPE, required: true }],
    webhooks: [{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: 'webhook' }],
    properties: webhookTriggerProperties,
  };

  methods = nodeMethods;

  webhookMethods = { default: webhookLifecycle };

  async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
    return await receiveDelivery(this);
  }

  /** Drops an event id seen before (n8n's processed-data store exists only in the execution). */
  async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    return await dropSeenDeliveries(this);
  }
}
