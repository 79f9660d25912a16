import type { z } from 'zod/v4';
import type { ParamSpec } from './params';
import type { AnyOperation, OperationData, OperationInput, OperationSpec } from './operation';
import { inputSchema, operationId } from './operation';
import { operationGroups, type OperationGroups } from './operations';
import type { Lang, Meta } from './schemas/common';
import {
  AuthenticationError,
  CompanyDataError,
  ConnectionError,
  SchemaError,
  TimeoutError,
  ValidationError,
  errorFromResponse,
  parseRetryAfter,
  redact,
  NotSentError,
  RateLimitError,
} from './errors';
import { RateLimiter, type RateLimiterOptions } from './limiter';
import { defaultRetryOptions, withRetries, type Failure, type RetryOptions } from './retry';
import { TransportError, type Clock, type Transport, type TransportResponse } from './transport';
import { queryString, setQuery } from './web-free';
import { parseJson, isJsonObject } from './json';
import {
  collectAll,
  cursorPages,
  iterateItems,
  pages,
  ITERATION_PAGE_SIZE,
  type CollectAllOptions,
  type CollectAllResult,
  type CursorPage,
  type CursorOperation,
  type ItemOf,
  type Page,
} from './pagination';
import { bulkLookup, type BulkLookupOptions, type BulkLookupResult, type LookupSender } from './bulk-lookup';

/* ---- Result and option types ---- */

export type OperationMeta<O> = O extends OperationSpec<Record<string, ParamSpec>, z.ZodType, infer M> ? z.output<M> : never;

export interface ApiResult<T, M = unknown> {
  data: T;
  meta: Meta & M;
  /** meta.request_id, or the X-Request-Id header; '' when the service gave none. */
  requestId: string;
}

export type OperationResult<O> = ApiResult<OperationData<O>, OperationMeta<O>>;

export interface SchemaMismatch {
  /** e.g. "companies.get" */
  operation: string;
  requestId: string;
  issues: ReadonlyArray<{ path: string; message: string }>;
}

export interface RequestInfo {
  operation: string;
  method: string;
  /** URL without the API key (the key never goes into URLs). */
  url: string;
  attempt: number;
}

export interface RetryInfo extends RequestInfo {
  reason: string;
  delayMs: number;
}

export interface CoreClientOptions {
  /** Needed by every operation except reference.openapi. */
  apiKey?: string;
  /** Base address of the service, e.g. https://api.example.ee (a path prefix is kept). */
  baseUrl: string;
  /** Default lang for operations that take one, when a call does not set it. */
  lang?: Lang;
  /** How the key is sent: X-API-Key header (default) or Authorization: Bearer. */
  auth?: 'x-api-key' | 'bearer';
  transport: Transport;
  clock: Clock;
  /** Proactive limit, default 10 requests per second; false turns it off; or a limiter shared by clients of the same key. */
  rateLimit?: RateLimiterOptions | RateLimiter | false;
  retry?: Partial<RetryOptions>;
  /** Overall deadline per attempt, ms. Default 30 000. */
  timeoutMs?: number;
  userAgent?: string;
  /** Called when an answer does not match the response schema; the raw data is returned anyway. */
  onSchemaMismatch?: (m: SchemaMismatch) => void;
  onRequest?: (info: RequestInfo) => void;
  onRetry?: (info: RetryInfo) => void;
}

export interface CallOptions {
  timeoutMs?: number;
  /**
   * Asked again when the rate limiter lets the request go: false gives up without sending (a
   * NotSentError), e.g. because the run was stopped while the request waited for its turn.
   */
  shouldStart?: () => boolean;
  /** Ends the retrying: once it aborts, no further attempt is sent and a back-off under way ends; the call rejects with its reason. */
  signal?: AbortSignal;
}

/* ---- Typed namespaces derived from the operation table ---- */

/** True when an empty input object is valid for O (every parameter optional), so the input may be left out. */
type InputOptional<O> = Record<string, never> extends OperationInput<O> ? true : false;

type OperationMethod<O> =
  InputOptional<O> extends true
    ? (input?: OperationInput<O>, opts?: CallOptions) => Promise<OperationResult<O>>
    : (input: OperationInput<O>, opts?: CallOptions) => Promise<OperationResult<O>>;

