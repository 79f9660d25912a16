/**
 * Typed errors of the client. Every error carries a machine code, the HTTP status when there was an
 * answer, the request id when the service gave one, and a hint: what the user can do, in plain words.
 * No message, property or toJSON output ever contains the API key: texts that come from the service
 * are scrubbed of it (a server may echo the header back).
 */

export interface CompanyDataErrorInit {
  status?: number;
  code: string;
  requestId?: string;
  hint: string;
  cause?: unknown;
}

export class CompanyDataError extends Error {
  readonly status?: number;
  readonly code: string;
  readonly requestId?: string;
  readonly hint: string;

  constructor(message: string, init: CompanyDataErrorInit) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId;
    this.hint = init.hint;
  }

  toJSON(): Record<string, unknown> {
    const out: Record<string, unknown> = { name: this.name, message: this.message, code: this.code, hint: this.hint };
    if (this.status !== undefined) out.status = this.status;
    if (this.requestId !== undefined) out.requestId = this.requestId;
    for (const [k, v] of Object.entries(this)) if (!(k in out) && v !== undefined) out[k] = v;
    return out;
  }
}

/** The init an error class hands on: the caller's code and hint when given, else the class's own. */
function withDefaults<T extends Partial<CompanyDataErrorInit>>(init: T, code: string, hint: string): T & CompanyDataErrorInit {
  return { ...init, code: init.code ?? code, hint: init.hint ?? hint };
}

export interface ValidationErrorInit extends Partial<CompanyDataErrorInit> {
  field: string;
  rule: string;
  /** Every problem found, when there was more than one. */
  issues?: ReadonlyArray<{ field: string; rule: string }>;
}

/** A parameter breaks a rule: found by the client before sending, or answered with HTTP 400. */
export class ValidationError extends CompanyDataError {
  readonly field: string;
  readonly rule: string;
  readonly issues: ReadonlyArray<{ field: string; rule: string }>;
  constructor(init: ValidationErrorInit) {
    const message = init.field ? `${init.field} ${init.rule}` : init.rule;
    const { status, code, requestId, hint } = init;
    const ownHint = init.field ? `Correct the value of ${init.field} and try again.` : 'Correct the request and try again.';
    super(message, withDefaults({ status, code, requestId, hint }, 'invalid_parameter', ownHint));
    this.field = init.field;
    this.rule = init.rule;
    this.issues = init.issues ?? [{ field: init.field, rule: init.rule }];
  }
}

/** A request given up before it was sent (its caller stopped while it waited for the rate limit): nothing reached the service. */
export class NotSentError extends CompanyDataError {
  constructor() {
    super('The request was not sent: the run was stopped', { code: 'not_sent', hint: 'Run again to send it.' });
  }
}

/** 401: no key sent (api_key_required) or key unknown or revoked (invalid_api_key). */
export class AuthenticationError extends CompanyDataError {
  constructor(message: string, init: Partial<CompanyDataErrorInit> = {}) {
    const hint =
      init.code === 'api_key_required'
        ? 'Add your API key to the credentials. Keys are issued by the operator on request.'
        : 'Check the API key in the credentials. A revoked or lost key must be replaced by the operator.';
    super(message, withDefaults(init, 'invalid_api_key', hint));
  }
}

/** 403 plan_required: monitoring, saved searches and the webhook need the API plan. */
export class PlanRequiredError extends CompanyDataError {
  constructor(message: string, init: Partial<CompanyDataErrorInit> = {}) {
    const hint = 'This needs the API plan. Ask the operator to upgrade the account, or use a key of an account with the API plan.';
    super(message, withDefaults(init, 'plan_required', hint));
  }
}

export class NotFoundError extends CompanyDataError {
  constructor(message: string, init: Partial<CompanyDataErrorInit> = {}) {
    super(message, withDefaults(init, 'not_found', 'Check the code, id or number you gave: the service has no such record.'));
  }
}

export class RateLimitError extends CompanyDataError {
  /** How long the service asked to wait, in milliseconds (Retry-After), when it said. */
  readonly retryAfterMs?: number;
  constructor(message: string, init: Partial<CompanyDataErrorInit> & { retryAfterMs?: number } = {}) {
    const hint = 'Too many requests per second for this key. Wait a moment, or lower the request rate.';
    super(message, withDefaults(init, 'rate_limited', hint));
    this.retryAfterMs = init.retryAfterMs;
  }
}

export class ServerError extends CompanyDataError {
  constructor(message: string, init: Partial<CompanyDataErrorInit> = {}) {
    const hint = 'The service had a problem. Try again later; if it persists, report the request id to the operator.';
    super(message, withDefaults(init, 'server_error', hint));
  }
}

/** No answer: the connection was refused, reset, or the host name did not resolve. */
export class ConnectionError extends CompanyDataError {
  /** refused | reset | dns | other (see TransportError). */
  readonly kind: string;
  constructor(message: string, init: Partial<CompanyDataErrorInit> & { kind: string }) {
    const hint = 'Could not reach the service. Check the base URL and the network, then try again.';
    super(message, withDefaults(init, `connection_${init.kind}`, hint));
    this.kind = init.kind;
  }
}

export class TimeoutError extends CompanyDataError {
  constructor(message: string, init: Partial<CompanyDataErrorInit> = {}) {
    super(message, withDefaults(init, 'timeout', 'The service did not answer in time. Try again, or raise the timeout.'));
  }
}

