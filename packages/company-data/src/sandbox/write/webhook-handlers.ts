import { deliveryView } from './delivery';
import type { WriteHandlers } from './handler';
import { checkWebhookUrl, webhookView } from './webhook-config';

/** Operations of packages/core/operations/webhook.ts, keyed by operation id. */
export const webhookHandlers: WriteHandlers = {
  'webhook.set': (svc, acct, p) => {
    const { state, secret } = svc.createWebhook(acct, checkWebhookUrl(p.url), p.enabled);
    return { data: webhookView(state, secret), status: secret ? 201 : 200 };
  },
  'webhook.get': (svc, acct) => ({ data: webhookView(svc.account(acct).webhook) }),
  'webhook.test': (svc, acct) => {
    const { event, delivery } = svc.testEvent(acct);
    return { data: { event_id: event.id, ...(delivery ? { delivery_id: delivery.id } : {}) }, status: 202 };
  },
  'webhook.deliveries': (svc, acct, p) => {
    const all = svc.deliveries.list(acct).filter((d) => !p.status || d.status === p.status);
    const page = p.page ?? 1;
    const limit = p.limit ?? 25;
    return {
      data: all.slice((page - 1) * limit, page * limit).map(deliveryView),
      meta: { pagination: { page, limit, total: all.length, has_more: page * limit < all.length } },
    };
  },
  'webhook.retryDelivery': (svc, acct, p) => ({ data: deliveryView(svc.deliveries.retry(acct, p.delivery_id)), status: 202 }),
};
