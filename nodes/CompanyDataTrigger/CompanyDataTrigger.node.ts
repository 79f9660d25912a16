import {
  NodeApiError,
  NodeConnectionTypes,
  NodeOperationError,
  type IDataObject,
  type IExecuteFunctions,
  type IHookFunctions,
  type INodeExecutionData,
  type INodeType,
  type INodeTypeDescription,
  type IWebhookFunctions,
  type IWebhookResponseData,
} from 'n8n-workflow';
import {
  clientFor,
  type CompanyDataCredential,
  CREDENTIAL_TYPE,
  webhookApi,
  handleDelivery,
  checkExists,
  create,
  knownSecrets,
  remove,
  WebhookSetupError,
  type HookState,
  readTriggerOptions,
  webhookTriggerProperties,
  nodeMethods,
  triggerSubtitle,
  hasProcessedData,
  newIdsInProcessedData,
  memoryCheck,
  triggerKey,
} from '../../src/n8n';

type RawRequest = ReturnType<IWebhookFunctions['getRequestObject']> & { rawBody?: Buffer; readRawBody?: () => Promise<void> };

/** An activation error as an n8n error: the webhook port's errors already are; a refused setup says what to do. */
function setupError(ctx: IHookFunctions, error: unknown): NodeApiError | NodeOperationError {
  if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
  if (error instanceof WebhookSetupError) return new NodeOperationError(ctx.getNode(), error.message, { description: error.hint });
  return new NodeOperationError(ctx.getNode(), error as Error);
}

function warnTo(logger: { warn(message: string): void }): (message: string) => void {
  return (message) => logger.warn(`Company Data Trigger: ${message}`);
}

async function hookContext(ctx: IHookFunctions) {
  const creds = (await ctx.getCredentials(CREDENTIAL_TYPE)) as CompanyDataCredential;
  const url = ctx.getNodeWebhookUrl('default');
  if (!url) throw new NodeOperationError(ctx.getNode(), 'n8n gave no production webhook address for this node');
  const api = webhookApi(await clientFor(ctx), ctx.getNode());
  const state = ctx.getWorkflowStaticData('node') as HookState;
  return { creds, url, api, state };
}

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

  webhookMethods = {
    default: {
      async checkExists(this: IHookFunctions): Promise<boolean> {
        const { creds, url, api, state } = await hookContext(this);
        try {
          return await checkExists(api, url, state, { credentialSecret: creds.webhookSigningSecret });
        } catch (error) {
          throw setupError(this, error);
        }
      },
      async create(this: IHookFunctions): Promise<boolean> {
        const { creds, url, api, state } = await hookContext(this);
        const options = this.getNodeParameter('options', {}) as IDataObject;
        try {
          const res = await create(api, url, state, { credentialSecret: creds.webhookSigningSecret, takeOver: options.takeOver === true });
          if (res.tookOverFrom) {
            this.logger.warn(`Company Data Trigger took over the account's webhook: events now go to this workflow instead of ${res.tookOverFrom}`);
          }
          return true;
        } catch (error) {
          throw setupError(this, error);
        }
      },
      async delete(this: IHookFunctions): Promise<boolean> {
        const { url, api, state } = await hookContext(this);
        try {
          const res = await remove(api, url, state);
          if (!res.disabled) this.logger.info('Company Data Trigger: the account\'s webhook no longer points to this workflow, so it was left unchanged');
          return true;
        } catch (error) {
          // Deactivation must not be blocked by the service (for example a revoked key); say what was left on.
          this.logger.warn(`Company Data Trigger could not turn the account's webhook off: ${(error as Error).message}`);
          return false;
        }
      },
    },
  };

  async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
    const req = this.getRequestObject() as RawRequest;
    if (req.rawBody === undefined && typeof req.readRawBody === 'function') await req.readRawBody();
    const state = this.getWorkflowStaticData('node') as HookState;
    let creds: CompanyDataCredential | undefined;
    try {
      creds = (await this.getCredentials(CREDENTIAL_TYPE)) as CompanyDataCredential;
    } catch (error) {
      // The secret kept at activation still verifies; a webhook() that throws would start an execution.
      this.logger.warn(`Company Data Trigger could not read its credential: ${(error as Error).message}`);
    }
    const key = triggerKey(this);
    const memory = memoryCheck(key, this.getResponseObject());
    const helpers = this.helpers as unknown;
    const warn = warnTo(this.logger);
    const outcome = await handleDelivery(req.rawBody, req.headers, {
      secrets: knownSecrets(state, creds?.webhookSigningSecret),
      options: readTriggerOptions((name, fallback) => this.getNodeParameter(name, fallback)),
      // n8n 2.41 offers no processed-data store in webhook(); should a later version add it, use it here too.
      checkAndRecord: async (id) => (await memory(id)) && (!hasProcessedData(helpers) || (await newIdsInProcessedData(helpers, key, [id], warn)).has(id)),
    });

    if (outcome.kind === 'rejected') {
      this.logger.warn(`Company Data Trigger rejected a delivery (${outcome.reason}): ${outcome.message}`);
      const res = this.getResponseObject();
      res.status(401).json({ error: 'invalid_signature', reason: outcome.reason });
      return { noWebhookResponse: true };
    }
    if (outcome.kind !== 'accepted') return { webhookResponse: { received: true, event_id: outcome.eventId, [outcome.kind]: true } };
    return { workflowData: [this.helpers.returnJsonArray(outcome.items as IDataObject[])] };
  }

  /**
   * Runs inside the execution a delivery starts (n8n runs a node's execute() before its webhook data
   * passes on). Here n8n offers its processed-data store, shared by all processes and kept across
   * restarts: an event id seen before ends the execution with no items, so nothing after it runs.
   */
  async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    const items = this.getInputData();
    if (this.getMode() === 'manual' || !hasProcessedData(this.helpers)) return [items];
    const ids = items.map((i) => i.json.id).filter((id): id is string => typeof id === 'string');
    const fresh = await newIdsInProcessedData(this.helpers, triggerKey(this), ids, warnTo(this.logger));
    // Paired before filtering, so each kept item points at its own input item.
    const paired = items.map((i, index) => ({ ...i, pairedItem: { item: index } }));
    return [paired.filter((i) => typeof i.json.id !== 'string' || fresh.has(i.json.id))];
  }
}
