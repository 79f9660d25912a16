/**
 * keepCurrent in the add-on, as `company-data watch` does one pass: one monitoring list holds exactly the
 * sheet's companies; each new change goes into its company's row (last change, changed at = the event's
 * detected time, event id, the name after a rename) and once into the sheet "Company changes"; with a chat
 * webhook, one digest per run that found new changes, nothing when nothing is new.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatBody, chatKind } from '../../packages/sheets-addon/src/chat';
import { json, startTestServer, type TestServer } from '../support/http-server';
import { useAddonWorld } from './world';

const t = useAddonWorld();
let chat: TestServer;
beforeAll(async () => {
  chat = await startTestServer((_q, res) => json(res, 200, { ok: true }));
});
afterAll(async () => {
  await chat?.close();
});

async function change(code: string, category: string, kind: string, details?: Record<string, unknown>) {
  const res = await fetch(`${t.sb.url}/sandbox/changes`, {
    method: 'POST',
    headers: { 'x-api-key': t.sb.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ registry_code: code, category, kind, ...(details ? { details } : {}) }),
  });
  if (!res.ok) throw new Error(`sandbox/changes: ${res.status} ${await res.text()}`);
}

/** The sandbox's events of a list, read the plain way. */
async function events(listId: string): Promise<{ id: string; registry_code: string; detected_at: string }[]> {
  const res = await fetch(`${t.sb.url}/monitoring/events?list_id=${listId}&limit=100`, { headers: { 'X-API-Key': t.sb.apiKey } });
  type Event = { id: string; data: { company: { registry_code: string }; detected_at: string } };
  return ((await res.json()) as { data: Event[] }).data.map((e) => ({
    id: e.id,
    registry_code: e.data.company.registry_code,
    detected_at: e.data.detected_at,
  }));
}

describe('keepCurrent (add-on)', () => {
  it('keeps one list of the sheet, writes new changes into rows and "Company changes" once, one digest per run with news', async () => {
    const codes = await t.codes(10, 3);
    const w = await t.world();
    await w.run('saveSettings', [{ chatWebhookUrl: `${chat.url}/hooks/test` }]);
    w.spreadsheet.addSheet('Portfolio', [['Registry code', 'Account owner'], ...codes.map((c, i) => [c, `owner ${i}`])]);

    const first = await w.run('keepCurrent', [{ sheetName: 'Portfolio' }]);
    expect(first.ok, first.error).toBe(true);
    expect(first.value).toMatchObject({ status: 'done', billedQueries: 10, newChanges: 0, list: { added: 10, removed: 0 } });
    expect(chat.requests).toHaveLength(0);
    const listId = (first.value as { list: { id: string } }).list.id;

    await change(codes[1]!, 'registry', 'name_changed', { new: 'Beeta Uus OÜ' });
    await change(codes[2]!, 'tax', 'tax_debt');
    const second = await w.run('keepCurrent', [{ sheetName: 'Portfolio' }]);
    expect(second.ok, second.error).toBe(true);
    expect(second.value).toMatchObject({ status: 'done', billedQueries: 0, newChanges: 2, list: { added: 0, removed: 0, kept: 10 } });

    const evs = await events(listId);
    expect(evs).toHaveLength(2);
    const v = w.spreadsheet.values('Portfolio').map((r) => r.map((x) => (x === null || x === undefined ? '' : String(x))));
    const h = v[0]!;
    const col = (name: string) => h.indexOf(name);
    for (const e of evs) {
      const row = v.find((r) => r[0] === e.registry_code)!;
      expect(row[col('company_data_last_event_id')]).toBe(e.id);
      expect(row[col('company_data_changed_at')]).toBe(e.detected_at);
      expect(row[col('company_data_last_change')]).not.toBe('');
      expect(row[1]).toMatch(/^owner /);
    }
    expect(v.find((r) => r[0] === codes[1])![col('company_data_match_name')]).toBe('Beeta Uus OÜ');

    const log = w.spreadsheet.values('Company changes').map((r) => r.map((x) => (x === null || x === undefined ? '' : String(x))));
    expect(log[0]![0]).toBe('event_id');
    expect(
      log
        .slice(1)
        .map((r) => r[0])
        .sort(),
    ).toEqual(evs.map((e) => e.id).sort());

    expect(chat.requests).toHaveLength(1);
    const posted = JSON.parse(chat.requests[0]!.body) as { text: string };
    expect(posted.text).toContain('Beeta Uus');

    // Nothing new: no row written again, no event twice, no digest.
    const third = await w.run('keepCurrent', [{ sheetName: 'Portfolio' }]);
    expect(third.value).toMatchObject({ status: 'done', newChanges: 0 });
    expect(w.spreadsheet.values('Company changes')).toHaveLength(3);
    expect(chat.requests).toHaveLength(1);
    // The key is in the user's properties only.
    expect(JSON.stringify(w.documentProperties())).not.toContain(t.sb.apiKey);
    expect(JSON.stringify(w.spreadsheet.sheetNames().map((n) => w.spreadsheet.values(n)))).not.toContain(t.sb.apiKey);
  });

  it('formats the digest for Slack, Google Chat and Microsoft Teams webhooks', () => {
    expect(chatKind('https://hooks.slack.com/services/T/B/x')).toBe('slack');
    expect(chatKind('https://chat.googleapis.com/v1/spaces/AAA/messages?key=k')).toBe('google-chat');
    expect(chatKind('https://contoso.webhook.office.com/webhookb2/x')).toBe('teams');
    expect(chatBody('slack', 'hi')).toEqual({ text: 'hi' });
    expect(chatBody('google-chat', 'hi')).toEqual({ text: 'hi' });
    expect(chatBody('teams', 'hi')).toMatchObject({
      type: 'message',
      attachments: [
        {
          contentType: 'application/vnd.microsoft.card.adaptive',
          content: { type: 'AdaptiveCard', body: [{ type: 'TextBlock', text: 'hi' }] },
        },
      ],
    });
  });
});