export type ClientNamespaces = {
  readonly [G in keyof OperationGroups]: { readonly [K in keyof OperationGroups[G]]: OperationMethod<OperationGroups[G][K]> };
};

/** Input of `call`: optional when every parameter of the operation is optional. */
type InputArg<O> =
  InputOptional<O> extends true ? [input?: OperationInput<O>, opts?: CallOptions] : [input: OperationInput<O>, opts?: CallOptions];

const DEFAULT_USER_AGENT = 'n8n-nodes-company-data';

/* ---- Input validation ---- */

function valueAt(root: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let v: unknown = root;
  for (const k of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[k];
  }
  return v;
}

const TYPE_WORDS: Record<string, string> = {
  number: 'a number',
  int: 'a whole number',
  string: 'text',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object',
};

/**
 * A wrong type keeps the schema's own message ("each query must be text"); zod's default one
 * ("Invalid input: expected number, received string") is put in plain words.
 */
function typeRule(i: z.core.$ZodIssue): string {
  if (!i.message.startsWith('Invalid input')) return i.message;
  const expected = (i as { expected?: string }).expected;
  return `must be ${(expected && TYPE_WORDS[expected]) ?? `of type ${expected ?? 'the documented one'}`}`;
}

/** Zod issues → one ValidationError naming the field (dotted path) and the rule (also the sandbox's 400 answers). */
export function validationErrorFromIssues(issues: ReadonlyArray<z.core.$ZodIssue>, input: unknown): ValidationError {
  const list = issues.flatMap((i) => {
    if (i.code === 'unrecognized_keys')
      return i.keys.map((k) => ({ field: [...i.path, k].join('.'), rule: 'is not a parameter of this operation' }));
    const field = i.path.map(String).join('.');
    if (i.code !== 'invalid_type') return [{ field, rule: i.message }];
    // zod v4 issues do not carry the input, so "missing" is read from the input itself.
    return [{ field, rule: valueAt(input, i.path) === undefined ? 'is required' : typeRule(i) }];
  });
  const first = list[0] ?? { field: '', rule: 'is not valid' };
  return new ValidationError({ field: first.field, rule: first.rule, issues: list });
}

/* ---- Request building ---- */

function queryValue(v: unknown): string {
  if (Array.isArray(v)) return v.map(queryValue).join(',');
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  return String(v);
}

export interface BuiltRequest {
  method: AnyOperation['method'];
  /** Path and query, to append to the base URL. */
  pathAndQuery: string;
  body?: string;
}

/** Turns validated parameters into path, query string and JSON body. */
export function buildRequest(op: AnyOperation, params: Record<string, unknown>): BuiltRequest {
  const query: [string, string][] = [];
  const body: Record<string, unknown> = {};
  let hasBodyParams = false;
  let path = op.path;
  for (const [name, spec] of Object.entries(op.params)) {
    const v = params[name];
    if (spec.in === 'body') hasBodyParams = true;
    if (v === undefined) continue;
    if (spec.in === 'path') path = path.replace(`{${name}}`, encodeURIComponent(String(v)));
    else if (spec.in === 'query') query.push([name, queryValue(v)]);
    else body[name] = v;
  }
  for (const [k, v] of Object.entries(op.fixedQuery ?? {})) setQuery(query, k, v);
  const qs = queryString(query);
  return { method: op.method, pathAndQuery: qs ? `${path}?${qs}` : path, body: hasBodyParams ? JSON.stringify(body) : undefined };
}

/* ---- Envelope ---- */

/**
 * The service's envelope is {success, data, meta}; a bare JSON document (no data key) is accepted as
 * the data itself so a service variant without envelope still works.
 */
