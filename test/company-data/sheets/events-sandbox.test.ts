/**
 * Events → rows against the sandbox's write side over real HTTP: poll mode with the cursor, and
 * webhook mode with real signed deliveries that the sandbox sends more than once on purpose.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompanyDataClient } from '../../../packages/company-data/src/index';
import { CsvTable } from '../../../packages/company-data/src/sheets/csv-table';
import { pollEventsToSheet, startWebhookReceiver } from '../../../packages/company-data/src/sheets/event-sources';
import { EventSheetWriter } from '../../../packages/company-data/src/sheets/events-to-rows';
import { startEventsSandbox, type EventsSandbox } from '../sandbox/monitoring/support/sandbox';

let h: EventsSandbox;
let client: CompanyDataClient;
let listId: string;
beforeAll(async () => {
  h = await startEventsSandbox({ companies: 10 });
  client = new CompanyDataClient({ baseUrl: h.url, apiKey: h.apiKey });
  const list = await client.monitoring.createList({ name: 'Customers' });
  listId = (list.data as { id: string }).id;
  await client.monitoring.addCompanies({
    list_id: listId,
    add: h.codes.slice(0, 5).map((c) => ({ registry_code: c, external_ref: `crm-${c}` })),
  });
});
afterAll(async () => {
  await client.close();
  await h.close();
});

async function control(method: string, path: string, body: unknown): Promise<unknown> {
  const res = await fetch(`${h.url}${path}`, {
    method,
    headers: { 'x-api-key': h.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const j = (await res.json()) as { data: unknown };
  if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(j)}`);
  return j.data;
}

const change = (code: string) => control('POST', '/sandbox/changes', { registry_code: code, category: 'court' });
const sheetIds = (file: string) => (parse(readFileSync(file, 'utf8')) as string[][]).slice(1).map((r) => r[0]);

describe('events-to-sheet, poll mode', () => {
  it('appends each event once across restarts, a lost ledger and new events', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'poll-'));
    try {
      const file = join(dir, 'events.csv');
      for (const c of h.codes.slice(0, 3)) await change(c);
      const poll = async (stateDir: string) => {
        const writer = new EventSheetWriter({ table: new CsvTable(file), stateDir });
        await writer.open();
        await pollEventsToSheet({ client, writer, once: true });
        await writer.close();
        return writer.stats;
      };
      expect((await poll(join(dir, 'a'))).appended).toBe(3);
      expect((await poll(join(dir, 'a'))).appended).toBe(0);
      // A lost ledger: the sheet's event_id column is the record; nothing is added twice.
      const lost = await poll(join(dir, 'b'));
      expect(lost).toMatchObject({ appended: 0, reconciled: 3, duplicates: 3 });
      await change(h.codes[3]!);
      expect((await poll(join(dir, 'a'))).appended).toBe(1);
      const ids = sheetIds(file);
      expect(ids).toHaveLength(4);
      expect(new Set(ids).size).toBe(4);
      const rows = parse(readFileSync(file, 'utf8')) as string[][];
      expect(rows[1]![rows[0]!.indexOf('lists')]).toBe(`Customers (crm-${h.codes[0]})`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('events-to-sheet, webhook mode', () => {
  it('stores real deliveries once although the sandbox sends each three times', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hook-'));
    const file = join(dir, 'events.csv');
    const writer = new EventSheetWriter({ table: new CsvTable(file), stateDir: join(dir, 'state') });
    await writer.open();
    const secrets: string[] = [];
    const outcomes: string[] = [];
    const rx = await startWebhookReceiver({ writer, secrets, onEvent: (id, o) => outcomes.push(`${id}:${o}`) });
    try {
      const hook = (await client.webhook.set({ url: rx.url, enabled: true })).data as { signing_secret?: string };
      secrets.push(hook.signing_secret!);
      await control('PUT', '/sandbox/settings', { duplicate_rate: 1, duplicate_copies: 2 });
      const before = sheetIds(file).length;
      for (const c of h.codes.slice(0, 2)) await change(c);
      const deadline = Date.now() + 15_000;
      while (outcomes.length < 6 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(outcomes.filter((o) => o.endsWith(':appended'))).toHaveLength(2);
      expect(outcomes.filter((o) => o.endsWith(':duplicate'))).toHaveLength(4);
      expect(sheetIds(file).length - before).toBe(2);
    } finally {
      await control('PUT', '/sandbox/settings', { duplicate_rate: 0 });
      await rx.close();
      await writer.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
