import { z } from 'zod/v4';
import { defineOperation } from '../operation';
import { p, param, webhookUrlSchema } from '../params';
import { text } from '../text-length';
import { obj } from '../schemas/common';
import { deliverySchema, webhookConfigSchema } from '../schemas/monitoring';
import { deliveryStatusSchema } from '../vocabulary';

const base = { group: 'webhook', plan: 'api' } as const;

export const set = defineOperation({
  ...base,
  name: 'set',
  label: 'Set Webhook',
  action: 'Set the webhook address',
  description: 'Set where events are sent. The signing secret is returned once, when the webhook is first created.',
  method: 'PUT',
  path: '/webhook',
  params: {
    url: param({
      in: 'body',
      schema: webhookUrlSchema,
      label: 'URL',
      description:
        'HTTPS address that receives the events: a host name (internationalised names in their xn-- form; an xn-- label that is not valid punycode is refused with 400) or IPv4 address, an optional port and path, without user name or password. Only https:// is accepted (the offline sandbox also takes http:// to 127.0.0.1, localhost or [::1]).',
    }),
    enabled: param({ in: 'body', schema: z.boolean(), label: 'Enabled', description: 'Whether events are sent' }),
  },
  response: webhookConfigSchema,
  // The first PUT creates the webhook and is the only answer with the signing secret: a silent retry after
  // a lost answer would return success without it, so the caller must see that the outcome is unknown.
  answers: {
    success: {
      200: 'Updated; the signing secret is not shown again',
      201: 'Created; data.secret holds the signing secret, shown this once',
    },
  },
  retry: 'unprocessed-only',
  notATool:
    'Its answer carries the signing secret, and it moves every event of the account elsewhere: an account setting for a person, not for an assistant.',
  source: 'shown',
});

export const get = defineOperation({
  ...base,
  name: 'get',
  label: 'Get Webhook',
  action: 'Get the webhook settings',
  description: 'Where events are sent and whether sending is on (never the secret)',
  method: 'GET',
  path: '/webhook',
  params: {},
  response: webhookConfigSchema,
  retry: 'safe',
  source: 'decided',
});

export const test = defineOperation({
  ...base,
  name: 'test',
  label: 'Send Test Event',
  action: 'Send a test event',
  description: 'Send a webhook.test event, signed like the others',
  method: 'POST',
  path: '/webhook/test',
  params: {},
  response: obj({ event_id: z.string(), delivery_id: z.string().optional() }),
  answers: {
    success: { 202: 'Accepted; the test event is queued for delivery' },
    conflicts: { webhook_not_set: 'No webhook is set: PUT /webhook first', webhook_disabled: 'The webhook is disabled' },
  },
  retry: 'unprocessed-only',
  source: 'shown',
});

export const deliveries = defineOperation({
  ...base,
  name: 'deliveries',
  label: 'Get Deliveries',
  action: 'Get webhook deliveries',
  description: 'Recent webhook deliveries with their status and attempts',
  method: 'GET',
  path: '/webhook/deliveries',
  params: {
    status: param({
      in: 'query',
      schema: deliveryStatusSchema.optional(),
      label: 'Status',
      description: 'Only deliveries in this state',
      optional: true,
    }),
    page: p.page,
    limit: p.limit,
  },
  response: z.array(deliverySchema),
  paged: true,
  retry: 'safe',
  source: 'decided',
});

export const retryDelivery = defineOperation({
  ...base,
  name: 'retryDelivery',
  label: 'Retry Delivery',
  action: 'Retry a failed delivery',
  description: 'Make a new delivery of the event of a failed delivery',
  method: 'POST',
  path: '/webhook/deliveries/{delivery_id}/retry',
  params: {
    delivery_id: param({
      in: 'path',
      schema: text({ min: 1 }),
      label: 'Delivery ID',
      description: 'ID of the failed delivery, e.g. dlv_12',
      picker: 'failedDelivery',
    }),
  },
  response: deliverySchema,
  answers: {
    success: { 202: 'Accepted; a new delivery of the event is queued' },
    conflicts: {
      delivery_in_progress: 'The delivery has not failed or finished yet',
      webhook_disabled: 'No enabled webhook to deliver to',
    },
  },
  retry: 'unprocessed-only',
  source: 'shown',
});
