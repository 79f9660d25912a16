import { NodeConnectionTypes, type INodeExecutionData, type INodeType, type INodeTypeDescription, type IPollFunctions } from 'n8n-workflow';
import { CREDENTIAL_TYPE, nodeMethods, pollTrigger, pollTriggerProperties, triggerSubtitle } from '../../src/n8n';

/**
 * The polling variant, for n8n without a public HTTPS address. n8n needs a separate node for polling
 * (polling: true + poll()) and for webhooks. Cursors and seen ids live in static data, which n8n saves
 * after each poll.
 */
// No usableAsTool: n8n would derive a "Company Data Poll Trigger Tool" from it, an AI tool that cannot
// work (a trigger has no execute step to call).
export class CompanyDataPollTrigger implements INodeType {
  description: INodeTypeDescription = {
    displayName: 'Company Data Poll Trigger',
    name: 'companyDataPollTrigger',
    icon: { light: 'file:companyData.svg', dark: 'file:companyData.dark.svg' },
    group: ['trigger'],
    // Version 2 loads lists and saved searches from the account; version 1 keeps saved workflows running as before.
    version: [1, 2],
    defaultVersion: 2,
    subtitle: triggerSubtitle,
    description: 'Checks for changes of watched companies and new saved-search matches on a schedule',
    defaults: { name: 'Company Data Poll Trigger' },
    polling: true,
    inputs: [],
    outputs: [NodeConnectionTypes.Main],
    credentials: [{ name: CREDENTIAL_TYPE, required: true }],
    properties: pollTriggerProperties,
  };

  methods = nodeMethods;

  async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
    return await pollTrigger(this);
  }
}
