import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { IDataObject } from 'n8n-workflow';
import { CompanyDataTrigger } from '../../../nodes/CompanyDataTrigger/CompanyDataTrigger.node';
import { resetProcessMemory } from '../../../src/n8n/trigger/seen';
import { signWebhook } from '@company-data/core/webhooks';
import {
  ACCOUNT,
  executeContext,
  hookContext,
  logger,
  ProcessedDataTable,
  startRig,
  watchCompany,
  webhookContext,
  type Captured,
  type NodeParams,
  type Rig,
} from './harness';

const node = new CompanyDataTrigger();
const hooks = node.webhookMethods.default;

let rig: Rig;
let staticData: IDataObject;

async function activate(params: NodeParams = {}) {
  staticData = {};
  await hooks.create.call(hookContext(rig, staticData, params, undefined, rig.receiverUrl));
}

async function deliver(delivery: { rawBody: unknown; headers: Captured['headers'] }, params: NodeParams = {}, creds: IDataObject = {}) {
  const { ctx, response } = webhookContext(staticData, delivery, params, creds);
  const result = await node.webhook.call(ctx);
  return { result, response, ctx };
}

/** One real change delivered by the sandbox to the local receiver. */
async function realChange(kind = 'tax_debt', category: 'tax' | 'registry' = 'tax') {
  const { code, listId } = watchCompany(rig);
  const before = rig.captured.length;
  rig.svc.createChange(ACCOUNT, { registry_code: code, category, kind });
  const [captured] = (await rig.waitForDeliveries(before + 1)).slice(before);
  return { code, listId, captured: captured! };
}

beforeEach(async () => {
  resetProcessMemory();
  rig = await startRig();
  await activate();
});
afterEach(async () => rig.close());

