import { z } from 'zod/v4';
import type { ParamSpec } from './params';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export const groups = {
  companies: { label: 'Companies', description: 'Search, bulk lookup by registry code, VAT number or name, registry profile' },
  people: {
    label: 'People & Ownership',
    description: 'Representatives, shareholders, beneficial owners, other parties, holdings, people search, roles of a person',
  },
  financials: { label: 'Financials', description: 'Annual report figures, ratios, statements, quarterly taxes and turnover' },
  risk: {
    label: 'Risk',
    description: 'Credit score, tax debt, tax declarations, court cases, payment orders, enforcements, registry rulings',
  },
  assets: {
    label: 'Assets & Activity',
    description: 'Real estate, domains, permits, payments from the state, official notices, consumer disputes',
  },
  monitoring: { label: 'Monitoring', description: 'Lists of companies to watch and their change events (API plan)' },
  searches: { label: 'Saved Searches', description: 'Stored company filters and their daily new matches (API plan)' },
  webhook: { label: 'Webhook', description: 'Where change events are sent, test events, delivery retries' },
  reference: { label: 'Reference', description: 'Classifier codes, EMTAK activity codes, usage, OpenAPI description' },
} as const;
export type GroupKey = keyof typeof groups;

/**
 * How a call may be retried after a failure.
 * - 'safe': reads and idempotent writes; 5xx, time-outs and connection errors are retried with backoff.
 * - 'unprocessed-only': billed or non-idempotent calls; retried only when the service cannot have
 *   processed the request (429 answered before work, connection refused before anything was sent).
 */
export type RetryPolicy = 'safe' | 'unprocessed-only';

export interface OperationSpec<
  P extends Record<string, ParamSpec> = Record<string, ParamSpec>,
  R extends z.ZodType = z.ZodType,
  M extends z.ZodType = z.ZodType,
> {
  group: GroupKey;
  /** Client method name inside the group namespace (client.companies.search). */
  name: string;
  /** Short operation name shown in the n8n operation list, e.g. "Search". */
  label: string;
  /** n8n action text, e.g. "Search companies". */
  action: string;
  /** One plain sentence for the n8n operation description and the OpenAPI summary. */
  description: string;
  method: HttpMethod;
  /** Path with {placeholders} named like the path parameters. */
  path: string;
  params: P;
  /** Schema of the envelope's data. */
  response: R;
  /** Schema of meta extras beyond request_id / pagination. */
  meta?: M;
  /** Paged list: meta.pagination present, page/limit accepted. */
  paged?: boolean;
  /** With q set, at most this many results exist in all (200 for company and people search). */
  qCap?: number;
  /** Fixed query values the operation always sends (assets read through profile include). */
  fixedQuery?: Record<string, string>;
  /** Key of data to return instead of the whole data object (assets sections). */
  select?: string;
  /** The answer is the document itself, not an envelope (GET /openapi.json). */
  rawResponse?: boolean;
  /** Needs no API key. */
  noAuth?: boolean;
  /** Needs the API plan (monitoring, saved searches, webhook). */
  plan?: 'api';
  billing?: string;
  /**
   * What the service answers besides "200" and the errors every operation shares (OpenAPI documents
   * each): success statuses with their meaning (default { 200: 'Success' }; 201 created, 202 accepted),
   * and the 409 conflicts by error code.
   */
  answers?: { success?: Partial<Record<200 | 201 | 202, string>>; conflicts?: Record<string, string> };
  /**
   * A bulk operation: the body parameter `param` takes up to `max` queries answered in one billed
   * request. The client's bulkLookup, the Sheets enrich and the n8n Lookup are built on it.
   */
  bulk?: { param: string; max: number };
  retry: RetryPolicy;
  /**
   * For an AI assistant choosing among tools: when to use this operation rather than a similar one.
   * The MCP tool's description adds it to the generated text (what it returns, paging, cost, plan).
   */
  hint?: string;
  /**
   * Why this operation is not offered to AI assistants as an MCP tool (every other one is, generated
   * from this table). Absent: it is a tool.
   */
  notATool?: string;
  /**
   * 'shown': method and path are in the spec. 'decided': the spec says "not shown" and the project
   * decided the path or shape (docs/decisions/service-interface.md, "Monitoring, saved searches, webhook: paths decided", names each).
   */
  source: 'shown' | 'decided';
}

export type AnyOperation = OperationSpec<Record<string, ParamSpec>, z.ZodType, z.ZodType>;

export function defineOperation<const P extends Record<string, ParamSpec>, R extends z.ZodType, M extends z.ZodType = z.ZodType>(
  spec: OperationSpec<P, R, M>,
): OperationSpec<P, R, M> {
  return spec;
}

export type ParamsShape<P extends Record<string, ParamSpec>> = { [K in keyof P]: P[K]['schema'] };
/** What a caller passes (before transforms such as VAT normalisation). */
export type OperationInput<O> = O extends OperationSpec<infer P, z.ZodType, z.ZodType> ? z.input<z.ZodObject<ParamsShape<P>>> : never;
/** The validated, normalised parameters. */
export type OperationParams<O> = O extends OperationSpec<infer P, z.ZodType, z.ZodType> ? z.output<z.ZodObject<ParamsShape<P>>> : never;
export type OperationData<O> = O extends OperationSpec<Record<string, ParamSpec>, infer R, z.ZodType> ? z.output<R> : never;

const inputSchemaCache = new WeakMap<AnyOperation, z.ZodObject>();

/** Strict object of the operation's parameters: unknown parameter names are rejected (typos). */
export function inputSchema(op: AnyOperation): z.ZodObject {
  let s = inputSchemaCache.get(op);
  if (!s) {
    const shape: Record<string, z.ZodType> = {};
    for (const [k, spec] of Object.entries(op.params)) shape[k] = spec.schema;
    s = z.strictObject(shape);
    inputSchemaCache.set(op, s);
  }
  return s;
}

export function operationId(op: Pick<AnyOperation, 'group' | 'name'>): string {
  return `${op.group}.${op.name}`;
}
