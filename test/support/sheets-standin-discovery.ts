/**
 * Checks each request to the Sheets stand-in against Google's discovery document for Sheets v4
 * (test/support/google/sheets-v4.discovery.json, revision 20260527, vendored as Google publishes it):
 * the method for the HTTP verb and path, the query parameters (known, enum values, booleans and
 * integers well formed, only repeated ones repeated, required ones present), and the JSON body against
 * the method's request schema, translated to JSON Schema with no unknown fields (Google answers a
 * misspelt field 400 "Unknown name"). Answers are checked against the response schema the same way:
 * a problem there is the stand-in's own.
 */
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import sheetsV4 from './google/sheets-v4.discovery.json';

interface DiscoveryParam {
  type: string;
  location: 'path' | 'query';
  format?: string;
  required?: boolean;
  repeated?: boolean;
  enum?: string[];
}

interface DiscoveryMethod {
  id: string;
  path: string;
  httpMethod: string;
  parameters?: Record<string, DiscoveryParam>;
  request?: { $ref: string };
  response?: { $ref: string };
}

interface DiscoverySchema {
  type?: string;
  $ref?: string;
  format?: string;
  enum?: string[];
  properties?: Record<string, DiscoverySchema>;
  items?: DiscoverySchema;
  additionalProperties?: DiscoverySchema;
}

interface DiscoveryResource {
  methods?: Record<string, DiscoveryMethod>;
  resources?: Record<string, DiscoveryResource>;
}

interface Discovery extends DiscoveryResource {
  parameters: Record<string, DiscoveryParam>;
  schemas: Record<string, DiscoverySchema>;
}

/** A request as the stand-in received it; path without the leading slash and percent-decoded. */
export interface RequestToCheck {
  verb: string;
  path: string;
  query: URLSearchParams;
  contentType?: string;
  /** The parsed JSON body, undefined when there was none. */
  body: unknown;
}

export interface RequestCheck {
  /** The discovery id of the method (sheets.spreadsheets.values.get), when verb and path name one. */
  method?: string;
  /** 404 when no method has this verb and path, else 400 INVALID_ARGUMENT. */
  status?: 400 | 404;
  problems: string[];
}

const INT32 = { minimum: -2_147_483_648, maximum: 2_147_483_647 };
const UINT32 = { minimum: 0, maximum: 4_294_967_295 };

/** One discovery schema as JSON Schema: objects closed unless the document gives additionalProperties. */
function toJsonSchema(s: DiscoverySchema): Record<string, unknown> {
  if (s.$ref) return { $ref: `#/definitions/${s.$ref}` };
  switch (s.type) {
    case 'object': {
      const properties: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(s.properties ?? {})) properties[k] = toJsonSchema(v);
      return {
        type: 'object',
        properties,
        additionalProperties: s.additionalProperties ? toJsonSchema(s.additionalProperties) : false,
      };
    }
    case 'array':
      return { type: 'array', items: s.items ? toJsonSchema(s.items) : {} };
    case 'string':
      // int64 and uint64 travel as strings of digits in Google's JSON.
      if (s.format === 'int64' || s.format === 'uint64') return { type: 'string', pattern: '^-?\\d+$' };
      return s.enum ? { type: 'string', enum: s.enum } : { type: 'string' };
    case 'integer':
      return { type: 'integer', ...(s.format === 'uint32' ? UINT32 : INT32) };
    case 'number':
      return { type: 'number' };
    case 'boolean':
      return { type: 'boolean' };
    case 'any':
    case undefined:
      return {};
    default:
      throw new Error(`discovery: type ${s.type} not translated`);
  }
}

interface CompiledMethod {
  method: DiscoveryMethod;
  pattern: RegExp;
  pathParams: string[];
}

/** A path template as a pattern: a range may hold any character, ids no slash. */
function pathPattern(template: string): { pattern: RegExp; pathParams: string[] } {
  const pathParams: string[] = [];
  const source = template
    .split(/(\{\+?\w+\})/)
    .map((piece) => {
      const m = /^\{\+?(\w+)\}$/.exec(piece);
      if (!m) return piece.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      pathParams.push(m[1]!);
      return m[1] === 'range' ? '(.+)' : '([^/]+)';
    })
    .join('');
  return { pattern: new RegExp(`^${source}$`), pathParams };
}

function methodsOf(r: DiscoveryResource, out: DiscoveryMethod[] = []): DiscoveryMethod[] {
  for (const m of Object.values(r.methods ?? {})) out.push(m);
  for (const sub of Object.values(r.resources ?? {})) methodsOf(sub, out);
  return out;
}

/** Google's way of naming a place in the body: data[0].values. */
function where(instancePath: string): string {
  return instancePath
    .split('/')
    .filter(Boolean)
    .map((p, i) => (/^\d+$/.test(p) ? `[${p}]` : `${i ? '.' : ''}${p}`))
    .join('');
}

