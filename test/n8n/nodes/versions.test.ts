import type { IDataObject, INodeExecutionData, INodeProperties, INodeType } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startSandbox, type Sandbox } from '../../../packages/company-data/src/sandbox';
import { CompanyDataCompanies } from '../../../nodes/CompanyDataCompanies/CompanyDataCompanies.node';
import { CompanyDataMonitoring } from '../../../nodes/CompanyDataMonitoring/CompanyDataMonitoring.node';
import { CompanyDataPeople } from '../../../nodes/CompanyDataPeople/CompanyDataPeople.node';
import { CompanyDataFinancials } from '../../../nodes/CompanyDataFinancials/CompanyDataFinancials.node';
import { CompanyDataRisk } from '../../../nodes/CompanyDataRisk/CompanyDataRisk.node';
import { CompanyDataAssets } from '../../../nodes/CompanyDataAssets/CompanyDataAssets.node';
import { CompanyDataSavedSearches } from '../../../nodes/CompanyDataSavedSearches/CompanyDataSavedSearches.node';
import { CompanyDataReference } from '../../../nodes/CompanyDataReference/CompanyDataReference.node';
import { operationGroups } from '@company-data/core/operations';
import { nodeSpecs, type NodeKey } from '../../../src/n8n/descriptions/nodes';
import { nodeOperations, propertiesFor } from '../../../src/n8n/descriptions/properties';
import type { NodeVersion } from '../../../src/n8n/descriptions/versions';
import { executeContext, jsonOf } from '../../support/n8n-context';
import { listedCodes } from '../../support/sandbox-codes';
import { actionNodes } from '../../support/action-nodes';

/* Version 2's changed shapes next to version 1, over real HTTP against the sandbox. */

let sb: Sandbox;
let codes: string[];
beforeAll(async () => {
  sb = await startSandbox({ port: 0, seed: 1, companies: 2000 });
  codes = await listedCodes(sb, 20);
});
afterAll(async () => {
  await sb?.close();
});

async function run(node: INodeType, version: number, params: Record<string, unknown>, items: IDataObject[] = [{}]) {
  const { ctx, requests } = executeContext({
    params,
    version,
    items: items.map((json) => ({ json })),
    credentials: { apiKey: sb.apiKey, baseUrl: sb.url },
  });
  const out = (await node.execute!.call(ctx)) as INodeExecutionData[][];
  return { out: out[0]!, rows: jsonOf(out), requests };
}

const monitoring = new CompanyDataMonitoring();
const newList = async (name: string) =>
  (await run(monitoring, 1, { resource: 'monitoring', operation: 'createList', name })).rows[0]!.id as string;
const listCodes = async (id: string) =>
  (await run(monitoring, 1, { resource: 'monitoring', operation: 'listCompanies', listId: id, returnAll: true })).rows.map((r) => [
    r.registry_code,
    r.external_ref ?? null,
  ]);

