import fs from 'node:fs';
import path from 'node:path';
import type { INodePropertyRegexValidation, INodeType } from 'n8n-workflow';
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

describe('example workflows', () => {
  it('the five documented examples exist', () => {
    expect(files.sort()).toEqual([
      'ai-agent-company-research.json',
      'alert-to-chat.json',
      'enrich-csv.json',
      'enrich-google-sheet.json',
      'saved-search-digest.json',
    ]);
  });

  for (const file of files) {
    it(`${file}: our node types exist, credential by name, connections valid`, () => {
      const wf = JSON.parse(fs.readFileSync(path.join(examplesDir, file), 'utf8')) as Wf;
      expect(wf.name).toBeTruthy();
      const names = new Set(wf.nodes.map((n) => n.name));
      expect(names.size).toBe(wf.nodes.length);
      const ours = wf.nodes.filter((n) => n.type.startsWith(`${pkg.name}.`));
      expect(ours.length).toBeGreaterThan(0);
      for (const n of ours) {
        expect(ourTypes, `${n.name}: ${n.type}`).toContain(n.type);
        expect(n.credentials?.companyDataApi?.name).toBe('Company Data (sandbox)');
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
        const name = n.type.slice(pkg.name.length + 1).replace(/Tool$/, '');
        const dir = fs.readdirSync(path.join(root, 'nodes')).find((d) => d.toLowerCase() === name.toLowerCase());
        expect(dir, `${n.type}: its folder in nodes/`).toBeTruthy();
        const mod = (await import(path.join(root, 'nodes', dir!, `${dir}.node.ts`))) as Record<string, new () => INodeType>;
        const { properties } = new mod[dir!]!().description;
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