describe('a real sandbox delivery replayed into webhook()', () => {
  it('starts the workflow with the event and a ready-to-post summary', async () => {
    const { code, captured } = await realChange();
    expect(captured.headers['user-agent']).toBe('Service-Webhooks/1.0');
    const { result, response } = await deliver(captured);
    expect(response.statusCode).toBe(200);
    const items = result.workflowData![0]!;
    expect(items).toHaveLength(1);
    const json = items[0]!.json as IDataObject & { data: IDataObject };
    expect(json.type).toBe('monitoring.change');
    expect(json.id).toBe(captured.headers['x-service-event-id']);
    expect(json.summary).toMatch(
      new RegExp(`^Tax debt of Näidis Ehitus OÜ \\(${code}\\) rose from 0 € to [\\d,.]+ € — list: Key clients \\(ref CRM-991\\)$`),
    );
  });

  it('writes the summary in Estonian when chosen', async () => {
    const { code, captured } = await realChange();
    const { result } = await deliver(captured, { language: 'et' });
    expect(result.workflowData![0]![0]!.json.summary).toMatch(
      new RegExp(
        `^Näidis Ehitus OÜ \\(${code}\\) maksuvõlg tõusis: 0 € → [\\d\\s\\u00a0\\u202f,]+ € — nimekiri: Key clients \\(viide CRM-991\\)$`,
      ),
    );
  });

  it('a redelivered event starts no second execution (same process)', async () => {
    const { captured } = await realChange();
    const first = await deliver(captured);
    const second = await deliver(captured);
    expect(first.result.workflowData).toBeDefined();
    expect(second.response.statusCode).toBe(200);
    expect(second.result.workflowData).toBeUndefined();
    expect(second.result.webhookResponse).toMatchObject({ duplicate: true });
  });

  it('the sandbox redelivering on purpose yields one execution per event id', async () => {
    await rig.close();
    rig = await startRig({ duplicateRate: 1 });
    await activate();
    const { code } = watchCompany(rig);
    rig.svc.createChange(ACCOUNT, { registry_code: code, category: 'tax', kind: 'tax_debt' });
    const all = await rig.waitForDeliveries(2);
    expect(all[0]!.headers['x-service-event-id']).toBe(all[1]!.headers['x-service-event-id']);
    const runs = [];
    for (const d of all) runs.push((await deliver(d)).result);
    expect(runs.filter((r) => r.workflowData).length).toBe(1);
  });

  it("memory forgets an id whose answer was an error or never went out (n8n failed to queue it), so the service's retry is not dropped as a copy", async () => {
    const { captured } = await realChange();
    const first = await deliver(captured);
    expect(first.result.workflowData).toBeDefined();
    first.ctx.getResponseObject().answer(500);
    const retry = await deliver(captured);
    expect(retry.result.workflowData).toBeDefined();
    retry.ctx.getResponseObject().answer(); // the sender hung up before any answer
    const third = await deliver(captured);
    expect(third.result.workflowData).toBeDefined();
    third.ctx.getResponseObject().answer(200);
    const copy = await deliver(captured);
    expect(copy.result.workflowData).toBeUndefined();
    expect(copy.result.webhookResponse).toMatchObject({ duplicate: true });
  });

  it("after a restart, the execute() step drops an id n8n's processed-data store already holds", async () => {
    const { captured } = await realChange();
    const table = new ProcessedDataTable();
    const first = await deliver(captured);
    const out1 = await node.execute!.call(executeContext(first.result.workflowData![0]!, table));
    expect(out1[0]).toHaveLength(1);
    resetProcessMemory(); // a restart, or another queue-mode webhook process: memory is gone
    const again = await deliver(captured);
    expect(again.result.workflowData).toBeDefined();
    const out2 = await node.execute!.call(executeContext(again.result.workflowData![0]!, table));
    expect(out2[0]).toHaveLength(0);
  });

  it('the execute() step keeps each fresh item paired with its own input item', async () => {
    const table = new ProcessedDataTable();
    await node.execute!.call(executeContext([{ json: { id: 'evt_1' } }], table));
    const out = await node.execute!.call(executeContext([{ json: { id: 'evt_1' } }, { json: { id: 'evt_2' } }], table));
    expect(out[0]).toEqual([{ json: { id: 'evt_2' }, pairedItem: { item: 1 } }]);
  });

  // n8n runs the executions of two deliveries at once; its store has no lock (see ProcessedDataTable).
  it('executions of different events that check the store at once all go on, and all ids are kept', async () => {
    const table = new ProcessedDataTable();
    const ids = ['evt_a', 'evt_b', 'evt_c', 'evt_d'];
    const outs = await Promise.all(ids.map((id) => node.execute!.call(executeContext([{ json: { id } }], table))));
    expect(outs.map((o) => o[0]!.length)).toEqual([1, 1, 1, 1]);
    expect(ids.every((id) => table.holds(id))).toBe(true);
    expect(table.entries()).toHaveLength(4);
  });

  it('executions of one event that check the store at once: exactly one goes on', async () => {
    const table = new ProcessedDataTable();
    const outs = await Promise.all([1, 2, 3].map(() => node.execute!.call(executeContext([{ json: { id: 'evt_same' } }], table))));
    expect(outs.map((o) => o[0]!.length).sort()).toEqual([0, 0, 1]);
  });

  it('a store call that fails is tried again; one that keeps failing lets the event through and warns', async () => {
    const table = new ProcessedDataTable();
    table.failures = 2;
    const out = await node.execute!.call(executeContext([{ json: { id: 'evt_retry' } }], table));
    expect(out[0]).toHaveLength(1);
    expect(table.calls).toBe(3);
    expect(table.entries()).toHaveLength(1);
    expect(table.holds('evt_retry')).toBe(true);

    table.failures = 3;
    const log = logger();
    const out2 = await node.execute!.call(executeContext([{ json: { id: 'evt_lost_store' } }], table, 'webhook', log));
    expect(out2[0]).toHaveLength(1);
    expect(log.warn).toHaveBeenCalledWith(
      expect.stringMatching(/processed-data store failed \(Connection terminated.*evt_lost_store pass on unchecked/),
    );
  });

  it('manual test runs do not record ids in the processed-data store', async () => {
    const { captured } = await realChange();
    const table = new ProcessedDataTable();
    const { result } = await deliver(captured);
    await node.execute!.call(executeContext(result.workflowData![0]!, table, 'manual'));
    expect(table.rows.size).toBe(0);
  });

  it('a webhook.test event from POST /webhook/test gets its summary', async () => {
    const before = rig.captured.length;
    rig.svc.testEvent(ACCOUNT);
    const [captured] = (await rig.waitForDeliveries(before + 1)).slice(before);
    const { result } = await deliver(captured!);
    expect(result.workflowData![0]![0]!.json).toMatchObject({
      type: 'webhook.test',
      summary: 'Company Data test event: the webhook works.',
    });
  });

  it('filters out changes of other categories, kinds, tones and lists without an execution', async () => {
    const { captured, listId } = await realChange();
    for (const filters of [{ categories: ['court'] }, { kinds: 'status_changed' }, { tones: ['good'] }, { listIds: 'lst_other' }]) {
      resetProcessMemory();
      const { result, response } = await deliver(captured, { filters });
      expect(response.statusCode).toBe(200);
      expect(result.workflowData).toBeUndefined();
      expect(result.webhookResponse).toMatchObject({ filtered: true });
    }
    resetProcessMemory();
    const { result } = await deliver(captured, {
      filters: { categories: ['tax'], kinds: 'tax_debt, status_changed', tones: ['bad'], listIds: listId },
    });
    expect(result.workflowData![0]).toHaveLength(1);
  });

  it("verifies with the credential's signing secret when the node kept none (webhook created elsewhere)", async () => {
    const { captured } = await realChange();
    const secret = staticData.signingSecret as string;
    staticData = {};
    const { result } = await deliver(captured, {}, { webhookSigningSecret: secret });
    expect(result.workflowData).toBeDefined();
  });

  it('answers fast: a delivery is handled in well under the 10 s limit', async () => {
    const { captured } = await realChange();
    const t0 = performance.now();
    await deliver(captured);
    expect(performance.now() - t0).toBeLessThan(250);
  });
});

describe('search.matches', () => {
  const event = {
    id: 'evt_srch_4hd82_20261120_1',
    type: 'search.matches',
    created_at: '2026-11-20T06:10:00.000Z',
    data: {
      search: { id: 'srch_4hd82', name: 'Tartu IT' },
      date: '2026-11-20',
      part: 1,
      parts: 2,
      total: 4,
      companies: [
        {
          registry_code: '16000001',
          name: 'Alfa OÜ',
          legal_form: 'osaühing',
          status: 'R',
          registered_on: '2026-11-18',
          address: 'Tartu',
          activity_code: '62011',
          employees: null,
          revenue: null,
          tax_debt: null,
          rating: null,
        },
        {
          registry_code: '16000002',
          name: 'Beeta OÜ',
          legal_form: 'osaühing',
          status: 'R',
          registered_on: '2026-11-19',
          address: 'Tartu',
          activity_code: '62011',
          employees: 2,
          revenue: null,
          tax_debt: null,
          rating: null,
        },
      ],
    },
  };
  const signed = () => {
    const body = JSON.stringify(event);
    const h = signWebhook({ secret: staticData.signingSecret as string, body, eventId: event.id });
    return { rawBody: Buffer.from(body), headers: Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v])) };
  };

  it('one item per event by default', async () => {
    const { result } = await deliver(signed());
    const items = result.workflowData![0]!;
    expect(items).toHaveLength(1);
    expect(items[0]!.json.summary).toBe(
      '2 new companies match the saved search "Tartu IT": Alfa OÜ (16000001), Beeta OÜ (16000002) (part 1 of 2)',
    );
  });

  it('one item per company when chosen, shaped like a change (data.company)', async () => {
    const { result } = await deliver(signed(), { options: { onePerCompany: true }, language: 'et' });
    const items = result.workflowData![0]!;
    expect(items.map((i) => (i.json.data as IDataObject & { company: { name: string } }).company.name)).toEqual(['Alfa OÜ', 'Beeta OÜ']);
    expect(items[0]!.json.summary).toBe(
      'Alfa OÜ (16000001) vastab nüüd salvestatud otsingule „Tartu IT“ — Tartu, registreeritud 2026-11-18',
    );
  });
});

