import type { ICredentialType, IDataObject, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startSandbox, type Sandbox } from '../../packages/company-data/src/sandbox';
import { executeContext } from '../support/n8n-context';
import { listedCodes } from '../support/sandbox-codes';

/*
 * n8n's verification checklist for community nodes, one point per describe block, over what package.json
 * registers (the sources behind each dist path). The lint (scripts/lint-n8n.sh) and the packed-package
 * check (scripts/check-packages.mjs: scanner, files, loading from the tarball) cover the rest.
 */

const root = resolve(__dirname, '../..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  name: string;
  n8n: { nodes: string[]; credentials: string[] };
};
const sourceOf = (dist: string) => join(root, dist.replace(/^dist\//, '').replace(/\.js$/, '.ts'));

interface Registered<T> {
  file: string;
  instance: T;
}

async function load<T>(dist: string): Promise<Registered<T>> {
  const file = sourceOf(dist);
  const mod = (await import(file)) as Record<string, new () => T>;
  const classes = Object.values(mod).filter((v) => typeof v === 'function');
  expect(classes, `${dist}: one exported class`).toHaveLength(1);
  return { file, instance: new classes[0]!() };
}

let nodes: Registered<INodeType>[] = [];
let credentials: Registered<ICredentialType>[] = [];
beforeAll(async () => {
  nodes = await Promise.all(pkg.n8n.nodes.map((d) => load<INodeType>(d)));
  credentials = await Promise.all(pkg.n8n.credentials.map((d) => load<ICredentialType>(d)));
});

const isTrigger = (d: INodeTypeDescription) => d.group.includes('trigger') || d.polling === true || (d.webhooks?.length ?? 0) > 0;
const byName = (name: string) => nodes.find((n) => n.instance.description.name === name)!.instance;

describe('credential test', () => {
  // n8n tests a credential by its own test request, else by the node function its testedBy names, else
  // (OAuth2) by whether the consent gave a token (n8n's CredentialsTester.getCredentialTestFunction).
  test('every credential has a test, and the nodes use only registered credentials', () => {
    expect(credentials.length).toBeGreaterThan(0);
    for (const { instance } of credentials) {
      if (instance.test) {
        expect(instance.test.request.url, `${instance.name}: test request`).toBeTruthy();
        expect(instance.test.request.baseURL).toContain('$credentials.baseUrl');
        continue;
      }
      if (instance.extends?.includes('oAuth2Api')) continue;
      const testers = nodes.flatMap(({ instance: n }) =>
        (n.description.credentials ?? [])
          .filter((c) => c.name === instance.name && typeof c.testedBy === 'string')
          .map((c) => n.methods?.credentialTest?.[c.testedBy as string]),
      );
      expect(testers.length, `${instance.name}: tested by a node`).toBeGreaterThan(0);
      for (const t of testers) expect(typeof t, `${instance.name}: the node's credentialTest function`).toBe('function');
    }
    const names = new Set(credentials.map((c) => c.instance.name));
    for (const { instance } of nodes) for (const c of instance.description.credentials ?? []) expect(names.has(c.name), c.name).toBe(true);
  });
});

describe('icons', () => {
  test('light and dark icons are different SVG files beside every node and credential', () => {
    const all = [
      ...nodes.map(({ file, instance }) => ({ what: instance.description.name, file, icon: instance.description.icon })),
      ...credentials.map(({ file, instance }) => ({ what: instance.name, file, icon: instance.icon })),
    ];
    for (const { what, file, icon } of all) {
      expect(icon, `${what}: icon with light and dark`).toMatchObject({
        light: expect.stringMatching(/^file:.+\.svg$/),
        dark: expect.stringMatching(/^file:.+\.svg$/),
      });
      const { light, dark } = icon as { light: string; dark: string };
      const [lightText, darkText] = [light, dark].map((i) => {
        const path = join(dirname(file), i.slice('file:'.length));
        expect(existsSync(path), `${what}: ${path}`).toBe(true);
        return readFileSync(path, 'utf8');
      });
      expect(lightText, `${what}: light icon`).toMatch(/<svg[\s>]/);
      expect(darkText, `${what}: dark icon`).toMatch(/<svg[\s>]/);
      expect(darkText, `${what}: the dark icon is the light one`).not.toBe(lightText);
    }
  });
});

/**
 * The categories n8n's nodes panel knows (docs.n8n.io, "Node codex files": "Choose from these
 * categories ... You must match the syntax"). Neither n8n-workflow nor the lint plugins carry the list.
 */
const CODEX_CATEGORIES = [
  'Data & Storage',
  'Finance & Accounting',
  'Marketing & Content',
  'Productivity',
  'Miscellaneous',
  'Sales',
  'Development',
  'Analytics',
  'Communication',
  'Utility',
];

describe('codex', () => {
  test("every node has a codex file named after it, for this package, with categories from n8n's list", () => {
    for (const { file, instance } of nodes) {
      const codexPath = file.replace(/\.ts$/, '.json');
      expect(existsSync(codexPath), codexPath).toBe(true);
      const codex = JSON.parse(readFileSync(codexPath, 'utf8')) as { node: string; categories: string[] };
      expect(codex.node).toBe(`${pkg.name}.${instance.description.name}`);
      expect(codex.categories.length, `${codexPath}: categories`).toBeGreaterThan(0);
      for (const c of codex.categories) expect(CODEX_CATEGORIES, `${codexPath}: category "${c}"`).toContain(c);
    }
  });
});

describe('usableAsTool', () => {
  test('set on every action node, never on a trigger', () => {
    const triggers = nodes.filter((n) => isTrigger(n.instance.description));
    expect(triggers.map((n) => n.instance.description.name).sort()).toEqual(['companyDataPollTrigger', 'companyDataTrigger']);
    for (const { instance } of nodes) {
      const d = instance.description;
      if (isTrigger(d)) expect(d.usableAsTool, d.name).toBeUndefined();
      else expect(d.usableAsTool, d.name).toBe(true);
    }
  });
});

/* Words that would mean a node text is in Estonian. Proper nouns and codes that are data (county names,
 * legal forms such as OÜ) are allowed when an option value or the list below carries them. */
const ESTONIAN_WORDS = [
  'ja',
  'või',
  'ning',
  'ei',
  'kõik',
  'otsi',
  'otsing',
  'nimi',
  'aadress',
  'ettevõte',
  'ettevõtted',
  'ettevõtte',
  'äriregister',
  'äriregistri',
  'registrikood',
  'isikukood',
  'juhatus',
  'juhatuse',
  'liige',
  'osanik',
  'osanikud',
  'aruanne',
  'aastaaruanne',
  'maksuvõlg',
  'maksuvõlad',
  'kohtuasjad',
  'täitemenetlus',
  'maakond',
  'tegevusala',
  'omanik',
  'kasusaaja',
  'kinnisasi',
  'teated',
  'nimekiri',
  'seire',
  'muudatus',
  'kuupäev',
  'vali',
  'lisa',
  'kustuta',
  'uuenda',
  'vaata',
  'keel',
  'eesti',
  'inglise',
];
const DATA_TOKENS = ['OÜ', 'AS', 'MTÜ', 'FIE', 'KÜ'];
const TEXT_KEYS = new Set(['displayName', 'description', 'hint', 'placeholder', 'action', 'name', 'subtitle']);

/** The user-facing texts of a node or credential, and its option values (data, which may quote Estonian). */
function nodeTexts(description: unknown): { texts: string[]; dataValues: Set<string> } {
  const texts: string[] = [];
  const dataValues = new Set<string>();
  const walk = (v: unknown, key: string, inOption: boolean) => {
    if (Array.isArray(v)) return v.forEach((x) => walk(x, key, inOption));
    if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      const option = 'value' in o && 'name' in o && !('type' in o);
      if (option && typeof o.value === 'string') dataValues.add(o.value);
      return Object.entries(o).forEach(([k, x]) => walk(x, k, option));
    }
    // A property's `name` is its internal key; an option's `name` is what the user reads.
    if (typeof v === 'string' && TEXT_KEYS.has(key) && (key !== 'name' || inOption) && !v.startsWith('=')) texts.push(v);
  };
  walk(description, '', false);
  return { texts, dataValues };
}

describe('English node texts', () => {
  test('no Estonian word in any display name, description, hint, placeholder or option name', () => {
    const texts: string[] = [];
    const dataValues = new Set<string>();
    const described = [
      ...nodes.map((n) => n.instance.description),
      ...credentials.map((c) => ({ displayName: c.instance.displayName, properties: c.instance.properties })),
    ];
    for (const d of described) {
      const r = nodeTexts(d);
      texts.push(...r.texts);
      r.dataValues.forEach((v) => dataValues.add(v));
    }
    expect(texts.length).toBeGreaterThan(500);
    // A text may quote a data value ("e.g. Harju maakond", an option's value as registered): that part is data.
    const quoted = [...dataValues].filter((v) => /\s|[^\x00-\x7f]/.test(v)).sort((a, b) => b.length - a.length);
    const dataTokens = new Set([...DATA_TOKENS, ...[...dataValues].flatMap((v) => v.split(/[\s,]+/))]);
    const words = new Set(ESTONIAN_WORDS);
    const bad = texts.flatMap((t) => {
      const prose = quoted.reduce((s, v) => s.split(v).join(' '), t);
      return (prose.match(/\p{L}+(?:-\p{L}+)*/gu) ?? [])
        .filter((w) => words.has(w.toLowerCase()) || (/[õäöüšž]/i.test(w) && !dataTokens.has(w)))
        .map((w) => `"${w}" in "${t}"`);
    });
    expect(bad).toEqual([]);
  });
});

describe('README', () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const headings = [...readme.matchAll(/^#{1,4} (.+)$/gm)].map((m) => m[1]!.trim());
  // GitHub's and npm's anchor of a heading.
  const slug = (h: string) =>
    h
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-');

  test.each([
    ['usage', /\busage\b|\bhow to use\b/i],
    ['examples', /\bexamples?\b/i],
    ['authentication', /\bauthentication\b|\bcredentials?\b/i],
  ])('has a %s section', (_, pattern) => {
    expect(
      headings.filter((h) => pattern.test(h)),
      `headings: ${headings.join(' | ')}`,
    ).not.toEqual([]);
  });

  test('every documentation link of the nodes and the credential lands on a README heading', () => {
    const anchors = new Set(headings.map(slug));
    const links = [
      ...credentials.map((c) => c.instance.documentationUrl ?? ''),
      ...nodes.flatMap(({ file }) => {
        const codex = JSON.parse(readFileSync(file.replace(/\.ts$/, '.json'), 'utf8')) as { resources?: Record<string, { url: string }[]> };
        return Object.values(codex.resources ?? {}).flatMap((list) => list.map((r) => r.url));
      }),
    ];
    expect(links.length).toBeGreaterThan(nodes.length);
    const broken = links.filter((url) => {
      const hash = url.split('#')[1];
      return hash === undefined || !anchors.has(hash);
    });
    expect(broken, `anchors in README: ${[...anchors].join(', ')}`).toEqual([]);
  });
});

/*
 * pairedItem and Continue On Fail, through each action node's execute() with n8n's execution context
 * (jest-mock-extended) and real HTTP to the sandbox. Per node: an operation whose input comes from the
 * item, a value that works and one that fails on its own (a bad check digit, an unknown id, a rule broken).
 */
let sb: Sandbox;
let codes: string[];
let listId: string;
let searchId: string;
const rl = (value: string) => ({ __rl: true, mode: 'id', value });
const badCode = (c: string) => c.slice(0, 7) + String((Number(c[7]) + 1) % 10);

interface Case {
  node: string;
  params: (good: boolean) => Record<string, unknown>;
}
/** A fixture company's registry code, or the same with a wrong check digit. */
const company = (fixture: string, good: boolean) => {
  const c = sb.fixtures.companies[fixture]!.registry_code;
  return rl(good ? c : badCode(c));
};
const cases: Case[] = [
  { node: 'companyDataCompanies', params: (good) => ({ operation: 'get', registryCode: company('active', good) }) },
  {
    node: 'companyDataPeople',
    params: (good) => ({ operation: 'representatives', registryCode: company('ended_relations', good), returnAll: true }),
  },
  {
    node: 'companyDataFinancials',
    params: (good) => ({ operation: 'annualReports', registryCode: company('annual_reports', good), returnAll: true }),
  },
  { node: 'companyDataRisk', params: (good) => ({ operation: 'creditScore', registryCode: company('active', good) }) },
  { node: 'companyDataAssets', params: (good) => ({ operation: 'properties', registryCode: company('assets', good), returnAll: true }) },
  {
    node: 'companyDataMonitoring',
    params: (good) => ({ resource: 'monitoring', operation: 'getList', listId: rl(good ? listId : 'lst_unknown') }),
  },
  { node: 'companyDataSavedSearches', params: (good) => ({ operation: 'get', searchId: rl(good ? searchId : 'srch_unknown') }) },
  { node: 'companyDataReference', params: (good) => ({ operation: 'classifiers', type: good ? 'roles' : 'Roles!' }) },
];

const creds = () => ({ apiKey: sb.apiKey, baseUrl: sb.url, authStyle: 'xApiKey' });

async function execute(name: string, params: (name: string, i: number) => unknown, items: IDataObject[], continueOnFail: boolean) {
  const node = byName(name);
  const { ctx } = executeContext({
    params,
    items: items.map((json) => ({ json })),
    credentials: creds(),
    continueOnFail,
    version: node.description.defaultVersion,
  });
  return ((await node.execute!.call(ctx)) as INodeExecutionData[][])[0]!;
}

/** Input index of each output item; fails on an item without pairedItem or pointing outside the input. */
function pairedInputs(out: INodeExecutionData[], inputs: number): number[] {
  return out.map((item) => {
    expect(item.pairedItem).toEqual({ item: expect.any(Number) });
    const i = (item.pairedItem as { item: number }).item;
    expect(i).toBeGreaterThanOrEqual(0);
    expect(i).toBeLessThan(inputs);
    return i;
  });
}

describe('pairedItem and Continue On Fail, per item', () => {
  beforeAll(async () => {
    sb = await startSandbox({ port: 0, seed: 1, companies: 2000 });
    codes = await listedCodes(sb, 160);
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${sb.url}${path}`, {
        method: 'POST',
        headers: { 'X-API-Key': sb.apiKey, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status, path).toBeLessThan(300);
      return ((await res.json()) as { data: { id: string } }).data.id;
    };
    listId = await post('/monitoring/lists', { name: 'Verification' });
    searchId = await post('/searches', { name: 'Verification', filters: { activity: ['62'] } });
  });
  afterAll(async () => {
    await sb?.close();
  });

  test('the cases cover every action node', () => {
    // Company Data: Google Sheets works on a whole sheet once per execution (one report item), not per item:
    // test/n8n/google-sheets covers it.
    const actions = nodes
      .filter((n) => !isTrigger(n.instance.description) && n.instance.description.name !== 'companyDataGoogleSheets')
      .map((n) => n.instance.description.name);
    expect(cases.map((c) => c.node).sort()).toEqual(actions.sort());
  });

  test.each(cases.map((c) => [c.node, c] as const))(
    '%s: each output item points at its input; a failing item gives an error item paired to it',
    async (name, c) => {
      const goodOnly = await execute(name, (p) => c.params(true)[p], [{ row: 0 }, { row: 1 }], false);
      const paired = pairedInputs(goodOnly, 2);
      expect(new Set(paired)).toEqual(new Set([0, 1]));
      goodOnly.forEach((item) => expect(item.json.error).toBeUndefined());

      // Items 0 and 2 work, item 1 fails: with Continue On Fail one error item for 1, the others as before.
      const mixed = await execute(name, (p, i) => c.params(i !== 1)[p], [{ row: 0 }, { row: 1 }, { row: 2 }], true);
      const inputs = pairedInputs(mixed, 3);
      const errors = mixed.filter((item) => item.json.error !== undefined);
      expect(errors, 'exactly one error item').toHaveLength(1);
      expect(errors[0]!.pairedItem).toEqual({ item: 1 });
      expect(String(errors[0]!.json.error)).not.toBe('');
      expect(new Set(inputs)).toEqual(new Set([0, 1, 2]));
      expect(mixed.filter((item) => item.json.error === undefined).length).toBe(goodOnly.length);

      // Without Continue On Fail the failing item stops the node with an n8n error naming the item.
      await expect(execute(name, (p, i) => c.params(i !== 1)[p], [{ row: 0 }, { row: 1 }], false)).rejects.toMatchObject({
        context: { itemIndex: 1 },
      });
    },
  );

  test('bulk Lookup: every output item is paired to its input; a failed request gives error items for its own items only', async () => {
    // 150 distinct codes: two requests (100 per request). The sandbox fails the first request it gets with a 500.
    const items = codes.slice(0, 150).map((code, row) => ({ row, code }));
    const params = { operation: 'lookup', querySource: 'field', queryField: 'code' } as Record<string, unknown>;
    const all = await execute('companyDataCompanies', (p) => params[p], items, false);
    expect(pairedInputs(all, items.length)).toEqual(items.map((_, i) => i));
    expect(all.every((item) => item.json.company_data_status === 'matched')).toBe(true);

    const fault = await fetch(`${sb.url}/sandbox/faults`, {
      method: 'POST',
      headers: { 'X-API-Key': sb.apiKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ kind: 'server_error', status: 500, count: 1 }),
    });
    expect(fault.status).toBeLessThan(300);
    // The same input items (without the answers of the first run), so every query is sent again.
    const mixed = await execute('companyDataCompanies', (p) => params[p], items, true);
    expect(pairedInputs(mixed, items.length)).toEqual(items.map((_, i) => i));
    const failed = mixed.filter((item) => item.json.company_data_status === 'error');
    expect([50, 100]).toContain(failed.length);
    failed.forEach((item) => expect(String(item.json.error)).not.toBe(''));
    expect(mixed.filter((item) => item.json.company_data_status === 'matched')).toHaveLength(items.length - failed.length);
  });
});
