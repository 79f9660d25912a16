import type { INode } from 'n8n-workflow';
import type { CoreClient } from '@company-data/core/client';
import type { PollApi, CursorRead } from './poll';
import type { WebhookApi, WebhookConfigLike } from './lifecycle';
import { NotFoundError } from '@company-data/core/errors';
import { toNodeError } from '../errors';

/**
 * The trigger's webhook port over the core client. Errors leave it as n8n errors of `node`, with the
 * n8n hints (an invalid key points to the credential), as the action nodes' errors do.
 */
export function webhookApi(client: CoreClient, node: INode): WebhookApi {
  const ops = client.ops.webhook;
  return {
    async get(): Promise<WebhookConfigLike> {
      try {
        const { data } = await client.webhook.get();
        return { url: data.url ?? null, enabled: data.enabled === true };
      } catch (error) {
        // A service without the decided GET /webhook, or an account that never set one.
        if (error instanceof NotFoundError) return { url: null, enabled: false };
        throw toNodeError(node, error, ops.get);
      }
    },
    async set(url, enabled) {
      try {
        const { data } = await client.webhook.set({ url, enabled });
        return { url: data.url ?? null, enabled: data.enabled === true, signing_secret: data.signing_secret };
      } catch (error) {
        throw toNodeError(node, error, ops.set);
      }
    },
  };
}

function cursorRead(data: unknown, meta: Record<string, unknown>, after: string | undefined, limit: number): CursorRead {
  const items: unknown[] = Array.isArray(data) ? data : [];
  const last = items.length ? (items[items.length - 1] as { id?: unknown }).id : undefined;
  const next =
    typeof meta.next_cursor === 'string' && meta.next_cursor !== '' ? meta.next_cursor : typeof last === 'string' ? last : (after ?? null);
  const hasMore = typeof meta.has_more === 'boolean' ? meta.has_more : items.length >= limit;
  return { items, cursor: next, hasMore };
}

/** The poll trigger's cursor reads; the poll trigger converts their errors where it catches them. */
export function pollApi(client: CoreClient): PollApi {
  return {
    async events(after, limit) {
      const res = await client.monitoring.events({ after, limit });
      return cursorRead(res.data, res.meta as Record<string, unknown>, after, limit);
    },
    async matches(searchId, after, limit) {
      const res = await client.searches.matches({ search_id: searchId, after, limit });
      return cursorRead(res.data, res.meta as Record<string, unknown>, after, limit);
    },
  };
}
