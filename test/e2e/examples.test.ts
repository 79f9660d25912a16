import fs from 'node:fs';
import path from 'node:path';
import type { INodeProperties, INodePropertyRegexValidation, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { describe, expect, it } from 'vitest';

/**
 * Static checks of examples/*.json (the real-n8n run is `npm run e2e`): every node of ours exists in the
 * built package under the name n8n gives it, credentials are referenced by the documented name, and
 * connections point at nodes that exist.
 */
const root = path.resolve(__dirname, '../..');
const examplesDir = path.join(root, 'examples');
const files = fs.readdirSync(examplesDir).filter((f) => f.endsWith('.json'));
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { name: string; n8n: { nodes: string[] } };

// Node names from the sources' descriptions (n8n types are <package>.<description name>, tools add "Tool").
const ourTypes = new Set<string>();
/** Each type's default version: what a node newly added in the editor gets. */
const defaultVersionOf = new Map<string, number>();
for (const dir of fs.readdirSync(path.join(root, 'nodes'))) {
  for (const f of fs.readdirSync(path.join(root, 'nodes', dir)).filter((x) => x.endsWith('.node.ts'))) {
    const src = fs.readFileSync(path.join(root, 'nodes', dir, f), 'utf8');
    const name = /name: '([a-zA-Z]+)',/.exec(src)?.[1];
    if (!name) continue;
    // A node with versions names its default; a node with one version (the Google Sheets node) has only `version`.
    const version = Number((/defaultVersion: (\d+)/.exec(src) ?? /\bversion: (\d+)/.exec(src))?.[1]);
    for (const type of [`${pkg.name}.${name}`, ...(/usableAsTool/.test(src) ? [`${pkg.name}.${name}Tool`] : [])]) {
      ourTypes.add(type);
      defaultVersionOf.set(type, version);
    }
  }
}

interface WfNode {
  name: string;
  type: string;
  typeVersion?: number;
  parameters?: Record<string, unknown>;
  credentials?: Record<string, { name: string }>;
}
interface Wf {
  name: string;
  nodes: WfNode[];
  connections: Record<string, Record<string, { node: string }[][]>>;
}

/** One of our node types' description, from its source in nodes/ (what the built package registers). */
async function descriptionOf(type: string): Promise<INodeTypeDescription> {
  const name = type.slice(pkg.name.length + 1).replace(/Tool$/, '');
  const dir = fs.readdirSync(path.join(root, 'nodes')).find((d) => d.toLowerCase() === name.toLowerCase());
  expect(dir, `${type}: its folder in nodes/`).toBeTruthy();
  const mod = (await import(path.join(root, 'nodes', dir!, `${dir}.node.ts`))) as Record<string, new () => INodeType>;
  return new mod[dir!]!().description;
}

type Params = Record<string, unknown>;
const isObject = (v: unknown): v is Params => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Whether n8n shows a field for these parameters (its defaults filled in): every `show` condition holds and no
 * `hide` one does. A key with a leading / names a top-level parameter (a collection's options use it); @version
 * is left to the typeVersion check; conditions given as objects (_cnd) count as met.
 */
function shownFor(p: INodeProperties, params: Params, properties: INodeProperties[]): boolean {
  const valueOf = (key: string) => {
    const name = key.replace(/^\//, '');
    return name in params ? params[name] : properties.find((q) => q.name === name)?.default;
  };
  const holds = (key: string, allowed: unknown[] | undefined) => {
    if (key.startsWith('@')) return true;
    const v = valueOf(key);
    return (allowed ?? []).some((a) => isObject(a) || (Array.isArray(v) ? v.includes(a) : a === v));
  };
  const { show = {}, hide = {} } = p.displayOptions ?? {};
  return (
    Object.entries(show).every(([k, allowed]) => holds(k, allowed)) &&
    !Object.entries(hide).some(([k, hidden]) => !k.startsWith('@') && holds(k, hidden))
  );
}

/**
 * Fields n8n itself adds to a node's own: to every node it turns into an AI tool (n8n-workflow's
 * convertNodeToAiTool) and to every polling trigger (its schedule).
 */
const addedByN8n = (type: string, description: INodeTypeDescription) => [
  ...(type.endsWith('Tool') ? ['descriptionType', 'toolDescription'] : []),
  ...(description.polling ? ['pollTimes'] : []),
];

/** The values a fixed list offers; undefined when the list is loaded from the account (not checkable here). */
const offered = (p: INodeProperties) =>
  p.typeOptions?.loadOptionsMethod ? undefined : (p.options ?? []).flatMap((o) => ('value' in o ? [o.value] : []));

describe('example workflows', () => {
  it('the six documented examples exist', () => {
    expect(files.sort()).toEqual([
      'ai-agent-company-research.json',
      'alert-to-chat.json',
      'enrich-csv.json',
      'enrich-google-sheet.json',
      'keep-sheet-current.json',
      'saved-search-digest.json',
    ]);
  });

  for (const file of files) {
    it(`${file}: our node types exist, credential by name, connections valid`, async () => {
      const wf = JSON.parse(fs.readFileSync(path.join(examplesDir, file), 'utf8')) as Wf;
      expect(wf.name).toBeTruthy();
      const names = new Set(wf.nodes.map((n) => n.name));
      expect(names.size).toBe(wf.nodes.length);
      const ours = wf.nodes.filter((n) => n.type.startsWith(`${pkg.name}.`));
      expect(ours.length).toBeGreaterThan(0);
      for (const n of ours) {
        expect(ourTypes, `${n.name}: ${n.type}`).toContain(n.type);
        // Exactly the credentials n8n shows for the node's parameters (a hidden one is not asked for on publish).
        const { credentials = [], properties } = await descriptionOf(n.type);
        const shown = credentials
          .filter((c) => shownFor({ displayOptions: c.displayOptions } as INodeProperties, n.parameters ?? {}, properties))
          .map((c) => c.name);
        expect(Object.keys(n.credentials ?? {}).sort(), `${n.name}: credentials`).toEqual([...shown].sort());
        if (shown.includes('companyDataApi')) expect(n.credentials?.companyDataApi?.name).toBe('Company Data (sandbox)');
        // Examples show what a new node looks like: the node's current default version.
        expect(defaultVersionOf.get(n.type), `${n.type}: defaultVersion in its source`).toBeGreaterThanOrEqual(1);
        expect(n.typeVersion, `${n.name}: typeVersion`).toBe(defaultVersionOf.get(n.type));
      }
      for (const [from, outputs] of Object.entries(wf.connections)) {
        expect(names, `connection from ${from}`).toContain(from);
        for (const targets of Object.values(outputs))
          for (const t of targets.flat()) expect(names, `connection to ${t.node}`).toContain(t.node);
      }
    });
  }

  // Issue 28: a sheet is enriched by our Google Sheets node, which finds each row by its key. An update by
  // row_number writes answers into the wrong rows when someone inserts or sorts during the run.
  it('no example updates a Google sheet by row number; the sheet example uses the Google Sheets node', () => {
    for (const file of files) expect(fs.readFileSync(path.join(examplesDir, file), 'utf8'), file).not.toMatch(/row_number/);
    const wf = JSON.parse(fs.readFileSync(path.join(examplesDir, 'enrich-google-sheet.json'), 'utf8')) as Wf;
    expect(wf.nodes.map((n) => n.type).filter((t) => /googleSheets/i.test(t))).toEqual([`${pkg.name}.companyDataGoogleSheets`]);
    const [node] = wf.nodes.filter((n) => n.type === `${pkg.name}.companyDataGoogleSheets`);
    expect(node?.parameters).toMatchObject({ operation: 'enrich', authentication: 'serviceAccount' });
    expect(Object.keys(node?.credentials ?? {}).sort()).toEqual(['companyDataApi', 'companyDataGoogleServiceAccountApi']);
    // The sticky note says what to fill in.
    const note = wf.nodes.find((n) => n.type === 'n8n-nodes-base.stickyNote');
    expect(String(note?.parameters?.content)).toMatch(
      /REPLACE_WITH_YOUR_SPREADSHEET_ID[\s\S]*Editor|Editor[\s\S]*REPLACE_WITH_YOUR_SPREADSHEET_ID/,
    );
  });

  // n8n checks a resource locator's value against each regex of its mode, anchored (^regex$, n8n-workflow's
  // validateResourceLocatorParameter), and refuses to run the node when one fails.
  it("every picked value of our nodes in the examples passes the node's own validation as n8n applies it", async () => {
    for (const file of files) {
      const wf = JSON.parse(fs.readFileSync(path.join(examplesDir, file), 'utf8')) as Wf;
      for (const n of wf.nodes.filter((x) => x.type.startsWith(`${pkg.name}.`))) {
        const { properties } = await descriptionOf(n.type);
        for (const [param, value] of Object.entries(n.parameters ?? {})) {
          const rl = value as { __rl?: boolean; mode?: string; value?: unknown };
          if (!rl?.__rl || typeof rl.value !== 'string' || rl.value.startsWith('=')) continue;
          const prop = properties.find((p) => p.name === param && p.type === 'resourceLocator');
          const mode = prop?.modes?.find((m) => m.name === rl.mode);
          expect(mode, `${file} ${n.name}: ${param} mode ${rl.mode}`).toBeTruthy();
          for (const v of mode?.validation ?? [])
            if (typeof v === 'object' && v.type === 'regex')
              expect(
                new RegExp(`^${(v as INodePropertyRegexValidation).properties.regex}$`).test(rl.value),
                `${file} ${n.name}: ${param} "${rl.value}"`,
              ).toBe(true);
        }
      }
    }
  });

  // n8n ignores, without a word, a parameter its node does not have or does not show for the operation chosen: an
  // example holding one does not do what it says. So every parameter of our nodes is a field shown for the values
  // the example sets (or, hidden, holds its default), each fixed choice one the field offers, and each entry of a
  // collection one of its options.
  it('every parameter of our nodes in the examples is a field the node shows for it, with a value it offers', async () => {
    for (const file of files) {
      const wf = JSON.parse(fs.readFileSync(path.join(examplesDir, file), 'utf8')) as Wf;
      for (const n of wf.nodes.filter((x) => x.type.startsWith(`${pkg.name}.`))) {
        const description = await descriptionOf(n.type);
        const { properties } = description;
        const params = n.parameters ?? {};
        const where = (param: string) => `${file} ${n.name}: ${param}`;
        for (const [param, value] of Object.entries(params)) {
          if (addedByN8n(n.type, description).includes(param)) continue;
          const named = properties.filter((p) => p.name === param);
          expect(named.length, `${where(param)} is not a field of ${n.type}`).toBeGreaterThan(0);
          const prop = named.find((p) => shownFor(p, params, properties));
          // A field hidden for these values is dropped by n8n: harmless only while it holds its default.
          if (!prop)
            expect(
              named.map((p) => p.default),
              `${where(param)} is hidden for these parameters but holds ${JSON.stringify(value)}`,
            ).toContainEqual(value);
          if (!prop || (typeof value === 'string' && value.startsWith('='))) continue;
          const choices = offered(prop);
          if (prop.type === 'options' && choices) expect(choices, where(param)).toContain(value);
          if (prop.type === 'multiOptions' && choices && Array.isArray(value))
            for (const v of value) expect(choices, where(param)).toContain(v);
          if (prop.type === 'collection' && isObject(value))
            for (const [key, v] of Object.entries(value)) {
              const option = (prop.options ?? []).find(
                (o): o is INodeProperties =>
                  'name' in o && o.name === key && 'type' in o && shownFor(o as INodeProperties, params, properties),
              );
              expect(option, `${where(`${param}.${key}`)} is not an option shown for it`).toBeTruthy();
              const sub = option && offered(option);
              if (option?.type === 'options' && sub) expect(sub, where(`${param}.${key}`)).toContain(v);
            }
        }
      }
    }
  });

  // Issue 29: the example "Keep a sheet current" is two flows, as agreed: a daily Keep Current, and the trigger's
  // changes written into their rows with one chat post of what was new.
  it('keep-sheet-current.json: Schedule (daily) → Keep Current; Company Data Trigger → Write Events to Rows → chat', () => {
    const wf = JSON.parse(fs.readFileSync(path.join(examplesDir, 'keep-sheet-current.json'), 'utf8')) as Wf;
    const byName = Object.fromEntries(wf.nodes.map((n) => [n.name, n]));
    const next = (from: string) => (wf.connections[from]?.main ?? []).flat().map((t) => byName[t.node]);
    const sheets = `${pkg.name}.companyDataGoogleSheets`;
    const schedule = wf.nodes.filter((n) => n.type === 'n8n-nodes-base.scheduleTrigger');
    expect(schedule).toHaveLength(1);
    expect(schedule[0]?.parameters).toEqual({ rule: { interval: [{ field: 'days', triggerAtHour: 7 }] } });
    const [watch] = next(schedule[0]!.name);
    expect(watch).toMatchObject({ type: sheets, parameters: { operation: 'watch', authentication: 'serviceAccount' } });
    expect(next(watch!.name)).toEqual([]);
    const [trigger] = wf.nodes.filter((n) => n.type === `${pkg.name}.companyDataTrigger`);
    expect(trigger?.parameters?.events).toEqual(['monitoring.change']);
    const [write] = next(trigger!.name);
    expect(write).toMatchObject({ type: sheets, parameters: { operation: 'writeEvents', eventsSheet: 'Company changes' } });
    // Both operations work on the same sheet, found by the same key.
    for (const key of ['authentication', 'spreadsheet', 'sheet', 'keyColumn'])
      expect(write?.parameters?.[key], key).toEqual(watch?.parameters?.[key]);
    // Write Events to Rows asks the service nothing: only Keep Current has the Company Data API credential.
    expect(Object.keys(watch?.credentials ?? {}).sort()).toEqual(['companyDataApi', 'companyDataGoogleServiceAccountApi']);
    expect(Object.keys(write?.credentials ?? {})).toEqual(['companyDataGoogleServiceAccountApi']);
    // The chat post is alert-to-chat's: the digest (summary) as a Slack-compatible { text }.
    const [post] = next(write!.name);
    const alert = JSON.parse(fs.readFileSync(path.join(examplesDir, 'alert-to-chat.json'), 'utf8')) as Wf;
    const alertPost = alert.nodes.find((n) => n.type === 'n8n-nodes-base.httpRequest');
    expect(post).toMatchObject({ type: alertPost?.type, typeVersion: alertPost?.typeVersion, parameters: alertPost?.parameters });
    const note = wf.nodes.find((n) => n.type === 'n8n-nodes-base.stickyNote');
    expect(String(note?.parameters?.content)).toMatch(
      /REPLACE_WITH_YOUR_SPREADSHEET_ID[\s\S]*Editor|Editor[\s\S]*REPLACE_WITH_YOUR_SPREADSHEET_ID/,
    );
  });

  // npm run e2e runs this example against a local OpenAI stand-in by changing only the credential's
  // Base URL (and making the chat public); these are the assumptions it rests on.
  it('ai-agent-company-research.json: real OpenAI by default, tools with the parameters the e2e script calls', () => {
    const wf = JSON.parse(fs.readFileSync(path.join(examplesDir, 'ai-agent-company-research.json'), 'utf8')) as Wf;
    const byType = (t: string) => wf.nodes.filter((n) => n.type === t);
    const [model] = byType('@n8n/n8n-nodes-langchain.lmChatOpenAi');
    expect(model?.credentials?.openAiApi?.name).toBe('OpenAI account');
    // No base URL in the node: the credential decides (api.openai.com unless the user changes it).
    expect((model?.parameters?.options as Record<string, unknown>)?.baseURL).toBeUndefined();
    // Chat Completions, the API the stand-in speaks (the Responses API is a separate switch).
    expect(model?.parameters?.responsesApiEnabled).toBeUndefined();
    const [trigger] = byType('@n8n/n8n-nodes-langchain.chatTrigger');
    expect(trigger?.parameters?.public ?? false).toBe(false);
    const tools = byType(`${pkg.name}.companyDataCompaniesTool`);
    // Version 2 keeps a picked object as { __rl, mode, value }; the agent fills its value.
    const text = (v: unknown) =>
      typeof v === 'string'
        ? v
        : v && typeof v === 'object' && typeof (v as { value?: unknown }).value === 'string'
          ? (v as { value: string }).value
          : '';
    const fromAi = (n: WfNode) =>
      Object.values(n.parameters ?? {}).flatMap((v) => [...text(v).matchAll(/\$fromAI\('([a-z_]+)'/g)].map((m) => m[1]));
    expect(Object.fromEntries(tools.map((n) => [n.name, [n.parameters?.operation, fromAi(n)]]))).toEqual({
      'Search companies': ['search', ['q']],
      'Company profile': ['get', ['registry_code']],
    });
  });
});