function unwrap(op: AnyOperation, json: unknown): { data: unknown; meta: Record<string, unknown>; selectMissing: boolean } {
  if (op.rawResponse) return { data: json, meta: {}, selectMissing: false };
  let data: unknown = json;
  let meta: Record<string, unknown> = {};
  if (isJsonObject(json) && 'data' in json) {
    data = json.data;
    if (isJsonObject(json.meta)) meta = json.meta;
  }
  let selectMissing = false;
  if (op.select) {
    const section = isJsonObject(data) ? data[op.select] : undefined;
    selectMissing = section === undefined;
    data = section ?? { items: [], total: 0 };
    // Embedded sections are {items,total} by our decision; a bare array is normalised to that.
    if (Array.isArray(data)) data = { items: data, total: data.length };
  }
  return { data, meta, selectMissing };
}

/* ---- The client ---- */

/**
 * Gives CoreClient the types of its per-group namespaces, which its constructor defines at run time from
 * the operation table (a class cannot declare mapped members itself).
 */
const WithNamespaces = class {} as new () => ClientNamespaces;

/**
 * The typed client every product shares. It takes a Transport and a Clock explicitly and touches no
 * timer globals, so n8n nodes can bundle it. Use CompanyDataClient (packages/company-data/src/index.ts) for the defaults.
 */
export class CoreClient extends WithNamespaces {
  /** The operation table, for generic calls: client.call(client.ops.companies.get, {...}). */
  readonly ops: OperationGroups = operationGroups;
  readonly lang?: Lang;
  private readonly apiKey?: string;
  private readonly baseUrl: string;
  private readonly auth: 'x-api-key' | 'bearer';
  private readonly transport: Transport;
  private readonly clock: Clock;
  private readonly limiter?: RateLimiter;
  private readonly retryOptions: RetryOptions;
  private readonly timeoutMs: number;
  private readonly userAgent: string;
  private readonly hooks: Pick<CoreClientOptions, 'onSchemaMismatch' | 'onRequest' | 'onRetry'>;

  constructor(opts: CoreClientOptions) {
    super();
    if (!opts.baseUrl || !/^https?:\/\//i.test(opts.baseUrl)) {
      throw new ValidationError({ field: 'baseUrl', rule: 'must be an http:// or https:// address' });
    }
    // Non-enumerable so that logging or serialising the client never shows the key.
    Object.defineProperty(this, 'apiKey', { value: opts.apiKey?.trim() || undefined, enumerable: false, writable: false });
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.lang = opts.lang;
    this.auth = opts.auth ?? 'x-api-key';
    this.transport = opts.transport;
    this.clock = opts.clock;
    if (opts.rateLimit instanceof RateLimiter) this.limiter = opts.rateLimit;
    else if (opts.rateLimit !== false) this.limiter = new RateLimiter(opts.clock, opts.rateLimit ?? {});
    this.retryOptions = { ...defaultRetryOptions, ...opts.retry };
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    this.userAgent = opts.userAgent ?? DEFAULT_USER_AGENT;
    this.hooks = { onSchemaMismatch: opts.onSchemaMismatch, onRequest: opts.onRequest, onRetry: opts.onRetry };

    for (const [group, ops] of Object.entries(operationGroups)) {
      const ns: Record<string, (input?: unknown, o?: CallOptions) => Promise<unknown>> = {};
      for (const [name, op] of Object.entries(ops)) ns[name] = (input, o) => this.call(op as AnyOperation, input as never, o);
      Object.defineProperty(this, group, { value: Object.freeze(ns), enumerable: true });
    }
  }

  /** The service's base address (never holds the key). */
  get serviceUrl(): string {
    return this.baseUrl;
  }

  /** Calls any operation of the table: checks the input, sends the request (limiter, retries), checks the answer. */
  call<O extends AnyOperation>(op: O, ...args: InputArg<O>): Promise<OperationResult<O>>;
  async call(op: AnyOperation, input?: unknown, opts: CallOptions = {}): Promise<ApiResult<unknown>> {
    const raw = input ?? {};
    const parsed = inputSchema(op).safeParse(raw);
    if (!parsed.success) throw validationErrorFromIssues(parsed.error.issues, raw);
    const params = { ...(parsed.data as Record<string, unknown>) };
    if ('lang' in op.params && params.lang === undefined && this.lang) params.lang = this.lang;
    if (!op.noAuth && !this.apiKey) {
      throw new AuthenticationError('No API key is set', {
        code: 'api_key_required',
        hint: 'Set your API key: in n8n in the Company Data API credential, on the command line in COMPANY_DATA_API_KEY, in code with the apiKey option.',
      });
    }

    const built = buildRequest(op, params);
    const url = this.baseUrl + built.pathAndQuery;
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': this.userAgent };
    if (built.body !== undefined) headers['content-type'] = 'application/json';
    if (!op.noAuth && this.apiKey) {
      if (this.auth === 'bearer') headers.authorization = `Bearer ${this.apiKey}`;
      else headers['x-api-key'] = this.apiKey;
    }
    const response = await this.send(
      op,
      { method: built.method, url, headers, body: built.body, timeoutMs: opts.timeoutMs ?? this.timeoutMs },
      opts,
    );
    return this.parse(op, response);
  }