/** A 2xx answer that is not JSON at all (a proxy page, a truncated body). */
export class SchemaError extends CompanyDataError {
  constructor(message: string, init: Partial<CompanyDataErrorInit> = {}) {
    const hint = 'The answer was not the JSON the service sends. Check the base URL (a proxy or a wrong address answers like this).';
    super(message, withDefaults(init, 'invalid_response', hint));
  }
}

/* ---- Secret scrubbing ---- */

/** Replaces every occurrence of each secret (4+ characters) with "[redacted]". */
export function redact(text: string, secrets: ReadonlyArray<string | undefined>): string {
  let out = text;
  for (const s of secrets) if (s && s.length >= 4) out = out.split(s).join('[redacted]');
  return out;
}

/* ---- Retry-After ---- */

/**
 * Retry-After as milliseconds: delta-seconds ("3", also "1.5" from lenient servers) or an HTTP date
 * (relative to `nowMs`). Undefined when absent or unreadable; never negative.
 */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (v === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  // An HTTP date names the weekday and month; this keeps "-5" from parsing as a year.
  const at = /[a-z]{3}/i.test(v) ? Date.parse(v) : NaN;
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}

/* ---- Mapping an HTTP error answer ---- */

interface ParsedErrorBody {
  code?: string;
  message?: string;
  param?: string;
  requestId?: string;
  retryAfterSeconds?: number;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/**
 * Reads any error body we may meet: ours ({success:false,error:{code,message,param},meta:{request_id}}),
 * flat {code,message}, {error:"text"}, {message}, or a non-JSON text.
 */
export function parseErrorBody(bodyText: string): ParsedErrorBody {
  let json: unknown;
  try {
    json = JSON.parse(bodyText);
  } catch {
    const text = bodyText.trim();
    // An HTML error page says nothing useful to a user.
    return text && !/^</.test(text) ? { message: text.slice(0, 300) } : {};
  }
  if (!json || typeof json !== 'object' || Array.isArray(json)) return {};
  const o = json as Record<string, unknown>;
  const meta = (o.meta && typeof o.meta === 'object' ? o.meta : {}) as Record<string, unknown>;
  const out: ParsedErrorBody = { requestId: str(meta.request_id) ?? str(o.request_id) };
  if (o.error && typeof o.error === 'object') {
    const e = o.error as Record<string, unknown>;
    out.code = str(e.code);
    out.message = str(e.message);
    out.param = str(e.param) ?? str(e.field);
    if (typeof e.retry_after === 'number') out.retryAfterSeconds = e.retry_after;
  } else {
    out.code = str(o.code) ?? (typeof o.error === 'string' && /^[a-z_]+$/.test(o.error) ? o.error : undefined);
    out.message = str(o.message) ?? str(o.error) ?? str(o.detail);
    out.param = str(o.param) ?? str(o.field);
    if (typeof o.retry_after === 'number') out.retryAfterSeconds = o.retry_after;
  }
  return out;
}

export interface ErrorFromResponseOptions {
  /** Values to scrub from any text taken from the answer (the API key). */
  secrets?: ReadonlyArray<string | undefined>;
  /** Current time in ms, for Retry-After given as an HTTP date. */
  nowMs?: number;
}

/** Maps a non-2xx answer to a typed error. Headers are expected with lower-case names. */
export function errorFromResponse(
  status: number,
  headers: Record<string, string | undefined>,
  bodyText: string,
  opts: ErrorFromResponseOptions = {},
): CompanyDataError {
  const secrets = opts.secrets ?? [];
  const body = parseErrorBody(bodyText);
  const scrub = (s: string | undefined) => (s === undefined ? undefined : redact(s, secrets));
  const code = scrub(body.code);
  const serviceMessage = scrub(body.message);
  const requestId = scrub(body.requestId ?? headers['x-request-id']);
  const base = { status, requestId };
  const say = (fallback: string) => serviceMessage ?? fallback;

  if (status === 400 || status === 422) {
    const param = scrub(body.param);
    return new ValidationError({
      ...base,
      code: code ?? 'invalid_parameter',
      field: param ?? '',
      rule: serviceMessage ?? 'The service rejected a parameter',
    });
  }
  if (status === 401) {
    const c = code === 'api_key_required' ? 'api_key_required' : 'invalid_api_key';
    return new AuthenticationError(say(c === 'api_key_required' ? 'No API key was sent' : 'The API key is unknown or revoked'), {
      ...base,
      code: c,
    });
  }
  // docs/decisions/service-interface.md, "Envelope, errors and validation": the plan is the only permission the spec names, so any 403 is read as it.
  if (status === 403) return new PlanRequiredError(say('This needs the API plan'), { ...base, code: code ?? 'plan_required' });
  if (status === 404) return new NotFoundError(say('Not found'), { ...base, code: code ?? 'not_found' });
  if (status === 429) {
    const fromHeader = parseRetryAfter(headers['retry-after'], opts.nowMs ?? Date.now());
    const retryAfterMs = fromHeader ?? (body.retryAfterSeconds !== undefined ? Math.round(body.retryAfterSeconds * 1000) : undefined);
    return new RateLimitError(say('Too many requests'), { ...base, code: code ?? 'rate_limited', retryAfterMs });
  }
  if (status >= 500) return new ServerError(say(`The service answered HTTP ${status}`), { ...base, code: code ?? 'server_error' });
  return new CompanyDataError(say(`The service answered HTTP ${status}`), {
    ...base,
    code: code ?? `http_${status}`,
    hint: 'The request was not accepted. Check the parameters; if it persists, report the request id to the operator.',
  });
}
