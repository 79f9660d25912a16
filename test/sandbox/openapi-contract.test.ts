/**
 * Contract: the sandbox answers as its served OpenAPI says. Requests are generated from the document
 * itself (fast-check, from each operation's parameter and body schemas) and sent over HTTP; every
 * answer is checked with ajv against what the document promises for its status. Asserted: no 5xx,
 * every status documented for its operation, every body valid for its status, and a request that the
 * schemas allow is refused (400) only by a rule the document describes for the parameter it names.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../packages/cli/src/sandbox';

type Json = Record<string, unknown>;
interface Param {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  description?: string;
  schema: Json;
  example?: unknown;
}
interface Operation {
  operationId: string;
  parameters: Param[];
  requestBody?: { content: { 'application/json': { schema: Json } } };
  responses: Record<string, { description: string; content?: { 'application/json': { schema: Json } } }>;
  security?: unknown[];
  'x-plan'?: string;
}
interface Case {
  method: string;
  path: string;
  op: Operation;
}
interface Sent {
  kind: 'valid' | 'invalid';
  why: string;
  method: string;
  url: string;
  body?: string;
  key?: string;
}

const API_KEY = 'sk_contract_api_00000000000000001';
const BASIC_KEY = 'sk_contract_basic_0000000000000001';
const SEED = 20_260_116;

let sb: Sandbox;
let hook: Server;
let doc: { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Json> } };
/** Values that exist in the sandbox, by parameter name: fixture companies and people, ids made in setup. */
const known = new Map<string, unknown[]>();
const ajv = new Ajv2020({ strict: false, allErrors: false });
addFormats(ajv);

const addKnown = (name: string, ...values: unknown[]) => known.set(name, [...(known.get(name) ?? []), ...values]);