describe('Monitoring → Add Companies', () => {
  test('version 2 adds the companies of all input items in one request, with external references', async () => {
    const id = await newList('From items');
    const items = codes.slice(0, 5).map((code, i) => ({ company: { code }, crm: i % 2 ? `crm-${i}` : '' }));
    const { out, requests } = await run(
      monitoring,
      2,
      {
        resource: 'monitoring',
        operation: 'addCompanies',
        listId: { __rl: true, mode: 'list', value: id },
        companiesFrom: 'items',
        registryCodeField: 'company.code',
        externalRefField: 'crm',
      },
      items,
    );
    expect(requests.filter((r) => r.method === 'POST')).toHaveLength(1);
    expect(out).toHaveLength(1);
    expect(out[0]!.pairedItem).toEqual([0, 1, 2, 3, 4].map((item) => ({ item })));
    expect((await listCodes(id)).sort()).toEqual(
      codes
        .slice(0, 5)
        .map((c, i) => [c, i % 2 ? `crm-${i}` : null])
        .sort(),
    );
  });

  test('an item without a code is named before anything is sent; a wrong code names its place', async () => {
    const id = await newList('Bad items');
    const params = {
      resource: 'monitoring',
      operation: 'addCompanies',
      listId: { __rl: true, mode: 'id', value: id },
      companiesFrom: 'items',
      registryCodeField: 'registry_code',
      externalRefField: '',
    };
    const missing = run(monitoring, 2, params, [{ registry_code: codes[0] }, { other: 1 }]);
    await expect(missing).rejects.toThrow('Item 2 has no registry code in the field "registry_code"');
    const wrongCheckDigit = codes[1]!.slice(0, 7) + String((Number(codes[1]![7]) + 1) % 10);
    await expect(run(monitoring, 2, params, [{ registry_code: codes[0] }, { registry_code: wrongCheckDigit }])).rejects.toThrow(
      /^Companies → #2 → Registry Code: .*check digit/,
    );
    expect(await listCodes(id)).toEqual([]);
  });

  test("version 2 from items with Replace Whole List: the list then holds exactly the items' companies", async () => {
    const id = await newList('Replace from items');
    await run(
      monitoring,
      2,
      {
        resource: 'monitoring',
        operation: 'addCompanies',
        listId: { __rl: true, mode: 'id', value: id },
        companiesFrom: 'items',
        registryCodeField: 'code',
        externalRefField: '',
      },
      [{ code: codes[10] }],
    );
    const params = {
      resource: 'monitoring',
      operation: 'addCompanies',
      listId: { __rl: true, mode: 'id', value: id },
      companiesFrom: 'items',
      registryCodeField: 'code',
      externalRefField: '',
      options: { replace: true },
    };
    await run(monitoring, 2, params, [{ code: codes[11] }, { code: codes[12] }]);
    expect((await listCodes(id)).sort()).toEqual(
      [
        [codes[11], null],
        [codes[12], null],
      ].sort(),
    );
  });

  test('version 2 with the companies entered below, and version 1, add what was typed', async () => {
    for (const version of [1, 2]) {
      const id = await newList(`Typed v${version}`);
      const listId = version === 1 ? id : { __rl: true, mode: 'id', value: id };
      await run(
        monitoring,
        version,
        {
          resource: 'monitoring',
          operation: 'addCompanies',
          listId,
          companiesFrom: 'list',
          add: { entries: [{ registryCode: codes[7], externalRef: 'x' }] },
        },
        [{}, {}],
      );
      expect(await listCodes(id)).toEqual([[codes[7], 'x']]);
    }
  });
});

describe('Companies → Lookup: "never" is a choice in version 2', () => {
  const companies = new CompanyDataCompanies();
  const lookup = { operation: 'lookup', querySource: 'field', queryField: 'code' };
  const billed = () => sb.usage(sb.apiKey).billed_lookup_queries;

  test('an old answer stands with Never, is refreshed with "older than" days; version 1 reads days only', async () => {
    const first = await run(
      companies,
      2,
      lookup,
      codes.slice(0, 4).map((code) => ({ code })),
    );
    const old = first.rows.map((r) => ({ ...r, company_data_enriched_at: new Date(Date.now() - 40 * 86_400_000).toISOString() }));
    const cases: Array<[number, Record<string, unknown>, number]> = [
      [2, { lookUpAgain: 'never', lookUpAgainAfterDays: 30 }, 0],
      [2, { lookUpAgain: 'afterDays', lookUpAgainAfterDays: 30 }, 4],
      [1, { lookUpAgainAfterDays: 0 }, 0],
      [1, { lookUpAgainAfterDays: 30 }, 4],
    ];
    for (const [version, params, expected] of cases) {
      const before = billed();
      await run(companies, version, { ...lookup, ...params }, old);
      expect(billed() - before, `v${version} ${JSON.stringify(params)}`).toBe(expected);
    }
  });
});

describe('Monitoring → Events: the list among the Options', () => {
  test('version 2 offers the account lists as a loaded option list; version 1 keeps the typed List ID', () => {
    const listOptions = new CompanyDataMonitoring().description.properties
      .filter((p) => p.name === 'options' && (p.displayOptions?.show?.operation as string[] | undefined)?.includes('events'))
      .flatMap((p) => (p.options ?? []) as { name: string; type: string; typeOptions?: unknown }[])
      .filter((o) => o.name === 'listId');
    expect(listOptions.map((o) => o.type).sort()).toEqual(['options', 'string']);
    expect(listOptions.find((o) => o.type === 'options')!.typeOptions).toEqual({ loadOptionsMethod: 'getMonitoringLists' });
  });

  test('a list chosen there is sent as the events filter, in both versions', async () => {
    const id = await newList('Events filter');
    for (const version of [1, 2]) {
      const { requests } = await run(monitoring, version, {
        resource: 'monitoring',
        operation: 'events',
        returnAll: false,
        limit: 5,
        options: { listId: id },
      });
      expect(requests.filter((r) => r.url.includes('/monitoring/events')).every((r) => r.url.includes(`list_id=${id}`))).toBe(true);
      expect(requests.some((r) => r.url.includes('/monitoring/events'))).toBe(true);
    }
  });
});

