import type {
  IDataObject,
  IExecuteFunctions,
  IHookFunctions,
  INodeExecutionData,
  IWebhookFunctions,
  IWebhookResponseData,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { clientFor, type CompanyDataCredential } from '../transport/client';
import { toNodeError } from '../errors';
import { CREDENTIAL_TYPE } from '../transport';
import { webhookApi } from '../trigger/api';
import { layeredDedupe, newIds } from '@company-data/core/webhooks';
import { handleDelivery } from '../trigger/delivery';
import { checkExists, create, knownSecrets, remove, type HookState } from '../trigger/lifecycle';
import { readTriggerOptions } from '../descriptions/trigger-properties';
import { hasProcessedData, memoryCheck, processedDataDedupe, triggerKey } from '../trigger/seen';
import { credentialSecrets, type ReadSecret } from '../trigger/secret-cache';
import { fixedSettings } from '../trigger/fixed-settings';

/**
 * The Company Data Trigger's behaviour: activation and deactivation (the account's one webhook), a
 * delivery arriving, and the dedupe step of the execution it starts. The node file only delegates.
 */

type RawRequest = ReturnType<IWebhookFunctions['getRequestObject']> & { rawBody?: Buffer; readRawBody?: () => Promise<void> };

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

/** The node's webhookMethods.default: n8n calls them on activation and deactivation. */
export const webhookLifecycle = {
  async checkExists(this: IHookFunctions): Promise<boolean> {
    const { creds, url, api, state } = await hookContext(this);
    try {
      return await checkExists(api, url, state, { credentialSecret: creds.webhookSigningSecret });
    } catch (error) {
      throw toNodeError(this.getNode(), error, undefined);
    }
  },
  async create(this: IHookFunctions): Promise<boolean> {
    const { creds, url, api, state } = await hookContext(this);
    const options = this.getNodeParameter('options', {}) as IDataObject;
    try {
      const res = await create(api, url, state, { credentialSecret: creds.webhookSigningSecret, takeOver: options.takeOver === true });
      if (res.tookOverFrom) {
        this.logger.warn(
          `Company Data Trigger took over the account's webhook: events now go to this workflow instead of ${res.tookOverFrom}`,
        );
      }
      return true;
    } catch (error) {
      throw toNodeError(this.getNode(), error, undefined);
    }
  },
  async delete(this: IHookFunctions): Promise<boolean> {
    const { url, api, state } = await hookContext(this);
    try {
      const res = await remove(api, url, state);
      if (!res.disabled)
        this.logger.info("Company Data Trigger: the account's webhook no longer points to this workflow, so it was left unchanged");
      return true;
    } catch (error) {
      // Deactivation must not be blocked by the service (for example a revoked key); say what was left on.
      this.logger.warn(`Company Data Trigger could not turn the account's webhook off: ${(error as Error).message}`);
      return false;
    }
  },
};

/** The credential's signing secret, read now; undefined (with a warning) when it cannot be read. */
function credentialSecretReader(ctx: IWebhookFunctions): ReadSecret {
  return async () => {
    try {
      const creds = (await ctx.getCredentials(CREDENTIAL_TYPE)) as CompanyDataCredential;
      return creds.webhookSigningSecret?.trim() || undefined;
    } catch (error) {
      // The secret kept at activation still verifies; a webhook() that throws would start an execution.
      ctx.logger.warn(`Company Data Trigger could not read its credential: ${(error as Error).message}`);
      return undefined;
    }
  };
}

/**
 * A delivery arrives: verify, dedupe in memory, answer the service, and start the workflow with its items.
 * In this order, so each step is paid only by deliveries that need it: the credential's secret comes from
 * this process's cache (read again only when the delivery does not verify), a copy is dropped right after
 * the signature, and only a new event reads the node's settings (as saved, see fixedSettings).
 */
export async function receiveDelivery(ctx: IWebhookFunctions): Promise<IWebhookResponseData> {
  const req = ctx.getRequestObject() as RawRequest;
  if (req.rawBody === undefined && typeof req.readRawBody === 'function') await req.readRawBody();
  const state = ctx.getWorkflowStaticData('node') as HookState;
  const node = ctx.getNode(); // n8n hands out a copy on each call: taken once
  const key = triggerKey({ getWorkflow: () => ctx.getWorkflow(), getNode: () => node });
  // Another credential chosen for the node is another entry.
  const secretKey = `${key}:${node.credentials?.[CREDENTIAL_TYPE]?.id ?? ''}`;
  const readSecret = credentialSecretReader(ctx);
  const kept = await credentialSecrets.get(secretKey, readSecret);
  const memory = memoryCheck(key, ctx.getResponseObject());
  const helpers = ctx.helpers as unknown;
  const warn = warnTo(ctx.logger);
  const outcome = await handleDelivery(req.rawBody, req.headers, {
    secrets: knownSecrets(state, kept.secret),
    rereadSecrets: kept.fresh
      ? undefined
      : async () => {
          const again = await credentialSecrets.reread(secretKey, readSecret);
          return again.changed ? knownSecrets(state, again.secret) : undefined;
        },
    options: () => readTriggerOptions(fixedSettings(ctx)),
    // n8n 2.41 offers no processed-data store in webhook(); should a later version add it, use it here too.
    seen: layeredDedupe(hasProcessedData(helpers) ? [memory, processedDataDedupe(helpers, key, warn)] : [memory]),
  });

  if (outcome.kind === 'rejected') {
    ctx.logger.warn(`Company Data Trigger rejected a delivery (${outcome.reason}): ${outcome.message}`);
    const res = ctx.getResponseObject();
    res.status(401).json({ error: 'invalid_signature', reason: outcome.reason });
    return { noWebhookResponse: true };
  }
  if (outcome.kind !== 'accepted') return { webhookResponse: { received: true, event_id: outcome.eventId, [outcome.kind]: true } };
  return { workflowData: [ctx.helpers.returnJsonArray(outcome.items as IDataObject[])] };
}

/**
 * Runs inside the execution a delivery starts (n8n runs a node's execute() before its webhook data
 * passes on). Here n8n offers its processed-data store, shared by all processes and kept across
 * restarts: an event id seen before ends the execution with no items, so nothing after it runs.
 */
export async function dropSeenDeliveries(ctx: IExecuteFunctions): Promise<INodeExecutionData[][]> {
  const items = ctx.getInputData();
  if (ctx.getMode() === 'manual' || !hasProcessedData(ctx.helpers)) return [items];
  const ids = items.map((i) => i.json.id).filter((id): id is string => typeof id === 'string');
  const fresh = await newIds(processedDataDedupe(ctx.helpers, triggerKey(ctx), warnTo(ctx.logger)), ids);
  // Paired before filtering, so each kept item points at its own input item.
  const paired = items.map((i, index) => ({ ...i, pairedItem: { item: index } }));
  return [paired.filter((i) => typeof i.json.id !== 'string' || fresh.has(i.json.id))];
}