  /** Async iterator over the pages of a paged list (page size 100 unless input.limit is set). */
  pages<O extends AnyOperation>(op: O, input?: OperationInput<O>): AsyncGenerator<Page<ItemOf<O>>> {
    return this.pagesWithDefault(op, input, ITERATION_PAGE_SIZE);
  }

  private pagesWithDefault<O extends AnyOperation>(
    op: O,
    input: OperationInput<O> | undefined,
    defaultLimit: number,
  ): AsyncGenerator<Page<ItemOf<O>>> {
    const call = (i: Record<string, unknown>) => this.call(op as AnyOperation, i as never) as Promise<ApiResult<unknown>>;
    return pages(call, op, (input ?? {}) as Record<string, unknown>, defaultLimit) as AsyncGenerator<Page<ItemOf<O>>>;
  }

  /** Async iterator over the rows of a paged list, across pages. */
  iterate<O extends AnyOperation>(op: O, input?: OperationInput<O>, opts: { maxItems?: number } = {}): AsyncGenerator<ItemOf<O>> {
    const max = opts.maxItems ?? Infinity;
    return iterateItems(this.pagesWithDefault(op, input, Math.max(1, Math.min(ITERATION_PAGE_SIZE, max))), opts);
  }

  /** Reads at most `max` rows; `truncated` says whether more rows exist. */
  collectAll<O extends AnyOperation>(
    op: O,
    input: OperationInput<O> | undefined,
    opts: CollectAllOptions,
  ): Promise<CollectAllResult<ItemOf<O>>> {
    const max = Number.isInteger(opts?.max) && opts.max > 0 ? opts.max : ITERATION_PAGE_SIZE;
    return collectAll(this.pagesWithDefault(op, input, Math.min(ITERATION_PAGE_SIZE, max)), opts);
  }

  /** Pages of a cursor-read operation (monitoring.events, searches.matches), following next_cursor. */
  cursorPages<O extends CursorOperation>(
    op: O,
    input: OperationInput<O>,
    opts: { maxPages?: number } = {},
  ): AsyncGenerator<CursorPage<ItemOf<O>>> {
    return cursorPages(
      (i) => this.call(op as AnyOperation, i as never) as Promise<ApiResult<unknown>>,
      (input ?? {}) as Record<string, unknown>,
      opts,
    ) as AsyncGenerator<CursorPage<ItemOf<O>>>;
  }

  /** Change events after a cursor, oldest first, until the service has no more. */
  iterateEvents(input: OperationInput<OperationGroups['monitoring']['events']> = {}, opts: { maxItems?: number } = {}) {
    return iterateItems(this.cursorPages(operationGroups.monitoring.events, input), opts);
  }

  /** Match events of a saved search after a cursor, oldest first. */
  iterateMatches(input: OperationInput<OperationGroups['searches']['matches']>, opts: { maxItems?: number } = {}) {
    return iterateItems(this.cursorPages(operationGroups.searches.matches, input), opts);
  }

  /** Bulk lookup with dedupe, 100 per request, requests in flight up to the rate limit, answers mapped back to every input position. */
  bulkLookup(queries: readonly string[], opts: BulkLookupOptions = {}): Promise<BulkLookupResult> {
    return bulkLookup(this.lookupSender(), queries, opts);
  }

  /** One billed lookup request through this client (limiter, retries), for the lookup engine (packages/core/bulk-lookup.ts). */
  lookupSender(): LookupSender {
    return (input, opts) => this.call(this.ops.companies.lookup, input, opts);
  }