/* ---- Version 3: English unless the Language option says otherwise; the Lookup's match as flat columns ---- */

const nodeOf = actionNodes();

describe('node versions', () => {
  test("each node declares versions 1 to its spec's newest, new nodes get the newest; version 3 exactly where an operation takes a language", () => {
    for (const [key, node] of Object.entries(nodeOf) as [NodeKey, INodeType][]) {
      const newest = nodeSpecs[key].newestVersion;
      expect(node.description.version, key).toEqual(Array.from({ length: newest }, (_, i) => i + 1));
      expect(node.description.defaultVersion, key).toBe(newest);
      const takesLang = nodeOperations(nodeSpecs[key]).some(({ op }) => 'lang' in op.params);
      expect(newest, key).toBe(takesLang ? 3 : 2);
    }
  });

  test('each version sees exactly its own fields in the merged list (saved workflows keep their editor)', () => {
    const strip = (p: INodeProperties): INodeProperties => {
      const { '@version': _, ...show } = (p.displayOptions?.show ?? {}) as Record<string, unknown>;
      const { displayOptions, ...rest } = p;
      const others = { ...displayOptions, show } as Record<string, unknown>;
      if (!Object.keys(show).length) delete others.show;
      return Object.keys(others).length ? { ...rest, displayOptions: others } : rest;
    };
    for (const [key, node] of Object.entries(nodeOf) as [NodeKey, INodeType][]) {
      for (let v = 1; v <= nodeSpecs[key].newestVersion; v++) {
        // Only the '@version' rule is checked here: every other rule is the version's own.
        const seen = node.description.properties.filter((p) => {
          const rule = (p.displayOptions?.show as Record<string, unknown> | undefined)?.['@version'];
          return (
            rule === undefined ||
            NodeHelpers.displayParameter(
              {},
              { ...p, displayOptions: { show: { '@version': rule as never } } },
              { typeVersion: v } as never,
              null,
            )
          );
        });
        expect(seen.map(strip), `${key} v${v}`).toEqual(propertiesFor(nodeSpecs[key], v as NodeVersion));
      }
    }
  });

  test('the Language option says what an unset language means in each version', () => {
    const lang = (v: NodeVersion) =>
      (
        propertiesFor(nodeSpecs.companies, v).find(
          (p) => p.name === 'options' && (p.displayOptions?.show?.operation as string[]).includes('get'),
        )!.options as INodeProperties[]
      ).find((o) => o.name === 'lang')!;
    expect(lang(3).description).toMatch(/Without this option: English\.$/);
    expect(lang(2).description).toMatch(/Without this option: Estonian/);
    expect(lang(1).description).toBe(lang(2).description);
  });
});

describe('default language by version', () => {
  const companies = new CompanyDataCompanies();
  const code = () => sb.fixtures.companies.active!.registry_code;
  const langOf = (url: string) => new URL(url).searchParams.get('lang');

  test("version 3 asks for English when the Language option is unset; versions 1 and 2 send no lang and get the service's Estonian", async () => {
    const cases: Array<[number, unknown, string | null, string]> = [
      [3, code(), 'en', 'Private limited company'],
      [2, code(), null, 'Osaühing'],
      [1, code(), null, 'Osaühing'],
    ];
    for (const [version, registryCode, sent, legalForm] of cases) {
      const { rows, requests } = await run(companies, version, {
        operation: 'get',
        registryCode: version === 1 ? registryCode : { __rl: true, mode: 'id', value: registryCode },
      });
      expect(langOf(requests[0]!.url), `v${version}`).toBe(sent);
      // Version 1 has no Simplify: the legal form is the service's { name, label } object.
      const form = rows[0]!.legal_form;
      expect(typeof form === 'object' ? (form as IDataObject).label : form, `v${version}`).toBe(legalForm);
    }
  });

  test('version 3 with the Language option set sends that language', async () => {
    const { rows, requests } = await run(companies, 3, {
      operation: 'get',
      registryCode: { __rl: true, mode: 'id', value: code() },
      options: { lang: 'et' },
    });
    expect(langOf(requests[0]!.url)).toBe('et');
    expect(rows[0]!.legal_form).toBe('Osaühing');
  });

  test('the Lookup and the other nodes follow the same rule', async () => {
    for (const [version, sent, status] of [
      [3, 'en', 'Registered'],
      [2, null, 'Registrisse kantud'],
    ] as const) {
      const { rows, requests } = await run(
        companies,
        version,
        { operation: 'lookup', querySource: 'field', queryField: 'code', skipLookedUp: false },
        [{ code: code() }],
      );
      expect(langOf(requests[0]!.url), `lookup v${version}`).toBe(sent);
      const label = version === 3 ? rows[0]!.company_data_match_status_label : (rows[0]!.company_data_match as IDataObject).status_label;
      expect(label, `lookup v${version}`).toBe(status);
    }
    const people = await run(nodeOf.people, 3, {
      operation: 'representatives',
      registryCode: { __rl: true, mode: 'id', value: code() },
      returnAll: true,
    });
    expect(people.requests.every((r) => langOf(r.url) === 'en')).toBe(true);
    const reference = await run(nodeOf.reference, 3, { operation: 'classifiers', type: 'legal_forms' });
    expect(langOf(reference.requests[0]!.url)).toBe('en');
    expect(JSON.stringify(reference.rows)).toContain('Private limited company');
  });
});