async function api(method: string, path: string, body?: unknown): Promise<Json> {
  const res = await fetch(sb.url + path, { method, headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const j = (await res.json()) as Json;
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(j)}`);
  return j.data as Json;
}

beforeAll(async () => {
  sb = await startSandbox({ seed: 1, companies: 1500, rateLimit: false, keys: [{ key: API_KEY, plan: 'api' }, { key: BASIC_KEY, plan: 'basic' }] });
  hook = createServer((req, res) => req.resume().on('end', () => res.writeHead(200).end('ok')));
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  doc = (await (await fetch(`${sb.url}/openapi.json`)).json()) as typeof doc;

  const fixtures = (await api('GET', '/sandbox/fixtures')) as { companies: Record<string, { registry_code: string; vat_number: string | null }>; persons: Record<string, { id: number }> };
  const companies = Object.values(fixtures.companies);
  addKnown('registry_code', ...companies.map((c) => c.registry_code));
  addKnown('vat_number', ...companies.map((c) => c.vat_number).filter(Boolean));
  addKnown('id', ...Object.values(fixtures.persons).map((p) => String(p.id)));
  const list = await api('POST', '/monitoring/lists', { name: 'Contract' });
  await api('POST', `/monitoring/lists/${list.id as string}/companies`, { add: companies.slice(0, 5).map((c) => ({ registry_code: c.registry_code })) });
  addKnown('list_id', list.id);
  const search = await api('POST', '/searches', { name: 'Contract', filters: { county: ['Harju maakond'] } });
  addKnown('search_id', search.id);
  await api('PUT', '/webhook', { url: `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`, enabled: true });
  await api('POST', '/webhook/test');
  const deliveries = (await api('GET', '/webhook/deliveries')) as unknown as { id: string }[];
  addKnown('delivery_id', ...deliveries.map((d) => d.id));
}, 120_000);

afterAll(async () => {
  hook?.close();
  await sb?.close();
});

/** The document's $refs replaced by what they point at (ajv then needs no document id). */
function deref(s: unknown): unknown {
  if (Array.isArray(s)) return s.map(deref);
  if (!s || typeof s !== 'object') return s;
  const ref = (s as Json).$ref;
  if (typeof ref === 'string') return deref(doc.components.schemas[ref.split('/').pop()!]);
  return Object.fromEntries(Object.entries(s).map(([k, v]) => [k, deref(v)]));
}

/** Values a JSON schema allows (the subset zod's toJSONSchema emits for parameters and bodies). */
function valid(schema: Json, name?: string): fc.Arbitrary<unknown> {
  const real = name ? known.get(name) : undefined;
  const generic = validBySchema(schema);
  // Mostly values that exist (or the checks stop at "not found"), sometimes anything the schema allows.
  return real?.length ? fc.oneof({ arbitrary: fc.constantFrom(...real), weight: 3 }, { arbitrary: generic, weight: 1 }) : generic;
}

function validBySchema(s: Json): fc.Arbitrary<unknown> {
  if ('const' in s) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]));
  if (Array.isArray(s.anyOf)) return fc.oneof(...(s.anyOf as Json[]).map(validBySchema));
  switch (s.type) {
    case 'string': {
      if (s.format === 'date') return fc.date({ min: new Date('1995-01-01'), max: new Date('2026-12-31'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
      if (typeof s.pattern === 'string') return fc.stringMatching(new RegExp(s.pattern));
      const min = (s.minLength as number) ?? 0;
      return fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzäöõü ABC0123456789-'), minLength: min, maxLength: Math.max(min, Math.min((s.maxLength as number) ?? 20, 20)) });
    }
    case 'integer':
    case 'number': {
      const min = (s.minimum as number) ?? (typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum + 1 : -1000);
      const max = (s.maximum as number) ?? min + 5000;
      return fc.integer({ min: Math.ceil(min), max: Math.floor(max) });
    }
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const min = (s.minItems as number) ?? 0;
      return fc.uniqueArray(validBySchema((s.items as Json) ?? {}), { minLength: min, maxLength: Math.max(min, Math.min((s.maxItems as number) ?? 4, 4)), selector: (v) => JSON.stringify(v) });
    }
    case 'object': {
      const props = (s.properties as Record<string, Json>) ?? {};
      return fc.record(Object.fromEntries(Object.entries(props).map(([k, v]) => [k, valid(v, k)])), { requiredKeys: (s.required as string[]) ?? [] });
    }
    default:
      return fc.oneof(fc.string(), fc.integer(), fc.boolean());
  }
}

const queryText = (v: unknown) => (Array.isArray(v) ? v.join(',') : String(v));

/** A request the operation's schemas allow. */
function validRequest(c: Case): fc.Arbitrary<Sent> {
  const pathParams = c.op.parameters.filter((p) => p.in === 'path');
  const query = c.op.parameters.filter((p) => p.in === 'query');
  const body = c.op.requestBody?.content['application/json'].schema;
  return fc
    .record({
      path: fc.tuple(...pathParams.map((p) => valid(p.schema, p.name))),
      query: fc.tuple(...query.map((p) => (p.required ? valid(p.schema, p.name) : fc.option(valid(p.schema, p.name), { nil: undefined })))),
      body: body ? valid(body) : fc.constant(undefined),
    })
    .map(({ path, query: q, body: b }) => {
      let url = c.path;
      pathParams.forEach((p, i) => (url = url.replace(`{${p.name}}`, encodeURIComponent(String(path[i])))));
      const qs = new URLSearchParams();
      query.forEach((p, i) => q[i] !== undefined && qs.set(p.name, queryText(q[i])));
      return { kind: 'valid' as const, why: 'schema-valid', method: c.method, url: url + (qs.size ? `?${qs}` : ''), ...(b !== undefined ? { body: JSON.stringify(b) } : {}), key: API_KEY };
    });
}

/** Requests the document rules out: each must be answered 400 (or a documented auth/plan status first). */
function invalidRequests(c: Case, base: Sent): Sent[] {
  const out: Sent[] = [];
  const sep = base.url.includes('?') ? '&' : '?';
  out.push({ ...base, kind: 'invalid', why: 'unknown query parameter', url: `${base.url}${sep}zz_not_a_parameter=1` });
  for (const p of c.op.parameters.filter((x) => x.in === 'query')) {
    const s = p.schema;
    const bad = typeof s.maximum === 'number' ? String(s.maximum + 1) : Array.isArray(s.enum) ? 'not-a-choice' : s.type === 'integer' ? 'x1' : s.format === 'date' ? '2025-02-30' : undefined;
    if (bad !== undefined) out.push({ ...base, kind: 'invalid', why: `${p.name}=${bad}`, url: `${base.url}${sep}${p.name}=${encodeURIComponent(bad)}` });
  }
  if (c.op.requestBody) {
    const body = base.body ? (JSON.parse(base.body) as Json) : {};
    out.push({ ...base, kind: 'invalid', why: 'extra body field', body: JSON.stringify({ ...body, zz_not_a_field: 1 }) });
    out.push({ ...base, kind: 'invalid', why: 'body not JSON', body: '{"unfinished": ' });
    const schema = c.op.requestBody.content['application/json'].schema;
    const req = (schema.required as string[]) ?? [];
    if (req.length) {
      const { [req[0]!]: _dropped, ...rest } = body;
      out.push({ ...base, kind: 'invalid', why: `body without ${req[0]}`, body: JSON.stringify(rest) });
    }
  }
  if (c.op.parameters.some((p) => p.in === 'path' && p.name === 'registry_code')) out.push({ ...base, kind: 'invalid', why: 'registry code with a wrong check digit', url: base.url.replace(/\/\d{8}(?=\/|\?|$)/, '/10000002') });
  return out;
}

interface Violation {
  request: string;
  problem: string;
}

/** Everything the document says about a parameter: its description and its schema's. */
function docText(c: Case, name: string): string {
  const p = c.op.parameters.find((x) => x.name === name);
  const bodyProp = ((c.op.requestBody?.content['application/json'].schema.properties ?? {}) as Record<string, Json>)[name];
  return JSON.stringify([p?.description, p?.schema, bodyProp]);
}

async function check(c: Case, sent: Sent, violations: Violation[]): Promise<number> {
  const headers: Record<string, string> = { ...(sent.key ? { 'x-api-key': sent.key } : {}), ...(sent.body !== undefined ? { 'content-type': 'application/json' } : {}) };
  const res = await fetch(sb.url + sent.url, { method: sent.method, headers, ...(sent.body !== undefined ? { body: sent.body } : {}) });
  const text = await res.text();
  const tag = `${sent.method} ${sent.url}${sent.body ? ` ${sent.body.slice(0, 160)}` : ''} (${sent.why})`;
  const fail = (problem: string) => violations.push({ request: tag, problem });
  if (res.status >= 500) {
    fail(`${res.status}: ${text.slice(0, 200)}`);
    return res.status;
  }
  const documented = c.op.responses[String(res.status)];
  if (!documented) {
    fail(`status ${res.status} is not documented (${Object.keys(c.op.responses).join(', ')}): ${text.slice(0, 200)}`);
    return res.status;
  }
  const schema = documented.content?.['application/json'].schema;
  if (schema) {
    const validate = ajv.compile(deref(schema) as Json);
    if (!validate(JSON.parse(text))) fail(`body does not match the ${res.status} schema: ${ajv.errorsText(validate.errors)} in ${text.slice(0, 200)}`);
  }
  if (sent.kind === 'invalid' && res.status < 400) fail(`accepted with ${res.status}`);
  if (sent.kind === 'invalid' && res.status !== 400) fail(`answered ${res.status}, not 400`);
  if (sent.kind === 'valid' && res.status === 400) {
    const err = (JSON.parse(text) as { error: { param?: string; message: string } }).error;
    const where = docText(c, err.param ?? '');
    // A rule the schema cannot hold is written in the parameter's description ("refused with 400").
    if (!/refused with 400/.test(where)) fail(`schema-valid request refused by an undocumented rule: ${err.param}: ${err.message}`);
  }
  return res.status;
}

describe('the sandbox answers as its OpenAPI says', () => {
  it('the document states the rules: closed bodies, dates as format date, examples that exist', async () => {
    const ops = Object.values(doc.paths).flatMap((item) => Object.values(item));
    const bodies = ops.filter((o) => o.requestBody).map((o) => [o.operationId, o.requestBody!.content['application/json'].schema.additionalProperties]);
    expect(bodies.length).toBeGreaterThan(5);
    expect(bodies.filter(([, extra]) => extra !== false)).toEqual([]);
    const dateParams = ops.flatMap((o) => o.parameters).filter((p) => /(_from|_to|^date)$/.test(p.name));
    expect(dateParams.length).toBeGreaterThan(0);
    expect(dateParams.filter((p) => p.schema.format !== 'date').map((p) => p.name)).toEqual([]);
    for (const p of ops.flatMap((o) => o.parameters).filter((x) => x.example !== undefined)) {
      const path = p.name === 'vat_number' ? `/companies/by-vat/${String(p.example)}` : `/companies/${String(p.example)}`;
      const res = await fetch(sb.url + path, { headers: { 'x-api-key': API_KEY } });
      expect(res.status, `example ${p.name}=${String(p.example)}`).toBe(200);
    }
  });

  it('generated valid and invalid requests for every operation: documented statuses and bodies only, no 5xx', async () => {
    const cases: Case[] = Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ method: method.toUpperCase(), path, op })));
    expect(cases.length).toBeGreaterThanOrEqual(40);
    const violations: Violation[] = [];
    const statuses = new Map<number, number>();
    let sentCount = 0;
    const count = (s: number) => {
      sentCount++;
      statuses.set(s, (statuses.get(s) ?? 0) + 1);
    };
    // Reads first, then writes, deletes last: a deleted list would turn the reads into 404s.
    const order = (m: string) => ({ GET: 0, POST: 1, PUT: 1, PATCH: 2, DELETE: 3 })[m] ?? 1;
    cases.sort((a, b) => order(a.method) - order(b.method));
    for (const [i, c] of cases.entries()) {
      const samples = fc.sample(validRequest(c), { numRuns: 8, seed: SEED + i });
      for (const s of samples) count(await check(c, s, violations));
      for (const s of invalidRequests(c, samples[0]!)) count(await check(c, s, violations));
      if (!c.op.security) {
        count(await check(c, { ...samples[0]!, key: undefined, kind: 'valid', why: 'no key' }, violations));
        if (c.op['x-plan'] === 'api') count(await check(c, { ...samples[0]!, key: BASIC_KEY, kind: 'valid', why: 'basic plan' }, violations));
      }
    }
    expect(violations, violations.map((v) => `${v.request}\n    ${v.problem}`).join('\n')).toEqual([]);
    // The run reached beyond the refusals: real answers of each kind.
    expect(sentCount).toBeGreaterThan(300);
    expect(statuses.get(200)).toBeGreaterThan(100);
    for (const s of [201, 202, 400, 401, 403, 404]) expect(statuses.get(s), `status ${s}`).toBeGreaterThan(0);
  }, 180_000);
});
