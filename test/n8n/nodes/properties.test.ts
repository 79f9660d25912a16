import type { INodeProperties } from 'n8n-workflow';
import { describe, expect, test } from 'vitest';
import type { ParamSpec } from '@company-data/core/params';
import { camel, fieldsOf, pagingOf } from '../../../src/n8n/descriptions/fields';
import { nodeOperations, nodeProperties } from '../../../src/n8n/descriptions/properties';
import { nodeSpecs, type NodeKey } from '../../../src/n8n/descriptions/nodes';
import { operationGroups } from '@company-data/core/operations';
import { pollTriggerProperties, webhookTriggerProperties } from '../../../src/n8n/descriptions/trigger-properties';

const keys = Object.keys(nodeSpecs) as NodeKey[];
const shownFor = (p: INodeProperties, op: string) => ((p.displayOptions?.show?.operation as string[] | undefined) ?? []).includes(op);

describe.each(keys)('%s node fields from the operation table', (key) => {
  const spec = nodeSpecs[key];
  const props = nodeProperties(spec);

  test('operation options cover the groups (minus exclusions), sorted by name, with actions', () => {
    const ops = props.filter((p) => p.name === 'operation');
    const offered = ops.flatMap((p) => p.options!.map((o) => (o as { value: string }).value));
    const expected = spec.groups.flatMap((g) =>
      Object.keys(operationGroups[g.group]).filter((n) => !(g as { exclude?: string[] }).exclude?.includes(n)),
    );
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
        expect(
          where.some((p) => p.name === camel(f.param)),
          `${op.group}.${op.name}.${f.param}`,
        ).toBe(true);
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
  const { CompanyDataApi } = await import('../../../credentials/CompanyDataApi.credentials');
  const c = new CompanyDataApi();
  expect(c.properties.find((p) => p.name === 'apiKey')!.typeOptions).toEqual({ password: true });
  expect(c.properties.find((p) => p.name === 'webhookSigningSecret')!.typeOptions).toEqual({ password: true });
  expect(c.test.request.url).toBe('/usage');
  expect(keys).toHaveLength(8);
});

describe('texts and choices a user meets', () => {
  const all = (props: INodeProperties[]): INodeProperties[] =>
    props.flatMap((p) => [
      p,
      ...all(
        ((p.options ?? []) as INodeProperties[]).flatMap((o) => ('type' in o ? [o] : ((o as { values?: INodeProperties[] }).values ?? []))),
      ),
    ]);
  const optionsOf = (key: NodeKey, op: string) =>
    nodeProperties(nodeSpecs[key]).find((p) => p.name === 'options' && shownFor(p, op))!.options as INodeProperties[];

  test('counties are picked from the 15 registered ones, in search and in saved-search filters', () => {
    const search = optionsOf('companies', 'search').find((p) => p.name === 'county')!;
    const filters = nodeProperties(nodeSpecs.searches).find((p) => p.name === 'filters')!;
    const saved = (filters.options as INodeProperties[]).find((p) => p.name === 'county')!;
    for (const county of [search, saved]) {
      expect(county.type).toBe('multiOptions');
      expect(county.options).toHaveLength(15);
      expect(county.options).toContainEqual({ name: 'Ida-Viru', value: 'Ida-Viru maakond' });
    }
  });

  test('saved-search statuses read as words, a delivery status keeps its own values', () => {
    const filters = nodeProperties(nodeSpecs.searches).find((p) => p.name === 'filters')!;
    expect(filters.description).not.toMatch(/_/);
    const status = (filters.options as INodeProperties[]).find((p) => p.name === 'status')!;
    expect(status.options!.map((o) => o.name)).toEqual(['Bankrupt', 'Deleted', 'In Liquidation', 'Registered']);
    const delivery = nodeProperties(nodeSpecs.monitoring).find((p) => p.name === 'options' && shownFor(p, 'deliveries'))!;
    const dStatus = (delivery.options as INodeProperties[]).find((p) => p.name === 'status')!;
    expect(dStatus.options!.map((o) => (o as { value: string }).value)).toContain('retry_scheduled');
  });

  test('the classifier is a list of the known classifiers', () => {
    const type = nodeProperties(nodeSpecs.reference).find((p) => p.name === 'type')!;
    expect(type.type).toBe('options');
    expect(type.options!.map((o) => (o as { value: string }).value)).toEqual(expect.arrayContaining(['roles', 'legal_forms', 'counties']));
  });

  test('include sections are in Title Case and named as the Assets node names its operations', () => {
    const include = optionsOf('companies', 'get').find((p) => p.name === 'include')!;
    const names = include.options!.map((o) => o.name);
    expect(names).toEqual(expect.arrayContaining(['All Sections', 'Annual Reports', 'Official Notices', 'Real Estate', 'Tax Debt']));
    const assetOps = nodeProperties(nodeSpecs.assets)
      .find((p) => p.name === 'operation')!
      .options!.map((o) => o.name.replace(/^Get /, ''));
    for (const op of assetOps) expect(names).toContain(op);
  });

  test('optional numbers start at a value their rule accepts; the add button names one company', () => {
    const matches = optionsOf('companies', 'lookup').find((p) => p.name === 'limit')!;
    expect(matches.default).toBe(1);
    expect(matches.typeOptions).toEqual({ minValue: 1, maxValue: 10 });
    const filters = nodeProperties(nodeSpecs.searches).find((p) => p.name === 'filters')!;
    expect((filters.options as INodeProperties[]).find((p) => p.name === 'registeredWithinDays')!.default).toBe(1);
    const add = nodeProperties(nodeSpecs.monitoring).find((p) => p.name === 'add')!;
    expect(add.placeholder).toBe('Add Company');
    expect(all([add]).map((p) => p.displayName)).toContain('External Reference');
  });

  test('every node: Title Case field names, booleans start with "Whether", no code words in option names', () => {
    for (const key of keys) {
      for (const p of all(nodeProperties(nodeSpecs[key]))) {
        expect(p.displayName, `${key}.${p.name}`).toMatch(/^[A-Z0-9]/);
        for (const w of p.displayName.split(' ').slice(1))
          if (!/^(a|an|and|as|at|by|for|from|in|of|on|or|per|the|to)$/.test(w)) expect(w, `${key}.${p.name}`).toMatch(/^[A-Z0-9(]/);
        if (p.type === 'boolean') expect(p.description, `${key}.${p.name}`).toMatch(/^Whether /);
        for (const o of p.options ?? [])
          if ('value' in o && typeof o.value === 'string') expect(o.name, `${key}.${p.name}`).not.toMatch(/_/);
      }
    }
  });
});

describe('labels in plain words and Title Case, as n8n writes them', () => {
  const SMALL = new Set(['a', 'an', 'and', 'as', 'at', 'by', 'for', 'from', 'in', 'of', 'on', 'or', 'per', 'the', 'to']);
  /** Every field label and option name the editor shows, with where it is. */
  function labels(props: INodeProperties[], path: string): Array<[string, string]> {
    return props.flatMap((p) => {
      if (p.type === 'notice') return [];
      const here = `${path} › ${p.name}`;
      const own: Array<[string, string]> = [[here, p.displayName]];
      for (const o of (p.options ?? []) as unknown as Array<Record<string, unknown>>) {
        if ('type' in o) own.push(...labels([o as unknown as INodeProperties], here));
        else if (Array.isArray(o.values)) own.push(...labels(o.values as INodeProperties[], here));
        else own.push([`${here} = ${String(o.value)}`, String(o.name)]);
      }
      return own;
    });
  }
  const all = [
    ...keys.flatMap((k) => labels(nodeProperties(nodeSpecs[k]), k)),
    ...labels(webhookTriggerProperties, 'trigger'),
    ...labels(pollTriggerProperties, 'poll trigger'),
  ];

  test('every word of a label starts with a capital, small joining words aside', () => {
    const wrong = all.filter(([, label]) => label.split(/[ -]/).some((w, i) => /^[a-zõäöü]/.test(w) && !(i > 0 && SMALL.has(w))));
    expect(wrong).toEqual([]);
  });

  test('no service jargon in labels: Tones, Kinds, Vat', () => {
    const jargon = all.filter(([, label]) => /\b(Tones?|Kinds?|Vat)\b/.test(label));
    expect(jargon).toEqual([]);
  });
});