describe('Companies → Lookup output by version', () => {
  const companies = new CompanyDataCompanies();
  const lookup = { operation: 'lookup', querySource: 'field', queryField: 'q', skipLookedUp: false };
  const flatFields = [
    'registry_code',
    'name',
    'legal_form',
    'status',
    'status_label',
    'registered_on',
    'deleted_on',
    'vat_number',
    'address',
    'postal_code',
    'url',
  ];
  const plain = (v: unknown) => v === null || ['string', 'number', 'boolean'].includes(typeof v);

  test('version 3: the best match as flat columns of plain values, the same columns on every item (null without a match)', async () => {
    const active = sb.fixtures.companies.active!;
    const { rows } = await run(companies, 3, lookup, [{ q: active.registry_code }, { q: '19999992' }, { q: 'ab' }]);
    for (const row of rows) {
      expect(Object.values(row).every(plain), JSON.stringify(row)).toBe(true);
      expect(row).not.toHaveProperty('company_data_match');
      for (const f of flatFields) expect(row, f).toHaveProperty(`company_data_match_${f}`);
    }
    expect(rows[0]).toMatchObject({
      company_data_status: 'matched',
      company_data_match_registry_code: active.registry_code,
      company_data_match_name: active.name,
      company_data_match_status: 'R',
    });
    expect(rows[1]).toMatchObject({
      company_data_status: 'no_match',
      company_data_match_registry_code: null,
      company_data_match_name: null,
    });
    expect(rows[2]).toMatchObject({ company_data_status: 'skipped', company_data_match_name: null });
  });

  test("version 3 with several matches per query lists them in one cell; Simplify off gives version 2's nested shape", async () => {
    const group = Object.values(sb.fixtures.vat_groups)[0]!.vat_number;
    const flat = (await run(companies, 3, { ...lookup, options: { limit: 5 } }, [{ q: group }])).rows[0]!;
    expect(flat.company_data_match_count).toBeGreaterThan(1);
    expect(typeof flat.company_data_matches).toBe('string');
    expect((flat.company_data_matches as string).split('; ')).toHaveLength(flat.company_data_match_count as number);
    expect(flat.company_data_matches).toMatch(
      new RegExp(
        `^${String(flat.company_data_match_name).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(${flat.company_data_match_registry_code}\\); `,
      ),
    );
    const nested = (await run(companies, 3, { ...lookup, simplify: false, options: { limit: 5 } }, [{ q: group }])).rows[0]!;
    const v2 = (await run(companies, 2, { ...lookup, options: { limit: 5, lang: 'en' } }, [{ q: group }])).rows[0]!;
    const withoutTime = ({ company_data_enriched_at: _, ...rest }: IDataObject) => rest;
    expect(withoutTime(nested)).toEqual(withoutTime(v2));
  });

  test('versions 1 and 2 keep the nested company_data_match object, exactly as saved workflows read it', async () => {
    const active = sb.fixtures.companies.active!;
    for (const version of [1, 2]) {
      const { rows } = await run(companies, version, { ...lookup, simplify: true }, [{ q: active.registry_code }]);
      expect(rows[0]!.company_data_match, `v${version}`).toMatchObject({ registry_code: active.registry_code, name: active.name });
      expect(rows[0], `v${version}`).not.toHaveProperty('company_data_match_name');
    }
  });

  test('Simplify appears for the Lookup in version 3 only', () => {
    const shownFor = (v: NodeVersion) =>
      propertiesFor(nodeSpecs.companies, v).some(
        (p) => p.name === 'simplify' && (p.displayOptions?.show?.operation as string[]).includes('lookup'),
      );
    expect([1, 2, 3].map((v) => shownFor(v as NodeVersion))).toEqual([false, false, true]);
    expect(Object.keys(operationGroups.companies)).toContain('lookup');
  });
});
