import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { IDataObject } from 'n8n-workflow';
import { signWebhook } from '@company-data/core/webhooks';
import { CompanyDataTrigger } from '../../../nodes/CompanyDataTrigger/CompanyDataTrigger.node';
import { resetProcessMemory } from '../../../src/n8n/trigger/seen';
import { secretCache } from '../../../src/n8n/trigger/secret-cache';
import { hasExpression } from '../../../src/n8n/trigger/fixed-settings';
import { webhookContext } from './harness';

/**
 * What webhook() reads per delivery: the credential's signing secret once per process and node (again only
 * when a delivery does not verify), the node's settings as saved and only for a new event. The n8n context
 * is the harness's; getCredentials and getNodeParameter are spies so the reads can be counted.
 */

const node = new CompanyDataTrigger();
const OLD = 'whsec_old_secret_0001';
const NEW = 'whsec_new_secret_0002';

function change(id: string) {
  return JSON.stringify({
    id,
    type: 'monitoring.change',
    created_at: '2026-12-05T06:00:00.000Z',
    data: {
      company: { registry_code: '10000001', name: 'Näidis OÜ' },
      lists: [{ id: 'lst_a', name: 'Key clients', external_ref: null }],
      category: 'tax',
      kind: 'tax_debt',
      tone: 'bad',
      details: { old: 0, new: 100 },
      detected_at: '2026-12-05T06:00:00.000Z',
    },
  });
}

function signed(id: string, secret: string) {
  const body = change(id);
  const h = signWebhook({ secret, body, eventId: id });
  const headers = Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));
  return { rawBody: Buffer.from(body), headers };
}

/** The credential as n8n would return it now; `secret` can change between deliveries (a rotation). */
function account(secret: string | undefined) {
  const state = { secret, fail: false };
  const getCredentials = vi.fn(async () => {
    if (state.fail) throw new Error('credential store unavailable');
    return { apiKey: 'sk_x', webhookSigningSecret: state.secret };
  });
  return { state, getCredentials };
}

type Settings = Record<string, unknown>;

async function deliver(
  acct: ReturnType<typeof account>,
  delivery: ReturnType<typeof signed>,
  staticData: IDataObject = {},
  settings: Settings = {},
) {
  const { ctx, response } = webhookContext(staticData, delivery);
  const calls: Array<{ name: string; raw: boolean }> = [];
  Object.assign(ctx, {
    getCredentials: acct.getCredentials,
    getNodeParameter: (name: string, fallback: unknown, options?: { rawExpressions?: boolean }) => {
      calls.push({ name, raw: options?.rawExpressions === true });
      const value = settings[name] ?? fallback;
      // n8n evaluates '={{ "et" }}' to "et"; this stands in for the one expression the tests use.
      if (!options?.rawExpressions && value === '={{ "et" }}') return 'et';
      return value;
    },
  });
  const result = await node.webhook.call(ctx);
  return { result, response, ctx, calls };
}

beforeEach(() => resetProcessMemory());