  /* ---- internals ---- */

  private async send(
    op: AnyOperation,
    req: Parameters<Transport['request']>[0],
    { shouldStart, signal }: CallOptions,
  ): Promise<TransportResponse> {
    const id = operationId(op);
    return withRetries<TransportResponse>(
      async (attempt) => {
        const release = this.limiter ? await this.limiter.acquire() : undefined;
        if (shouldStart && !shouldStart()) {
          release?.(false);
          throw new NotSentError();
        }
        this.hooks.onRequest?.({ operation: id, method: req.method, url: req.url, attempt });
        try {
          let res: TransportResponse;
          try {
            res = await this.transport.request(req);
          } finally {
            release?.();
          }
          if (res.status < 400) return { ok: true, value: res };
          const error = errorFromResponse(res.status, res.headers, res.body, { secrets: [this.apiKey], nowMs: this.clock.now() });
          const failure: Failure = {
            kind: 'http',
            status: res.status,
            retryAfterMs: error instanceof RateLimitError ? error.retryAfterMs : undefined,
          };
          if (res.status === 503) failure.retryAfterMs = parseRetryAfter(res.headers['retry-after'], this.clock.now());
          return { ok: false, failure, error };
        } catch (e) {
          // Shared with the company-data tool, so no n8n error types here: a transport that fails other than
          // with TransportError has a bug, which keeps its own type and stack. The n8n side converts every error
          // at its entry points (src/n8n/errors.ts toNodeError: this one becomes a NodeOperationError).
          // eslint-disable-next-line @n8n/community-nodes/require-node-api-error
          if (!(e instanceof TransportError)) throw e;
          return { ok: false, failure: { kind: 'transport', transportKind: e.kind }, error: this.connectionError(e) };
        }
      },
      {
        policy: op.retry,
        options: this.retryOptions,
        sleep: (ms) => this.clock.sleep(ms),
        ...(this.limiter ? { pause: (ms: number) => this.limiter!.pause(ms) } : {}),
        ...(signal ? { signal } : {}),
        onRetry: ({ attempt, error, delayMs }) =>
          this.hooks.onRetry?.({
            operation: id,
            method: req.method,
            url: req.url,
            attempt,
            reason: (error as CompanyDataError).code,
            delayMs,
          }),
      },
    );
  }

  private connectionError(e: TransportError): CompanyDataError {
    const message = redact(e.message, [this.apiKey]);
    if (e.kind === 'timeout') return new TimeoutError(`No answer in time: ${message}`, { code: 'timeout' });
    const what = {
      refused: 'The connection was refused',
      reset: 'The connection was broken',
      dns: 'The host name could not be resolved',
      other: 'The request failed',
    }[e.kind];
    return new ConnectionError(`${what}: ${message}`, { kind: e.kind });
  }

  private parse(op: AnyOperation, res: TransportResponse): ApiResult<unknown> {
    const headerRequestId = res.headers['x-request-id'];
    const parsed = parseJson(res.body);
    if (!parsed)
      throw new SchemaError(`The answer to ${operationId(op)} is not JSON (HTTP ${res.status})`, {
        status: res.status,
        requestId: headerRequestId,
      });
    const json = parsed.value;
    if (isJsonObject(json) && json.success === false) {
      throw errorFromResponse(res.status >= 400 ? res.status : 500, res.headers, res.body, {
        secrets: [this.apiKey],
        nowMs: this.clock.now(),
      });
    }
    const { data, meta, selectMissing } = unwrap(op, json);
    const requestId = (typeof meta.request_id === 'string' && meta.request_id) || headerRequestId || '';
    const checked = op.response.safeParse(data);
    const issues: { path: string; message: string }[] = [];
    if (selectMissing) issues.push({ path: op.select!, message: 'section missing from the answer' });
    if (!checked.success) issues.push(...checked.error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message })));
    if (issues.length) this.hooks.onSchemaMismatch?.({ operation: operationId(op), requestId, issues });
    return { data: checked.success ? checked.data : data, meta: { ...meta, request_id: requestId } as Meta, requestId };
  }
}
