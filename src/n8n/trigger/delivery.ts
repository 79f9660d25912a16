import { checkWebhook, type DedupeStore, type WebhookHeaders } from '@company-data/core/webhooks';
import { eventToItems, type TriggerItem, type TriggerOptions } from './items';

export type DeliveryOutcome =
  | { kind: 'rejected'; status: 401; reason: string; message: string }
  | { kind: 'duplicate'; eventId: string }
  | { kind: 'filtered'; eventId: string }
  | { kind: 'accepted'; eventId: string; items: TriggerItem[] };

export interface DeliveryContext {
  /** The secrets kept from earlier deliveries (may be stale after a rotation). */
  secrets: readonly string[];
  /**
   * Reads the secrets again, once, when none of `secrets` verifies the delivery: a rotated secret is
   * then picked up by its first delivery. Undefined when nothing new was found.
   */
  rereadSecrets?: () => Promise<readonly string[] | undefined>;
  /** The node's settings; a function so that copies and refused deliveries never read them. */
  options: TriggerOptions | (() => TriggerOptions);
  /** Where event ids are checked and recorded. */
  seen: Pick<DedupeStore, 'checkAndAdd'>;
  now?: number;
}

type Rejected = Extract<DeliveryOutcome, { kind: 'rejected' }>;

const rejected = (reason: string, message: string): Rejected => ({ kind: 'rejected', status: 401, reason, message });

function verify(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secrets: readonly string[],
  now?: number,
): Rejected | { kind: 'verified'; event: { id?: unknown } } {
  if (secrets.length === 0) return rejected('no_secret', 'No signing secret is known for this webhook, so no delivery can be verified');
  const checked = checkWebhook({ rawBody, headers, secrets, now });
  return checked.ok ? { kind: 'verified', event: checked.event } : rejected(checked.reason, checked.message);
}

/** A refusal that a newer secret could turn into an acceptance; the others (headers, clock, body) could not. */
const secretMayHelp = (r: Rejected) => r.reason === 'no_secret' || r.reason === 'bad_signature';

/**
 * One webhook request: verify (v1 HMAC over the raw body, 300 s both ways), skip ids already seen,
 * then turn the event into items. Nothing here trusts the parsed body or the event id header:
 * only the signed raw body counts. The secrets are read again at most once per request.
 */
export async function handleDelivery(rawBody: unknown, headers: WebhookHeaders, ctx: DeliveryContext): Promise<DeliveryOutcome> {
  if (typeof rawBody !== 'string' && !(rawBody instanceof Uint8Array)) {
    return rejected('body_not_raw', 'the raw request body is not available');
  }
  let checked = verify(rawBody, headers, ctx.secrets, ctx.now);
  if (checked.kind === 'rejected' && secretMayHelp(checked) && ctx.rereadSecrets) {
    const again = await ctx.rereadSecrets();
    if (again) checked = verify(rawBody, headers, again, ctx.now);
  }
  if (checked.kind === 'rejected') return checked;
  const event = checked.event;
  if (typeof event.id !== 'string' || event.id === '') return rejected('invalid_json', 'the signed event has no id');
  if (!(await ctx.seen.checkAndAdd(event.id))) return { kind: 'duplicate', eventId: event.id };
  const items = eventToItems(event, typeof ctx.options === 'function' ? ctx.options() : ctx.options);
  return items.length ? { kind: 'accepted', eventId: event.id, items } : { kind: 'filtered', eventId: event.id };
}