function describe(e: ErrorObject): string {
  const at = where(e.instancePath);
  if (e.keyword === 'additionalProperties') {
    const name = (e.params as { additionalProperty: string }).additionalProperty;
    return `Invalid JSON payload received. Unknown name "${name}"${at ? ` at '${at}'` : ''}: Cannot find field.`;
  }
  if (e.keyword === 'enum')
    return `Invalid value at '${at}': must be one of ${(e.params as { allowedValues: string[] }).allowedValues.join(', ')}`;
  return `Invalid value at '${at || '(body)'}': ${e.message ?? e.keyword}`;
}

export class DiscoveryValidator {
  private readonly methods: CompiledMethod[];
  private readonly globals: Record<string, DiscoveryParam>;
  private readonly ajv: Ajv;
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(doc: Discovery) {
    this.globals = doc.parameters;
    this.methods = methodsOf(doc).map((method) => ({ method, ...pathPattern(method.path) }));
    const definitions: Record<string, unknown> = {};
    for (const [name, s] of Object.entries(doc.schemas)) definitions[name] = toJsonSchema(s);
    this.ajv = new Ajv({ allErrors: true, strict: false });
    this.ajv.addSchema({ $id: 'sheets', definitions });
  }

  private schema(name: string): ValidateFunction {
    let v = this.compiled.get(name);
    if (!v) this.compiled.set(name, (v = this.ajv.getSchema(`sheets#/definitions/${name}`)!));
    return v;
  }

  /** Problems with a body against a named schema, Google's way (at most 20: a wrong shape repeats). */
  bodyProblems(schema: string, body: unknown): string[] {
    const validate = this.schema(schema);
    if (validate(body)) return [];
    return (validate.errors ?? []).slice(0, 20).map(describe);
  }

  check(req: RequestToCheck): RequestCheck {
    const path = req.path.replace(/^\//, '');
    const sameVerb = this.methods.filter((m) => m.method.httpMethod === req.verb);
    const found = sameVerb.find((m) => m.pattern.test(path));
    if (!found) {
      const other = this.methods.find((m) => m.pattern.test(path));
      return {
        status: 404,
        problems: [
          other ? `${req.verb} is not a method of ${other.method.path} (${other.method.httpMethod})` : `no method has the path ${path}`,
        ],
      };
    }
    const { method } = found;
    const params = method.parameters ?? {};
    const problems: string[] = [];
    const seen = new Map<string, number>();
    for (const [name, value] of req.query) {
      seen.set(name, (seen.get(name) ?? 0) + 1);
      const p = params[name] ?? this.globals[name];
      if (!p || p.location !== 'query') {
        problems.push(
          `Invalid JSON payload received. Unknown name "${name}": Cannot bind query parameter. Field '${name}' could not be found in request message.`,
        );
        continue;
      }
      if (p.enum && !p.enum.includes(value)) problems.push(`Invalid value at '${name}' ("${value}"): must be one of ${p.enum.join(', ')}`);
      if (p.type === 'boolean' && value !== 'true' && value !== 'false')
        problems.push(`Invalid value at '${name}' (TYPE_BOOL), "${value}"`);
      if (p.type === 'integer' && !/^-?\d+$/.test(value)) problems.push(`Invalid value at '${name}' (TYPE_INT32), "${value}"`);
    }
    for (const [name, n] of seen) {
      const p = params[name] ?? this.globals[name];
      if (p && n > 1 && !p.repeated) problems.push(`Invalid value at '${name}': given ${n} times, but it is not a repeated parameter`);
    }
    for (const [name, p] of Object.entries(params))
      if (p.required && p.location === 'query' && !seen.has(name)) problems.push(`Required parameter ${name} is missing`);
    if (method.request) {
      if (req.body !== undefined && !/^application\/json\b/i.test(req.contentType ?? ''))
        problems.push(
          `Invalid JSON payload received: the body must be sent as application/json (was ${req.contentType ?? 'no Content-Type'})`,
        );
      for (const p of this.bodyProblems(method.request.$ref, req.body ?? {})) problems.push(p);
    }
    return { method: method.id, ...(problems.length ? { status: 400 as const } : {}), problems };
  }

  /** Problems with an answer to a method, against its response schema: the stand-in's own mistakes. */
  responseProblems(methodId: string, body: unknown): string[] {
    const m = this.methods.find((x) => x.method.id === methodId)?.method;
    return m?.response ? this.bodyProblems(m.response.$ref, body) : [];
  }
}

let shared: DiscoveryValidator | undefined;

/** The validator for Sheets v4, built once per process (ajv compiles the document's 262 schemas lazily). */
export function sheetsDiscovery(): DiscoveryValidator {
  shared ??= new DiscoveryValidator(sheetsV4 as unknown as Discovery);
  return shared;
}
