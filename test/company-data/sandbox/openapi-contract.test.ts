/**
 * Contract: the sandbox answers as its served OpenAPI says. Requests are generated from the document
 * itself (fast-check, from each operation's parameter and body schemas) and sent over HTTP; every
 * answer is checked with ajv against what the document promises for its status. Asserted: no 5xx,
 * every status documented for its operation, every body valid for its status, and a request that the
 * schemas allow is refused (400) only by a rule the document describes for the parameter it names.
 * Then: every string parameter is accepted exactly when the document allows it (patterns, lengths, and
 * the few rules a pattern cannot hold, stated in words), and every OpenAPI link names a real target and
 * its parameters, points into the source's response schema, and followed from a real answer gets an answer.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../../packages/company-data/src/sandbox';
import { registryCodeCheckDigit, vatChecksumOk } from '@company-data/core/validation';

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
  responses: Record<string, { description: string; content?: { 'application/json': { schema: Json } }; links?: Record<string, Link> }>;
  security?: unknown[];
  'x-plan'?: string;
}
interface Link {
  operationId: string;
  parameters: Record<string, string>;
  description: string;
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
  const res = await fetch(sb.url + path, {
    method,
    headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const j = (await res.json()) as Json;
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(j)}`);
  return j.data as Json;
}

beforeAll(async () => {
  sb = await startSandbox({
    seed: 1,
    companies: 1500,
    rateLimit: false,
    keys: [
      { key: API_KEY, plan: 'api' },
      { key: BASIC_KEY, plan: 'basic' },
    ],
  });
  hook = createServer((req, res) => req.resume().on('end', () => res.writeHead(200).end('ok')));
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  doc = (await (await fetch(`${sb.url}/openapi.json`)).json()) as typeof doc;

  const fixtures = (await api('GET', '/sandbox/fixtures')) as {
    companies: Record<string, { registry_code: string; vat_number: string | null }>;
    persons: Record<string, { id: number; name: string }>;
  };
  const companies = Object.values(fixtures.companies);
  addKnown('registry_code', ...companies.map((c) => c.registry_code));
  addKnown('vat_number', ...companies.map((c) => c.vat_number).filter(Boolean));
  addKnown('id', ...Object.values(fixtures.persons).map((p) => String(p.id)));
  // People search needs a name that exists for its answer to carry an id.
  addKnown('q', ...Object.values(fixtures.persons).map((p) => p.name));
  // A bulk lookup of codes that exist answers with matches, whose ids its links pass on.
  addKnown('queries', ...companies.slice(0, 5).map((c) => [c.registry_code]));
  const list = await api('POST', '/monitoring/lists', { name: 'Contract' });
  await api('POST', `/monitoring/lists/${list.id as string}/companies`, {
    add: companies.slice(0, 5).map((c) => ({ registry_code: c.registry_code })),
  });
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
      if (s.format === 'date')
        return fc
          .date({ min: new Date('1995-01-01'), max: new Date('2026-12-31'), noInvalidDate: true })
          .map((d) => d.toISOString().slice(0, 10));
      if (typeof s.pattern === 'string') return fc.stringMatching(new RegExp(s.pattern));
      const min = (s.minLength as number) ?? 0;
      return fc.string({
        unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzäöõü ABC0123456789-'),
        minLength: min,
        maxLength: Math.max(min, Math.min((s.maxLength as number) ?? 20, 20)),
      });
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
      return fc.uniqueArray(validBySchema((s.items as Json) ?? {}), {
        minLength: min,
        maxLength: Math.max(min, Math.min((s.maxItems as number) ?? 4, 4)),
        selector: (v) => JSON.stringify(v),
      });
    }
    case 'object': {
      const props = (s.properties as Record<string, Json>) ?? {};
      return fc.record(Object.fromEntries(Object.entries(props).map(([k, v]) => [k, valid(v, k)])), {
        requiredKeys: (s.required as string[]) ?? [],
      });
    }
    default:
      return fc.oneof(fc.string(), fc.integer(), fc.boolean());
  }
}

const queryText = (v: unknown) => (Array.isArray(v) ? v.join(',') : String(v));

/** A request the operation's schemas allow; `minimal`: without the optional query parameters. */
function validRequest(c: Case, { minimal = false } = {}): fc.Arbitrary<Sent> {
  const pathParams = c.op.parameters.filter((p) => p.in === 'path');
  const query = c.op.parameters.filter((p) => p.in === 'query' && (p.required || !minimal));
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
      return {
        kind: 'valid' as const,
        why: 'schema-valid',
        method: c.method,
        url: url + (qs.size ? `?${qs}` : ''),
        ...(b !== undefined ? { body: JSON.stringify(b) } : {}),
        key: API_KEY,
      };
    });
}

