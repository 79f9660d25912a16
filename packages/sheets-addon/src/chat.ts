/**
 * One digest per keepCurrent run with new changes, posted to the chat webhook the user saved: the core's
 * digest text (Slack mrkdwn, made inert), in the body each service's incoming webhook takes. Slack and
 * Google Chat take {"text"}; Microsoft Teams (Workflows) an Adaptive Card in a message.
 */
import type { Transport } from '@company-data/core/transport';

export type ChatKind = 'slack' | 'google-chat' | 'teams';

export function chatKind(url: string): ChatKind {
  const host = (/^https?:\/\/([^/:?#]+)/i.exec(url)?.[1] ?? '').toLowerCase();
  if (host === 'chat.googleapis.com') return 'google-chat';
  if (host.endsWith('.webhook.office.com') || host.endsWith('.logic.azure.com') || host.endsWith('.powerplatform.com')) return 'teams';
  return 'slack';
}

export function chatBody(kind: ChatKind, text: string): unknown {
  if (kind !== 'teams') return { text };
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        content: { type: 'AdaptiveCard', version: '1.4', body: [{ type: 'TextBlock', text, wrap: true }] },
      },
    ],
  };
}

/** Posts the digest; the answer's status for the report (the webhook's address is never put in it). */
export async function postDigest(transport: Transport, url: string, text: string): Promise<{ ok: boolean; status: number }> {
  const kind = chatKind(url);
  const res = await transport.request({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(chatBody(kind, text)),
  });
  return { ok: res.status >= 200 && res.status < 300, status: res.status };
}
