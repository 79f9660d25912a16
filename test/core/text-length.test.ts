/**
 * Text lengths are counted in characters (Unicode code points), as JSON Schema's minLength and maxLength
 * count them, everywhere the operation table's rules reach: the client's validation, the sandbox, the
 * OpenAPI document and the MCP tools' input schemas. zod's own .min/.max count UTF-16 units, where an
 * emoji is two: "😀A" passed a minimum of 3, and 150 emoji were refused as over 200.
 */
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import type { INodeProperties } from 'n8n-workflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod/v4';
import { operationId } from '@company-data/core/operation';
import { operations } from '@company-data/core/operations';
import { openApiDocument } from '@company-data/core/openapi';
import { charCount, text } from '@company-data/core/text-length';
import { classifierTypes } from '@company-data/core/vocabulary';
import { toolByName } from '../../packages/company-data/src/mcp/tools';
import { startSandbox, type Sandbox } from '../../packages/company-data/src/sandbox';
import { actionNodes } from '../support/action-nodes';

type Json = Record<string, unknown>;

const ajv = new Ajv2020({ strict: false, allErrors: false });
addFormats(ajv);

/* ---- The document and the validator agree ---- */

interface Leaf {
  where: string;
  json: Json;
  zod: z.ZodType;
}

const defOf = (s: z.ZodType) =>
  (
    s as unknown as {
      _zod: { def: { type: string; innerType?: z.ZodType; in?: z.ZodType; element?: z.ZodType; shape?: Record<string, z.ZodType> } };
    }
  )._zod.def;

/** The zod rule under `schema` that the JSON Schema `step` (a property name, or '[]' for items) leads to. */
function zodStep(schema: z.ZodType, step: string): z.ZodType {
  let s = schema;
  for (let d = defOf(s); ; d = defOf(s)) {
    if (d.type === 'optional' || d.type === 'nullable' || d.type === 'default') s = d.innerType!;
    else if (d.type === 'pipe') s = d.in!;
    else break;
  }
  const d = defOf(s);
  if (step === '[]') return d.element!;
  return d.shape![step]!;
}

/** Every string in a parameter's JSON Schema that has a length rule, with the zod rule it was written from. */
function lengthLeaves(where: string, json: Json, zod: z.ZodType, out: Leaf[]): void {
  if (json.type === 'string' && (json.minLength !== undefined || json.maxLength !== undefined)) out.push({ where, json, zod });
  if (Array.isArray(json.anyOf)) for (const alt of json.anyOf as Json[]) lengthLeaves(where, alt, zod, out);
  if (json.items) lengthLeaves(`${where}[]`, json.items as Json, zodStep(zod, '[]'), out);
  for (const [k, v] of Object.entries((json.properties as Record<string, Json>) ?? {}))
    lengthLeaves(`${where}.${k}`, v, zodStep(zod, k), out);
}

function documentLeaves(): Leaf[] {
  const doc = openApiDocument() as {
    paths: Record<string, Record<string, { operationId: string; parameters?: { name: string; schema: Json }[]; requestBody?: Json }>>;
  };
  const byId = new Map(operations.map((op) => [operationId(op), op]));
  const out: Leaf[] = [];
  for (const methods of Object.values(doc.paths)) {
    for (const o of Object.values(methods)) {
      const op = byId.get(o.operationId)!;
      for (const p of o.parameters ?? []) lengthLeaves(`${o.operationId} ${p.name}`, p.schema, op.params[p.name]!.schema, out);
      const body = (o.requestBody as { content?: { 'application/json'?: { schema: Json } } } | undefined)?.content?.['application/json']
        ?.schema;
      for (const [k, v] of Object.entries((body?.properties as Record<string, Json>) ?? {}))
        lengthLeaves(`${o.operationId} ${k}`, v, op.params[k]!.schema, out);
    }
  }
  return out;
}

/** Characters that tell code points from UTF-16 units: astral ones (emoji, CJK extension B), a combining mark, spaces. */
const unit = fc.oneof(
  { arbitrary: fc.constantFrom('a', 'Õ', 'ž', '7', '-'), weight: 3 },
  { arbitrary: fc.constantFrom(' ', '\t', '\n', '\u00a0', '\u3000'), weight: 1 },
  { arbitrary: fc.constantFrom('\u0301', '€', '中'), weight: 1 },
  { arbitrary: fc.integer({ min: 0x10000, max: 0x10ffff }).map((cp) => String.fromCodePoint(cp)), weight: 4 },
);

