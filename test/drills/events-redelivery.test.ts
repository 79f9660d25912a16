/**
 * Drill: 1,000 events, each delivered three times by the sandbox (duplicate_rate 1, duplicate_copies 2:
 * same id and body, new timestamp and signature), to one address feeding the trigger node and the
 * events-to-sheet receiver. Exactly 1,000 executions and 1,000 sheet rows.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompanyDataClient } from '../../packages/company-data/src/index';
import { startSandbox } from '../../packages/company-data/src/sandbox';
import { startFanOut, type FanOut } from './support/receivers';

const KEY = 'sk_drill_events_account_0000000001';
const EVENTS = 1000;

type Sb = Awaited<ReturnType<typeof startSandbox>>;
let sb: Sb;
let fan: FanOut;
let client: CompanyDataClient;

beforeAll(async () => {
  sb = await startSandbox({
    port: 0,
    seed: 1,
    companies: 2000,
    rateLimit: false,
    keys: [{ key: KEY, plan: 'api' }],
    settings: { detectionRate: 0, duplicateRate: 1, duplicateCopies: 2 },
  });
  client = new CompanyDataClient({ baseUrl: sb.url, apiKey: KEY, rateLimit: false });
  fan = await startFanOut({ workflowId: 'wf-drill-events' });
  await fan.activate({ apiKey: KEY, baseUrl: sb.url });
});
afterAll(async () => {
  await fan.close();
  await client.close();
  await sb.close();
});

async function control(path: string, body: unknown): Promise<unknown> {
  const res = await fetch(sb.url + path, {
    method: 'POST',
    headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const j = (await res.json()) as { data: unknown };
  if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(j)}`);
  return j.data;
}

describe('1,000 events, each delivered three times', () => {
  it('1,000 executions and 1,000 sheet rows', async () => {
    const list = (await client.monitoring.createList({ name: 'Drill' })).data as { id: string };
    const codes = sb.dataset.companies.slice(0, 500).map((c) => c.code);
    await client.monitoring.addCompanies({ list_id: list.id, add: codes.map((registry_code) => ({ registry_code })) });
    // A court case can always be added, so each call is one event.
    for (let i = 0; i < EVENTS; i++) await control('/sandbox/changes', { registry_code: codes[i % codes.length], category: 'court' });

    const deadline = Date.now() + 60_000;
    while (fan.deliveries.length < EVENTS * 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));

    const perId = new Map<string, number>();
    for (const d of fan.deliveries) perId.set(d.eventId!, (perId.get(d.eventId!) ?? 0) + 1);
    expect(perId.size).toBe(EVENTS);
    expect([...perId.values()].every((n) => n === 3)).toBe(true);
    expect(fan.deliveries.every((d) => d.trigger === 200 && d.sheet === 200)).toBe(true);

    expect(fan.executions()).toBe(EVENTS);
    expect(new Set(fan.deliveries.filter((d) => d.executed).map((d) => d.eventId)).size).toBe(EVENTS);

    const rows = parse(readFileSync(fan.sheetFile, 'utf8')) as string[][];
    const ids = rows.slice(1).map((r) => r[0]);
    expect(ids).toHaveLength(EVENTS);
    expect(new Set(ids)).toEqual(new Set(perId.keys()));
    expect(fan.writer.stats).toMatchObject({ appended: EVENTS, duplicates: EVENTS * 2 });
  }, 90_000);
});
