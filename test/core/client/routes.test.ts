/**
 * Generated from the operation table: every operation has a client method and a sandbox route with a
 * handler (a request with valid parameters never gets 501 not_implemented or a 400).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRequest } from '@company-data/core/client';
import { operationId, type AnyOperation } from '@company-data/core/operation';
import { operationGroups, operations } from '@company-data/core/operations';
import { FX, startClientRig, type ClientRig } from './support';

/** A valid value per parameter name; ids of lists, searches and deliveries that do not exist answer 404. */
const examples: Record<string, unknown> = {
  registry_code: FX.active.code,
  vat_number: FX.active.vat,
  year: 2024,
  id: 2,
  type: 'roles',
  q: 'Tarkvara',
  queries: [FX.active.code],
  list_id: 'lst_doesnotexist',
  search_id: 'srch_doesnotexist',
  delivery_id: 'dlv_999999',
  name: 'Route check',
  add: [{ registry_code: FX.active.code }],
  filters: { county: ['Harju maakond'] },
  url: 'https://example.com/hook',
  enabled: false,
};

const required = (op: AnyOperation) =>
  Object.entries(op.params)
    .filter(([, spec]) => !spec.optional && !spec.schema.safeParse(undefined).success)
    .map(([name]) => name);

let rig: ClientRig;
beforeAll(async () => {
  rig = await startClientRig({ companies: 1500 });
});
afterAll(() => rig.close());

describe('operation table → client methods and sandbox routes', () => {
  it('every required parameter of the table has an example here', () => {
    const names = new Set(operations.flatMap(required));
    expect([...names].filter((n) => !(n in examples))).toEqual([]);
  });

  it('every operation is a client method', () => {
    for (const [group, ops] of Object.entries(operationGroups)) {
      for (const name of Object.keys(ops)) expect(typeof (rig.client as any)[group][name], `${group}.${name}`).toBe('function');
    }
  });

  for (const op of operations) {
    it(`${operationId(op)}: ${op.method} ${op.path} is served`, async () => {
      const params = Object.fromEntries(required(op).map((n) => [n, examples[n]]));
      const built = buildRequest(op, params);
      const res = await fetch(rig.sb.url + built.pathAndQuery, {
        method: built.method,
        headers: { 'x-api-key': rig.sb.apiKey, ...(built.body ? { 'content-type': 'application/json' } : {}) },
        body: built.body,
      });
      const body = (await res.json()) as { error?: { code: string } };
      expect(res.status, JSON.stringify(body.error)).not.toBe(501);
      expect(res.status, JSON.stringify(body.error)).not.toBe(400);
      expect(res.status < 300 || res.status === 404 || res.status === 409, `${res.status} ${JSON.stringify(body.error)}`).toBe(true);
    });
  }
});
