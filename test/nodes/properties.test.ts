import type { INodeProperties } from 'n8n-workflow';
import { describe, expect, test } from 'vitest';
import type { ParamSpec } from '../../src/core/params';
import { camel, fieldsOf, nodeOperations, nodeProperties, pagingOf } from '../../src/n8n/properties';
import { nodeSpecs, type NodeKey } from '../../src/n8n/nodes';
import { operationGroups } from '../../src/core/operations';

const keys = Object.keys(nodeSpecs) as NodeKey[];
const shownFor = (p: INodeProperties, op: string) => ((p.displayOptions?.show?.operation as string[] | undefined) ?? []).includes(op);

describe.each(keys)('%s node fields from the operation table', (key) => {
  const spec = nodeSpecs[key];
  const props = nodeProperties(spec);

  test('operation options cover the groups (minus exclusions), sorted by name, with actions', () => {
    const ops = props.filter((p) => p.name === 'operation');
    const offered = ops.flatMap((p) => p.options!.map((o) => (o as { value: string }).value));
    const expected = spec.groups.flatMap((g) => Object.keys(operationGroups[g.group]).filter((n) => !(g as { exclude?: string[] }).exclude?.includes(n)));
    expect(offered.sort()).toEqual(expected.sort());
    for (const p of ops) {
      const names = p.options!.map((o) => o.name);
      expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b)));
      for (const o of p.options!) expect((o as { action?: string }).action).toMatch(/^[A-Z]/);
    }
  });

  test('every parameter has a field, paged lists have Return All and Limit', () => {
    for (const { op } of nodeOperations(spec)) {
      const mine = props.filter((p) => shownFor(p, op.name));
      const options = mine.find((p) => p.name === 'options')?.options as INodeProperties[] | undefined;
      for (const f of fieldsOf(op)) {
        const where = f.place === 'top' ? mine : (options ?? []);
        expect(where.some((p) => p.name === camel(f.param)), `${op.group}.${op.name}.${f.param}`).toBe(true);
        const spec = (op.params as Record<string, ParamSpec>)[f.param]!;
        expect(spec.description.length).toBeGreaterThan(10);
      }
      if (pagingOf(op)) {
        expect(mine.find((p) => p.name === 'returnAll')?.type).toBe('boolean');
        expect(mine.find((p) => p.name === 'limit')?.displayOptions?.show?.returnAll).toEqual([false]);
      }
    }
  });
});

test('Companies: include is a multi-select with All, the lookup reads a field or a value, search mentions the 200 cap', () => {
  const props = nodeProperties(nodeSpecs.companies);
  const getOptions = props.find((p) => p.name === 'options' && shownFor(p, 'get'))!.options as INodeProperties[];
  const include = getOptions.find((p) => p.name === 'include')!;
  expect(include.type).toBe('multiOptions');
  expect(include.options!.map((o) => (o as { value: string }).value)).toContain('all');
  expect(props.find((p) => p.name === 'querySource')!.options!.map((o) => (o as { value: string }).value)).toEqual(['field', 'value']);
  expect(props.find((p) => p.name === 'returnAll' && shownFor(p, 'search'))!.description).toMatch(/200/);
  const reg = props.find((p) => p.name === 'registryCode')!;
  expect(reg.required).toBe(true);
  expect(reg.displayOptions!.show!.operation).toEqual(['get']);
});

test('Monitoring has Monitoring and Webhook resources; setting the webhook is left to the trigger', () => {
  const props = nodeProperties(nodeSpecs.monitoring);
  expect(props[0]!.name).toBe('resource');
  const webhookOps = props.find((p) => p.name === 'operation' && (p.displayOptions?.show?.resource as string[])[0] === 'webhook')!;
  expect(webhookOps.options!.map((o) => (o as { value: string }).value)).not.toContain('set');
});

test('the credential: password key, base URL, header style, signing secret, a test request', async () => {
  const { CompanyDataApi } = await import('../../credentials/CompanyDataApi.credentials');
  const c = new CompanyDataApi();
  expect(c.properties.find((p) => p.name === 'apiKey')!.typeOptions).toEqual({ password: true });
  expect(c.properties.find((p) => p.name === 'webhookSigningSecret')!.typeOptions).toEqual({ password: true });
  expect(c.test.request.url).toBe('/usage');
  expect(keys).toHaveLength(8);
});