describe("the credential's signing secret in webhook()", () => {
  it('is read once per process for a burst of deliveries and copies', async () => {
    const acct = account(NEW);
    for (let n = 0; n < 5; n++) {
      expect((await deliver(acct, signed(`evt_${n}`, NEW))).result.workflowData).toBeDefined();
      expect((await deliver(acct, signed(`evt_${n}`, NEW))).result.webhookResponse).toMatchObject({ duplicate: true });
    }
    expect(acct.getCredentials).toHaveBeenCalledTimes(1);
  });

  it('deliveries arriving together before the first read ends share that read', async () => {
    const acct = account(NEW);
    const results = await Promise.all([0, 1, 2, 3].map((n) => deliver(acct, signed(`evt_${n}`, NEW))));
    expect(results.every((r) => r.result.workflowData !== undefined)).toBe(true);
    expect(acct.getCredentials).toHaveBeenCalledTimes(1);
  });

  it('a secret rotated in the credential is picked up by its first delivery, with one more read', async () => {
    const acct = account(OLD);
    expect((await deliver(acct, signed('evt_1', OLD))).result.workflowData).toBeDefined();
    acct.state.secret = NEW;
    expect((await deliver(acct, signed('evt_2', NEW))).result.workflowData).toBeDefined();
    expect(acct.getCredentials).toHaveBeenCalledTimes(2);
    expect((await deliver(acct, signed('evt_3', NEW))).result.workflowData).toBeDefined();
    expect(acct.getCredentials).toHaveBeenCalledTimes(2);
  });

  it('the secret kept at activation keeps verifying deliveries signed before the rotation, without a read', async () => {
    const acct = account(NEW);
    const staticData = { signingSecret: OLD };
    expect((await deliver(acct, signed('evt_1', NEW), staticData)).result.workflowData).toBeDefined();
    expect((await deliver(acct, signed('evt_2', OLD), staticData)).result.workflowData).toBeDefined();
    expect(acct.getCredentials).toHaveBeenCalledTimes(1);
  });

  it('a forged delivery costs one read at most, is refused, and does not use up the event id', async () => {
    const acct = account(NEW);
    await deliver(acct, signed('evt_1', NEW));
    for (let n = 0; n < 3; n++) {
      const { response, result } = await deliver(acct, signed('evt_2', 'whsec_forged'));
      expect(response.statusCode).toBe(401);
      expect(result).toEqual({ noWebhookResponse: true });
    }
    expect(acct.getCredentials).toHaveBeenCalledTimes(1 + 3);
    expect((await deliver(acct, signed('evt_2', NEW))).result.workflowData).toBeDefined();
    expect(acct.getCredentials).toHaveBeenCalledTimes(4);
  });

  it('a credential that cannot be read: the kept secret still verifies; a later failing delivery reads again', async () => {
    const acct = account(NEW);
    acct.state.fail = true;
    const first = await deliver(acct, signed('evt_1', OLD), { signingSecret: OLD });
    expect(first.result.workflowData).toBeDefined();
    expect(first.ctx.logger.warn).toHaveBeenCalledTimes(1);
    expect(String(first.ctx.logger.warn.mock.calls[0]![0])).toContain('could not read its credential');
    acct.state.fail = false;
    expect((await deliver(acct, signed('evt_2', NEW), { signingSecret: OLD })).result.workflowData).toBeDefined();
    expect(acct.getCredentials).toHaveBeenCalledTimes(2);
  });

  it('no secret known at all: one read per delivery, 401, and the first delivery after the secret is entered runs', async () => {
    const acct = account(undefined);
    expect((await deliver(acct, signed('evt_1', NEW))).response.statusCode).toBe(401);
    expect((await deliver(acct, signed('evt_1', NEW))).response.statusCode).toBe(401);
    acct.state.secret = NEW;
    expect((await deliver(acct, signed('evt_1', NEW))).result.workflowData).toBeDefined();
    expect(acct.getCredentials).toHaveBeenCalledTimes(3);
  });
});

describe("the node's settings in webhook()", () => {
  it('are read as saved (no expression evaluation) when they are fixed values', async () => {
    const { calls, result } = await deliver(account(NEW), signed('evt_1', NEW), {}, { language: 'et', filters: { tones: ['bad'] } });
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.every((c) => c.raw)).toBe(true);
    expect(String(result.workflowData![0]![0]!.json.summary)).toContain('maksuvõlg');
  });

  it('a setting holding an expression is evaluated, as n8n would', async () => {
    const { calls, result } = await deliver(account(NEW), signed('evt_1', NEW), {}, { language: '={{ "et" }}' });
    expect(calls.filter((c) => !c.raw).map((c) => c.name)).toEqual(['language']);
    expect(String(result.workflowData![0]![0]!.json.summary)).toContain('maksuvõlg');
  });

  it('a copy and a refused delivery read no settings', async () => {
    const acct = account(NEW);
    await deliver(acct, signed('evt_1', NEW));
    expect((await deliver(acct, signed('evt_1', NEW))).calls).toEqual([]);
    expect((await deliver(acct, signed('evt_2', 'whsec_forged'))).calls).toEqual([]);
  });

  it('hasExpression finds an expression at any depth and nothing in fixed values', () => {
    expect(hasExpression({ a: ['x', { b: '={{ $json.id }}' }] })).toBe(true);
    expect(hasExpression({ a: ['x', { b: 'a=b' }], n: 3, t: true, z: null })).toBe(false);
  });
});

describe('secretCache', () => {
  it('a read that throws keeps no secret and is read again on reread', async () => {
    const cache = secretCache();
    const read = vi.fn().mockRejectedValueOnce(new Error('down')).mockResolvedValueOnce(NEW);
    expect(await cache.get('k', read)).toEqual({ secret: undefined, fresh: true });
    expect(await cache.get('k', read)).toEqual({ secret: undefined, fresh: false });
    expect(await cache.reread('k', read)).toEqual({ secret: NEW, changed: true });
    expect(await cache.get('k', read)).toEqual({ secret: NEW, fresh: false });
    expect(read).toHaveBeenCalledTimes(2);
  });

  it('keys are apart: another trigger node or credential reads its own secret', async () => {
    const cache = secretCache();
    await cache.get('wf:a:cred1', async () => OLD);
    expect((await cache.get('wf:a:cred2', async () => NEW)).secret).toBe(NEW);
    expect((await cache.get('wf:a:cred1', async () => NEW)).secret).toBe(OLD);
  });
});
