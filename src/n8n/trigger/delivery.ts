import { checkWebhook, type DedupeStore, type WebhookHeaders } from '@company-data/core/webhooks';
import { eventToItems, type TriggerItem, type TriggerOptions } from './items';

export type DeliveryOutcome =
  | { kind: 'rejected'; status: 401; reason: string; message: string }
  | { kind: 'duplicate'; eventId: string }
  | { kind: 'filtered'; eventId: string }
  | { kind: 'accepted'; eventId: string; items: TriggerItem[] };

export interface DeliveryContext {
  secrets: readonly string[];
  options: TriggerOptions;
  /** Where event ids are checked and recorded. */
  seen: Pick<DedupeStore, 'checkAndAdd'>;
  now?: number;
}

/**
 * One webhook request: verify (v1 HMAC over the raw body, 300 s both ways), skip ids already seen,
 * then turn the event into items. Nothing here trusts the parsed body or the event id header:
 * only the signed raw body counts.
 */
export async function handleDelivery(rawBody: unknown, headers: WebhookHeaders, ctx: DeliveryContext): Promise<DeliveryOutcome> {
  if (ctx.secrets.length === 0) {
    return {
      kind: 'rejected',
      status: 401,
      reason: 'no_secret',
      message: 'No signing secret is known for this webhook, so no delivery can be verified',
    };
  }
  if (typeof rawBody !== 'string' && !(rawBody instanceof Uint8Array)) {
    return { kind: 'rejected', status: 401, reason: 'body_not_raw', message: 'the raw request body is not available' };
  }
  const checked = checkWebhook({ rawBody, headers, secrets: ctx.secrets, now: ctx.now });
  if (!checked.ok) return { kind: 'rejected', status: 401, reason: checked.reason, message: checked.message };
  const event: { id?: unknown; type?: unknown } = checked.event;
  if (typeof event.id !== 'string' || event.id === '') {
    return { kind: 'rejected', status: 401, reason: 'invalid_json', message: 'the signed event has no id' };
  }
  if (!(await ctx.seen.checkAndAdd(event.id))) return { kind: 'duplicate', eventId: event.id };
  const items = eventToItems(event, ctx.options);
  return items.length ? { kind: 'accepted', eventId: event.id, items } : { kind: 'filtered', eventId: event.id };
}