describe('bad deliveries: 401 and no execution', () => {
  const now = () => Math.floor(Date.now() / 1000);
  type Variant = (good: Captured, secret: string) => { rawBody: unknown; headers: Captured['headers'] };
  const resign = (body: string | Buffer, secret: string, timestamp = now()) => {
    const h = signWebhook({ secret, body, timestamp });
    return {
      'content-type': 'application/json',
      'x-service-timestamp': h['X-Service-Timestamp'],
      'x-service-signature': h['X-Service-Signature'],
    };
  };
  const withHeaders = (g: Captured, patch: Record<string, string | string[] | undefined>) => ({
    rawBody: g.rawBody,
    headers: { ...g.headers, ...patch },
  });
  const sig = (g: Captured) => String(g.headers['x-service-signature']);
  const hex = (g: Captured) => sig(g).slice(3);

  const cases: Record<string, Variant> = {
    'tampered body': (g) => ({
      rawBody: Buffer.from(g.rawBody.toString('utf8').replace('"tax_debt"', '"tax_debt_cleared"')),
      headers: g.headers,
    }),
    're-serialised JSON': (g) => ({
      rawBody: Buffer.from(JSON.stringify(JSON.parse(g.rawBody.toString('utf8')), null, 2)),
      headers: g.headers,
    }),
    'parsed body instead of the raw one': (g) => ({ rawBody: JSON.parse(g.rawBody.toString('utf8')), headers: g.headers }),
    'no raw body at all': (g) => ({ rawBody: undefined, headers: g.headers }),
    'wrong secret': (g) => ({ rawBody: g.rawBody, headers: resign(g.rawBody, 'whsec_not_the_right_one') }),
    'stale timestamp (301 s old)': (g, s) => ({ rawBody: g.rawBody, headers: resign(g.rawBody, s, now() - 301) }),
    'future timestamp (301 s ahead)': (g, s) => ({ rawBody: g.rawBody, headers: resign(g.rawBody, s, now() + 301) }),
    'timestamp changed, signature kept': (g) =>
      withHeaders(g, { 'x-service-timestamp': String(Number(g.headers['x-service-timestamp']) + 1) }),
    'missing signature header': (g) => withHeaders(g, { 'x-service-signature': undefined }),
    'missing timestamp header': (g) => withHeaders(g, { 'x-service-timestamp': undefined }),
    'duplicated signature header (joined by node:http)': (g) => withHeaders(g, { 'x-service-signature': `${sig(g)}, ${sig(g)}` }),
    'duplicated signature header (array)': (g) => withHeaders(g, { 'x-service-signature': [sig(g), sig(g)] }),
    'duplicated timestamp header': (g) =>
      withHeaders(g, { 'x-service-timestamp': `${g.headers['x-service-timestamp']}, ${g.headers['x-service-timestamp']}` }),
    'malformed timestamp': (g) => withHeaders(g, { 'x-service-timestamp': `${g.headers['x-service-timestamp']}s` }),
    'signature without scheme': (g) => withHeaders(g, { 'x-service-signature': hex(g) }),
    'wrong scheme v2': (g) => withHeaders(g, { 'x-service-signature': `v2=${hex(g)}` }),
    'uppercase hex': (g) => withHeaders(g, { 'x-service-signature': `v1=${hex(g).toUpperCase()}` }),
    'short hex (63 characters)': (g) => withHeaders(g, { 'x-service-signature': `v1=${hex(g).slice(0, 63)}` }),
    'empty body': (g) => ({ rawBody: Buffer.alloc(0), headers: g.headers }),
    'empty body, correctly signed': (_g, s) => ({ rawBody: Buffer.alloc(0), headers: resign('', s) }),
    'non-JSON body, correctly signed': (_g, s) => ({
      rawBody: Buffer.from('event=monitoring.change'),
      headers: resign('event=monitoring.change', s),
    }),
    'JSON array body, correctly signed': (_g, s) => ({ rawBody: Buffer.from('[]'), headers: resign('[]', s) }),
    'signature of another delivery': (g, s) => ({
      rawBody: g.rawBody,
      headers: {
        ...g.headers,
        'x-service-signature': resign('{"id":"evt_1"}', s, Number(g.headers['x-service-timestamp']))['x-service-signature'],
      },
    }),
  };

  it('has at least 15 cases', () => expect(Object.keys(cases).length).toBeGreaterThanOrEqual(15));

  for (const [name, variant] of Object.entries(cases)) {
    it(name, async () => {
      const { captured } = await realChange();
      const bad = variant(captured, staticData.signingSecret as string);
      const { result, response, ctx } = await deliver(bad);
      expect(response.statusCode).toBe(401);
      expect(result).toEqual({ noWebhookResponse: true });
      expect(ctx.logger.warn).toHaveBeenCalledTimes(1);
      expect(String(ctx.logger.warn.mock.calls[0]![0])).not.toContain(staticData.signingSecret as string);
      // The bad request did not use up the event id: the genuine delivery still runs.
      expect((await deliver(captured)).result.workflowData).toBeDefined();
    });
  }

  it('no known secret: 401, nothing runs', async () => {
    const { captured } = await realChange();
    staticData = {};
    const { result, response } = await deliver(captured);
    expect(response.statusCode).toBe(401);
    expect(result.workflowData).toBeUndefined();
  });
});