describe('lengths in characters: the OpenAPI document and the validation agree', () => {
  const leaves = documentLeaves();

  it('finds the text limits of the interface', () => {
    const names = leaves.map((l) => l.where);
    for (const expected of [
      'people.searchPersons q',
      'monitoring.createList name',
      'monitoring.updateList name',
      'monitoring.addCompanies add[].external_ref',
      'monitoring.updateCompany external_ref',
      'searches.create name',
      'searches.create filters.county[]',
      'companies.search q',
    ])
      expect(names).toContain(expected);
  });

  it('for random text with astral characters, zod accepts exactly what the document allows', () => {
    for (const leaf of leaves) {
      const check = ajv.compile(leaf.json);
      const max = (leaf.json.maxLength as number | undefined) ?? (leaf.json.minLength as number) + 4;
      // Lengths around both bounds: short texts for minimums, long ones near a maximum.
      const lengths = fc.oneof(fc.integer({ min: 0, max: 6 }), fc.integer({ min: Math.max(0, max - 3), max: max + 3 }));
      fc.assert(
        fc.property(
          lengths.chain((n) => fc.array(unit, { minLength: n, maxLength: n })),
          (chars) => {
            const value = chars.join('');
            const zodOk = leaf.zod.safeParse(value).success;
            const docOk = check(value);
            if (zodOk !== docOk) throw new Error(`${leaf.where}: zod ${zodOk}, document ${docOk} for ${JSON.stringify(value)}`);
          },
        ),
        { numRuns: 150 },
      );
    }
  });

  it('counts code points', () => {
    expect(charCount('😀A')).toBe(2);
    expect('😀A'.length).toBe(3);
    expect(text({ min: 3 }).safeParse('😀A').error?.issues[0]?.message).toBe('must be at least 3 characters');
    expect(text({ max: 2 }).safeParse('😀😀').success).toBe(true);
  });
});

/* ---- Over HTTP against the sandbox ---- */

describe('the sandbox counts characters, and publishes the classifier types as an enum', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox({ companies: 300, rateLimit: false });
  });
  afterAll(() => sb?.close());

  async function call(method: string, path: string, body?: unknown) {
    const res = await fetch(sb.url + path, {
      method,
      headers: { 'x-api-key': sb.apiKey, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as { data?: Json; error?: { message: string; details?: unknown } } };
  }
  const refusal = (r: Awaited<ReturnType<typeof call>>) => JSON.stringify(r.body.error);

  it('people search: "😀A" is two characters, under the minimum of 3; "😀AB" is searched', async () => {
    const short = await call('GET', `/persons?q=${encodeURIComponent('😀A')}`);
    expect(short.status).toBe(400);
    expect(refusal(short)).toMatch(/q.*at least 3 characters/);
    expect((await call('GET', `/persons?q=${encodeURIComponent('😀AB')}`)).status).toBe(200);
  });

  it('a list name of 150 or 200 emoji is taken, 201 emoji are refused as over 200 characters', async () => {
    const made = await call('POST', '/monitoring/lists', { name: '😀'.repeat(150) });
    expect(made.status).toBe(201);
    expect(made.body.data!.name).toBe('😀'.repeat(150));
    expect((await call('POST', '/monitoring/lists', { name: '🇪🇪'.repeat(100) })).status).toBe(201);
    const over = await call('POST', '/monitoring/lists', { name: '😀'.repeat(201) });
    expect(over.status).toBe(400);
    expect(refusal(over)).toMatch(/name.*at most 200 characters/);
    const renamed = await call('PATCH', `/monitoring/lists/${made.body.data!.id as string}`, { name: '😀'.repeat(201) });
    expect(renamed.status).toBe(400);
  });

  it('an external reference of 200 emoji is kept, 201 are refused', async () => {
    const list = (await call('POST', '/monitoring/lists', { name: 'Refs' })).body.data!.id as string;
    const code = ((await call('GET', '/sandbox/fixtures')).body.data as { companies: Record<string, { registry_code: string }> }).companies;
    const registry_code = Object.values(code)[0]!.registry_code;
    const ok = await call('POST', `/monitoring/lists/${list}/companies`, { add: [{ registry_code, external_ref: '😀'.repeat(200) }] });
    expect(ok.status).toBe(200);
    const over = await call('POST', `/monitoring/lists/${list}/companies`, { add: [{ registry_code, external_ref: '😀'.repeat(201) }] });
    expect(over.status).toBe(400);
    expect(refusal(over)).toMatch(/external_ref.*at most 200 characters/);
  });

  it('/classifiers/{type}: an enum of the classifier types in /openapi.json, the MCP tool and the n8n field; another word is a 400', async () => {
    const doc = (await (await fetch(`${sb.url}/openapi.json`)).json()) as {
      paths: Record<string, { get: { parameters: { name: string; schema: Json }[] } }>;
    };
    const type = doc.paths['/classifiers/{type}']!.get.parameters.find((p) => p.name === 'type')!;
    expect(type.schema).toMatchObject({ type: 'string', enum: [...classifierTypes] });

    const tool = toolByName.get('reference_classifiers')!.definition.inputSchema.properties!.type as Json;
    expect(tool.enum).toEqual([...classifierTypes]);

    const field = actionNodes().reference.description.properties.find((p: INodeProperties) => p.name === 'type')!;
    expect(field.type).toBe('options');
    expect(field.options!.map((o) => (o as { value: string }).value).sort()).toEqual([...classifierTypes].sort());

    for (const t of classifierTypes) expect((await call('GET', `/classifiers/${t}`)).status, t).toBe(200);
    const nope = await call('GET', '/classifiers/nope');
    expect(nope.status).toBe(400);
    expect(refusal(nope)).toMatch(/type.*must be one of: legal_forms, /);
  });
});