/** Requests the document rules out: each must be answered 400 (or a documented auth/plan status first). */
function invalidRequests(c: Case, base: Sent): Sent[] {
  const out: Sent[] = [];
  const sep = base.url.includes('?') ? '&' : '?';
  out.push({ ...base, kind: 'invalid', why: 'unknown query parameter', url: `${base.url}${sep}zz_not_a_parameter=1` });
  for (const p of c.op.parameters.filter((x) => x.in === 'query')) {
    const s = p.schema;
    const bad =
      typeof s.maximum === 'number'
        ? String(s.maximum + 1)
        : Array.isArray(s.enum)
          ? 'not-a-choice'
          : s.type === 'integer'
            ? 'x1'
            : s.format === 'date'
              ? '2025-02-30'
              : undefined;
    if (bad !== undefined)
      out.push({ ...base, kind: 'invalid', why: `${p.name}=${bad}`, url: `${base.url}${sep}${p.name}=${encodeURIComponent(bad)}` });
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
  if (c.op.parameters.some((p) => p.in === 'path' && p.name === 'registry_code'))
    out.push({
      ...base,
      kind: 'invalid',
      why: 'registry code with a wrong check digit',
      url: base.url.replace(/\/\d{8}(?=\/|\?|$)/, '/10000002'),
    });
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
  const headers: Record<string, string> = {
    ...(sent.key ? { 'x-api-key': sent.key } : {}),
    ...(sent.body !== undefined ? { 'content-type': 'application/json' } : {}),
  };
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
    if (!validate(JSON.parse(text)))
      fail(`body does not match the ${res.status} schema: ${ajv.errorsText(validate.errors)} in ${text.slice(0, 200)}`);
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

/** A list with companies and a saved search to work on: the generated requests may have deleted the ones made in setup. */
async function freshObjects(): Promise<void> {
  const list = await api('POST', '/monitoring/lists', { name: 'Fresh' });
  await api('POST', `/monitoring/lists/${list.id as string}/companies`, {
    add: (known.get('registry_code') as string[]).slice(0, 5).map((registry_code) => ({ registry_code })),
  });
  known.set('list_id', [list.id]);
  known.set('search_id', [(await api('POST', '/searches', { name: 'Fresh', filters: { county: ['Harju maakond'] } })).id]);
}

const operationsOf = () =>
  Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
  );

async function send(sent: Sent): Promise<{ status: number; body: Json }> {
  const headers: Record<string, string> = {
    'x-api-key': sent.key ?? API_KEY,
    ...(sent.body !== undefined ? { 'content-type': 'application/json' } : {}),
  };
  const res = await fetch(sb.url + sent.url, { method: sent.method, headers, ...(sent.body !== undefined ? { body: sent.body } : {}) });
  return { status: res.status, body: (await res.json()) as Json };
}

/** A request the schemas allow (real ids from `known`, no optional query) whose answer `accept`s (default: no 4xx), or undefined. */
async function answeredRequest(
  c: Case,
  seed: number,
  accept: (answer: { status: number; body: Json }) => boolean = (a) => a.status < 400,
): Promise<{ sent: Sent; answer: { status: number; body: Json } } | undefined> {
  for (const sent of fc.sample(validRequest(c, { minimal: true }), { numRuns: 40, seed })) {
    const answer = await send(sent);
    if (accept(answer)) return { sent, answer };
  }
  return undefined;
}

/** JSON pointer (RFC 6901) into a value. */
function resolvePointer(value: unknown, pointer: string): unknown {
  return pointer
    .split('/')
    .slice(1)
    .reduce<unknown>(
      (v, key) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[key.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined),
      value,
    );
}

/** The schema a JSON pointer reaches inside a response schema (properties by name, array items by index), or undefined. */
function schemaAt(schema: Json, pointer: string): Json | undefined {
  let s: Json | undefined = deref(schema) as Json;
  for (const key of pointer.split('/').slice(1)) {
    if (!s) return undefined;
    const options: Json[] = Array.isArray(s.anyOf) ? (s.anyOf as Json[]) : [s];
    const next: Json | undefined = options
      .map((o) => (/^\d+$/.test(key) && o.type === 'array' ? (o.items as Json) : (o.properties as Record<string, Json> | undefined)?.[key]))
      .find(Boolean);
    s = next;
  }
  return s;
}

/**
 * Rules the document states in words because a pattern cannot hold them ("refused with 400"): for these
 * parameters a value the schema allows must also keep this rule to be accepted.
 */
const wordedRules: Record<string, (value: string, url: string) => boolean> = {
  registry_code: (v) => registryCodeCheckDigit(v.slice(0, 7)) === Number(v[7]),
  vat_number: (v) => vatChecksumOk(v.replace(/\D/g, '')),
  after: (v, url) => !url.startsWith('/searches/') || v.startsWith(`evt_${url.split('/')[2]}_`),
  url: (v) => URL.canParse(v),
};

/** Texts at the edges of the rules the fuzzer met: blanks, padding, a scheme alone, lengths, near-ids. */
const edgeTexts = [
  '',
  ' ',
  '\t',
  '0',
  'a',
  '  a ',
  ' ab ',
  'a b',
  'abc',
  ' '.repeat(3) + 'x'.repeat(199),
  'x'.repeat(200),
  'x'.repeat(201),
  'EE',
  '102224658 ',
  'ee 102224658',
  'EE  102224658',
  'evt_1',
  'evt_x',
  'evt_srch_abc_20261120_1',
  'lst_',
  'lst_a-b',
  'srch_x1',
  'dlv_1',
  'roles',
  'Roles',
  'http://',
  'https://',
  'https://a',
  'https://a.',
  'https://1.2.3',
  'http://example.com/hook',
  'https://u:p@example.com/',
  'https://example.com:65536/',
  'https://example.com/a b',
  'HTTPS://EXAMPLE.COM/X?Y=1#Z',
  'http://127.0.0.1:1/x',
  'http://[::1]/x',
  'https://[::1]/x',
  'https://example.com/{a}',
  'https://example.com/%zz',
];

/** Variants of a real value that keep its worded rule: padding, case, and the value as it is. */
const variants = (v: string) => [v, ` ${v} `, v.toLowerCase(), v.toUpperCase(), `${v} `, v.slice(0, -1), `${v}0`];

describe('the sandbox answers as its OpenAPI says', () => {
  it('the document states the rules: closed bodies, dates as format date, examples that exist', async () => {
    const ops = Object.values(doc.paths).flatMap((item) => Object.values(item));
    const bodies = ops
      .filter((o) => o.requestBody)
      .map((o) => [o.operationId, o.requestBody!.content['application/json'].schema.additionalProperties]);
    expect(bodies.length).toBeGreaterThan(5);
    expect(bodies.filter(([, extra]) => extra !== false)).toEqual([]);
    const dateParams = ops.flatMap((o) => o.parameters).filter((p) => /(_from|_to|^date)$/.test(p.name));
    expect(dateParams.length).toBeGreaterThan(0);
    expect(dateParams.filter((p) => p.schema.format !== 'date').map((p) => p.name)).toEqual([]);
    // Patterns read the same in ECMA-262 and in Python's re (Schemathesis): no \d, which Python reads as any Unicode digit.
    const patterns: string[] = [];
    JSON.stringify(doc, (k, v: unknown) => (k === 'pattern' && typeof v === 'string' && patterns.push(v), v));
    expect(patterns.length).toBeGreaterThan(20);
    expect(patterns.filter((p) => /\\d/.test(p))).toEqual([]);
    for (const p of ops.flatMap((o) => o.parameters).filter((x) => x.example !== undefined)) {
      const path = p.name === 'vat_number' ? `/companies/by-vat/${String(p.example)}` : `/companies/${String(p.example)}`;
      const res = await fetch(sb.url + path, { headers: { 'x-api-key': API_KEY } });
      expect(res.status, `example ${p.name}=${String(p.example)}`).toBe(200);
    }
  });

  it('generated valid and invalid requests for every operation: documented statuses and bodies only, no 5xx', async () => {
    const cases: Case[] = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
    );
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
        if (c.op['x-plan'] === 'api')
          count(await check(c, { ...samples[0]!, key: BASIC_KEY, kind: 'valid', why: 'basic plan' }, violations));
      }
    }
    expect(violations, violations.map((v) => `${v.request}\n    ${v.problem}`).join('\n')).toEqual([]);
    // The run reached beyond the refusals: real answers of each kind.
    expect(sentCount).toBeGreaterThan(300);
    expect(statuses.get(200)).toBeGreaterThan(100);
    for (const s of [201, 202, 400, 401, 403, 404]) expect(statuses.get(s), `status ${s}`).toBeGreaterThan(0);
  }, 180_000);
  it('every string parameter is accepted exactly when the document allows it', async () => {
    await freshObjects();
    const cases = operationsOf().filter((c) => c.method !== 'DELETE');
    let accepted = 0;
    let refused = 0;
    const problems: string[] = [];
    for (const [i, c] of cases.entries()) {
      const bodySchema = c.op.requestBody?.content['application/json'].schema;
      const fields = [
        ...c.op.parameters.filter((p) => p.schema.type === 'string').map((p) => ({ name: p.name, where: p.in, schema: p.schema })),
        ...Object.entries((bodySchema?.properties ?? {}) as Record<string, Json>)
          .filter(([, s]) => s.type === 'string')
          .map(([name, schema]) => ({ name, where: 'body' as const, schema })),
      ];
      if (!fields.length) continue;
      // Any answer but 400 shows the other parameters pass (a retry of a delivered delivery is a 409).
      const base = await answeredRequest(c, SEED + 1000 + i, (a) => a.status < 500 && a.status !== 400);
      expect(base, `a request ${c.method} ${c.path} passes validation`).toBeDefined();
      for (const f of fields) {
        const validate = ajv.compile(f.schema);
        const real = (known.get(f.name) ?? []).map(String);
        const fromPattern =
          typeof f.schema.pattern === 'string'
            ? fc.sample(fc.stringMatching(new RegExp(f.schema.pattern as string)), { numRuns: 12, seed: SEED + i })
            : [];
        const candidates = [...new Set([...edgeTexts, ...real.slice(0, 3).flatMap(variants), ...fromPattern])];
        for (const value of candidates) {
          if (f.where === 'path' && (value === '' || value.trim() !== value)) continue; // an empty or padded path segment is another path
          let sent: Sent = { ...base!.sent, kind: 'valid', why: `${f.name}=${JSON.stringify(value)}` };
          if (f.where === 'path') {
            const pathValues = c.path
              .split('/')
              .map((seg, k) => (seg === `{${f.name}}` ? encodeURIComponent(value) : base!.sent.url.split('?')[0]!.split('/')[k]));
            sent = { ...sent, url: pathValues.join('/') + (base!.sent.url.includes('?') ? `?${base!.sent.url.split('?')[1]}` : '') };
          } else if (f.where === 'query') {
            const u = new URL(sb.url + base!.sent.url);
            u.searchParams.set(f.name, value);
            sent = { ...sent, url: u.pathname + u.search };
          } else sent = { ...sent, body: JSON.stringify({ ...(JSON.parse(base!.sent.body ?? '{}') as Json), [f.name]: value }) };
          const allowed =
            validate(value) && (wordedRules[f.name]?.(value, c.path.replace(/\{search_id\}/, String(known.get('search_id')?.[0]))) ?? true);
          const answer = await send(sent);
          const refusedHere = answer.status === 400 && (answer.body.error as Json | undefined)?.param === f.name;
          if (allowed && refusedHere)
            problems.push(
              `${c.method} ${c.path} ${f.name}=${JSON.stringify(value)}: the document allows it, the server refuses: ${JSON.stringify(answer.body.error)}`,
            );
          if (!allowed && answer.status !== 400)
            problems.push(
              `${c.method} ${c.path} ${f.name}=${JSON.stringify(value)}: the document refuses it, the server answers ${answer.status}`,
            );
          if (allowed) accepted++;
          else refused++;
        }
      }
    }
    // The webhook address back to the local receiver for the link checks.
    await api('PUT', '/webhook', { url: `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`, enabled: true });
    expect(problems, problems.join('\n')).toEqual([]);
    if (process.env.CONTRACT_COUNTS) console.log({ accepted, refused });
    expect(accepted).toBeGreaterThan(200);
    expect(refused).toBeGreaterThan(200);
  }, 240_000);

  it('links: each names an operation and its parameters, points into the response schema, and reaches every operation taking an id', () => {
    const ops = new Map(operationsOf().map((c) => [c.op.operationId, c]));
    const problems: string[] = [];
    const reached = new Set<string>();
    const linked = new Set<string>();
    let count = 0;
    const types = (s: Json | undefined) =>
      new Set([s?.type, ...((s?.anyOf as Json[] | undefined) ?? []).map((o) => o.type)].filter(Boolean));
    for (const c of ops.values()) {
      for (const [status, r] of Object.entries(c.op.responses)) {
        for (const [name, link] of Object.entries(r.links ?? {})) {
          count++;
          const target = ops.get(link.operationId);
          const from = `${c.op.operationId} ${status} → ${link.operationId}`;
          if (!target) {
            problems.push(`${c.op.operationId} ${status} ${name}: no operation ${link.operationId}`);
            continue;
          }
          reached.add(link.operationId);
          linked.add(link.operationId).add(c.op.operationId);
          // Every path parameter of the target is set; anything else set is one of its query parameters.
          const targetPath = target.op.parameters.filter((p) => p.in === 'path').map((p) => p.name);
          const unset = targetPath.filter((p) => !(p in link.parameters));
          if (unset.length) problems.push(`${from}: leaves the path parameter(s) ${unset.join(', ')} unset`);
          for (const [param, expr] of Object.entries(link.parameters)) {
            const targetParam = target.op.parameters.find((p) => p.name === param);
            if (!targetParam) {
              problems.push(`${from}: ${param} is not a parameter of the target`);
              continue;
            }
            const fromRequest = /^\$request\.path\.(\w+)$/.exec(expr)?.[1];
            const pointer = /^\$response\.body#(\/.*)$/.exec(expr)?.[1];
            if (fromRequest && !c.op.parameters.some((p) => p.in === 'path' && p.name === fromRequest))
              problems.push(`${from}: ${param} from a path parameter ${fromRequest} the source does not have`);
            if (!fromRequest && !pointer) {
              // A constant (OpenAPI allows them): it must be a value the target's parameter takes.
              if (expr.startsWith('$')) problems.push(`${from}: ${param}: ${expr} is neither $request.path nor $response.body`);
              else if (!ajv.validate(deref(targetParam.schema) as object, expr))
                problems.push(`${from}: ${param}: the constant ${JSON.stringify(expr)} is not a value the target takes`);
            }
            if (pointer) {
              const at = schemaAt(r.content!['application/json'].schema, pointer);
              // A list parameter (style form) takes one value of its items.
              const wanted = targetParam.schema.type === 'array' ? (targetParam.schema.items as Json) : targetParam.schema;
              if (!at) problems.push(`${from}: ${pointer} is not in the response schema`);
              else if (![...types(wanted)].some((t) => types(at).has(t)))
                problems.push(`${from}: ${pointer} is ${[...types(at)].join('|')}, ${param} takes ${[...types(wanted)].join('|')}`);
            }
          }
        }
      }
    }
    expect(problems, problems.join('\n')).toEqual([]);
    expect(count).toBeGreaterThan(50);
    // Every operation with an id in its path is reached by a link.
    const unreached = [...ops.values()]
      .filter((c) => c.op.parameters.some((p) => p.in === 'path') && !reached.has(c.op.operationId))
      .map((c) => c.op.operationId);
    expect(unreached).toEqual([]);
    // Every operation takes part in a link, as its source or its target (what a stateful fuzzer can reach),
    // but the document itself.
    const apart = [...ops.keys()].filter((id) => !linked.has(id));
    expect(apart).toEqual(['reference.openapi']);
  });

  it('links a client follows: the lookup into the company operations, PUT /webhook into POST /webhook/test, EMTAK codes into the search', () => {
    const linksOf = (id: string) => {
      const c = operationsOf().find((o) => o.op.operationId === id)!;
      return Object.values(c.op.responses).find((r) => r.links)?.links ?? {};
    };
    const lookup = linksOf('companies.lookup');
    expect(lookup['companies.get']?.parameters).toEqual({ registry_code: '$response.body#/data/0/matches/0/registry_code' });
    expect(lookup['companies.byVat']?.parameters).toEqual({ vat_number: '$response.body#/data/0/matches/0/vat_number' });
    expect(Object.keys(lookup)).toContain('reference.usage');
    expect(linksOf('webhook.set')['webhook.test']).toMatchObject({ operationId: 'webhook.test', parameters: {} });
    expect(linksOf('reference.emtak')['companies.search']?.parameters).toEqual({ activity: '$response.body#/data/0/code' });
    expect(linksOf('companies.get')['reference.classifiers']?.parameters).toEqual({ type: 'legal_forms' });
  });

  it('links followed from real answers of their source get an answer: 2xx, or a conflict the target documents', async () => {
    // Each link once per source, followed from whichever success answer it comes (PUT /webhook answers
    // 201 or 200, with the same links).
    const follows = operationsOf().flatMap((c) => {
      const statuses = Object.entries(c.op.responses).filter(([, r]) => r.links);
      const names = [...new Set(statuses.flatMap(([, r]) => Object.keys(r.links!)))];
      const statusesOf = (name: string) => statuses.filter(([, r]) => r.links![name]).map(([s]) => Number(s));
      return names.map((name) => {
        const [status, link] = [statusesOf(name), statuses.find(([, r]) => r.links![name])![1].links![name]!];
        return { source: c, statuses: status, status: status.join('/'), name, link };
      });
    });
    const ops = new Map(operationsOf().map((c) => [c.op.operationId, c]));
    // Deleting and removing last: the reads and writes before them use the same lists and searches.
    const destructive = (id: string) => ops.get(id)!.method === 'DELETE';
    follows.sort((a, b) => Number(destructive(a.link.operationId)) - Number(destructive(b.link.operationId)));
    const problems: string[] = [];
    const answered = new Map<number, number>();
    await freshObjects();
    for (const [i, f] of follows.entries()) {
      const fromAnswer = Object.entries(f.link.parameters).filter(([, expr]) => expr.startsWith('$response.body#'));
      const values = (body: Json) =>
        Object.fromEntries(fromAnswer.map(([p, expr]) => [p, resolvePointer(body, expr.slice('$response.body#'.length))]));
      await freshObjects();
      // A source answer with this link's status whose pointers reach values (a party may be a company: person_id null).
      const from = await answeredRequest(
        f.source,
        SEED + 2000 + i,
        (a) => f.statuses.includes(a.status) && Object.values(values(a.body)).every((v) => v !== null && v !== undefined),
      );
      if (!from) {
        problems.push(`${f.source.op.operationId} ${f.status} → ${f.name}: no answer of the source with values for the link`);
        continue;
      }
      const target = ops.get(f.link.operationId)!;
      const sourcePath = Object.fromEntries(
        f.source.path
          .split('/')
          .map((seg, k) => [seg.replace(/[{}]/g, ''), decodeURIComponent(from.sent.url.split('?')[0]!.split('/')[k]!)]),
      );
      const resolved = values(from.answer.body);
      // Each link value: from the source's path, from its answer, or a constant.
      const value = (p: string) => {
        const expr = f.link.parameters[p]!;
        if (expr.startsWith('$request.path.')) return String(sourcePath[expr.slice('$request.path.'.length)]);
        return String(expr.startsWith('$response.body#') ? resolved[p] : expr);
      };
      const inQuery = target.op.parameters.filter((p) => p.in === 'query' && p.name in f.link.parameters);
      const query = new URLSearchParams(inQuery.map((p): [string, string] => [p.name, value(p.name)])).toString();
      const url = target.path.replace(/\{(\w+)\}/g, (_, p: string) => encodeURIComponent(value(p))) + (query ? `?${query}` : '');
      // The link sets the path; the target's optional query is left out, and a generated body that breaks a
      // body rule (a made-up registry code's check digit) is replaced by the next one.
      let answer = { status: 0, body: {} as Json };
      for (const targetRequest of fc.sample(validRequest(target), { numRuns: 10, seed: SEED + 3000 + i })) {
        answer = await send({ ...targetRequest, url });
        const param = (answer.body.error as Json | undefined)?.param as string | undefined;
        if (!(answer.status === 400 && param && !(param in f.link.parameters))) break;
      }
      answered.set(answer.status, (answered.get(answer.status) ?? 0) + 1);
      const documentedConflict = answer.status === 409 && target.op.responses['409'] !== undefined;
      if (answer.status >= 400 && !documentedConflict)
        problems.push(`${f.source.op.operationId} → ${f.link.operationId} (${url}): ${answer.status} ${JSON.stringify(answer.body.error)}`);
    }
    if (process.env.CONTRACT_COUNTS) console.log({ follows: follows.length, answered: Object.fromEntries(answered) });
    expect(problems, problems.join('\n')).toEqual([]);
    expect(follows.length).toBeGreaterThan(50);
    expect([...answered.entries()].filter(([s]) => s < 300).reduce((n, [, k]) => n + k, 0)).toBeGreaterThan(follows.length * 0.9);
  }, 240_000);
});
