import { z } from 'zod/v4';
import { groups, operationId, type AnyOperation } from './operation';
import { linksOf } from './openapi-links';
import { operations } from './operations';
import { errorBodySchema, metaSchema } from './schemas/common';

/**
 * The OpenAPI 3.1 description, generated from the operation table: parameters from the same zod rules
 * the client and the sandbox validate with (io: 'input'), responses from the response schemas (output).
 */
const jsonSchema = (schema: z.ZodType, io: 'input' | 'output') => {
  const out = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as Record<string, unknown>;
  delete out.$schema;
  return portablePatterns(out) as Record<string, unknown>;
};

/**
 * `\d` as `[0-9]` in every pattern: the same in ECMA-262 (the dialect JSON Schema names, and the server's),
 * but Python's re, which Schemathesis and Hypothesis generate with, reads `\d` as any Unicode digit and
 * would send "٣" as a value the document allows.
 */
export function portableRegex(pattern: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      const next = pattern[i + 1] ?? '';
      i++;
      out += next === 'd' ? (inClass ? '0-9' : '[0-9]') : c + next;
      continue;
    }
    if (c === '[' && !inClass) inClass = true;
    else if (c === ']' && inClass) inClass = false;
    out += c;
  }
  return out;
}

function portablePatterns(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(portablePatterns);
  if (!schema || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([k, v]) => [k, k === 'pattern' && typeof v === 'string' ? portableRegex(v) : portablePatterns(v)]),
  );
}

const isOptional = (schema: z.ZodType) => schema.safeParse(undefined).success;

const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

function operationObject(op: AnyOperation, documented: readonly AnyOperation[]) {
  const params = Object.entries(op.params);
  const parameters = params
    .filter(([, p]) => p.in !== 'body')
    .map(([name, p]) => {
      const schema = jsonSchema(p.schema, 'input');
      const isArray = schema.type === 'array';
      return {
        name,
        in: p.in,
        required: p.in === 'path' ? true : !isOptional(p.schema),
        description: p.description,
        schema,
        ...(isArray ? { style: 'form', explode: false } : {}),
        ...(p.example !== undefined ? { example: p.example } : {}),
      };
    });
  const body = params.filter(([, p]) => p.in === 'body');
  const metaExtra = op.meta ? jsonSchema(op.meta, 'output') : jsonSchema(metaSchema, 'output');
  const success = op.rawResponse
    ? jsonSchema(op.response, 'output')
    : {
        type: 'object',
        required: ['success', 'data', 'meta'],
        properties: { success: { const: true }, data: jsonSchema(op.response, 'output'), meta: metaExtra },
      };
  const responses: Record<string, unknown> = {};
  const links = linksOf(op, documented);
  const withLinks = Object.keys(links).length ? { links } : {};
  for (const [status, description] of Object.entries(op.answers?.success ?? { 200: 'Success' }))
    responses[status] = { description, content: { 'application/json': { schema: success } }, ...withLinks };
  const hasPath = params.some(([, p]) => p.in === 'path');
  // What the server answers for every operation of this shape (packages/company-data/src/sandbox/server.ts).
  responses['400'] = errorResponse(
    `invalid_parameter: a parameter breaks its rule, or is not a parameter of this operation (query parameters are as closed as the body); error.param names it${body.length ? '. invalid_json: the body is not JSON' : ''}`,
  );
  if (!op.noAuth) responses['401'] = errorResponse('api_key_required or invalid_api_key');
  if (op.plan === 'api') responses['403'] = errorResponse('plan_required: needs the API plan');
  if (hasPath) responses['404'] = errorResponse('not_found: nothing by that identifier');
  const conflicts = Object.entries(op.answers?.conflicts ?? {});
  if (conflicts.length) responses['409'] = errorResponse(conflicts.map(([code, when]) => `${code}: ${when}`).join('; '));
  if (body.length) responses['413'] = errorResponse('body_too_large: the body is over 2 MB');
  if (!op.noAuth)
    responses['429'] = {
      ...errorResponse('rate_limited; wait Retry-After seconds'),
      headers: { 'Retry-After': { schema: { type: 'integer' } } },
    };
  return {
    operationId: operationId(op),
    summary: op.action,
    description: op.description,
    tags: [groups[op.group].label],
    parameters,
    ...(body.length
      ? {
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  // The server refuses a field the operation does not have (a typo is an error, not ignored).
                  additionalProperties: false,
                  properties: Object.fromEntries(
                    body.map(([n, p]) => [n, { ...jsonSchema(p.schema, 'input'), description: p.description }]),
                  ),
                  required: body.filter(([, p]) => !isOptional(p.schema)).map(([n]) => n),
                },
              },
            },
          },
        }
      : {}),
    responses,
    ...(op.noAuth ? { security: [] } : {}),
    ...(op.billing ? { 'x-billing': op.billing } : {}),
    ...(op.plan ? { 'x-plan': op.plan } : {}),
  };
}

let cached: Record<string, unknown> | undefined;

export function openApiDocument(): Record<string, unknown> {
  if (cached) return cached;
  const paths: Record<string, Record<string, unknown>> = {};
  // Asset sections are read through the profile's include: each method and path is documented once, by the first operation.
  const documented = operations.filter((op, i) => operations.findIndex((o) => o.method === op.method && o.path === op.path) === i);
  for (const op of documented) (paths[op.path] ??= {})[op.method.toLowerCase()] = operationObject(op, documented);
  cached = {
    openapi: '3.1.0',
    info: {
      title: 'Company Data API',
      version: '1.0',
      description:
        'Estonian company data: registry profiles, people and ownership, financials, risk, assets, monitoring and saved searches. Billing: the bulk lookup is billed per query; monitored companies are billed per month.',
    },
    servers: [{ url: '/' }],
    security: [{ apiKey: [] }, { bearer: [] }],
    tags: Object.values(groups).map((g) => ({ name: g.label, description: g.description })),
    paths,
    components: {
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        bearer: { type: 'http', scheme: 'bearer' },
      },
      schemas: { Error: jsonSchema(errorBodySchema, 'output') },
    },
  };
  return cached;
}
