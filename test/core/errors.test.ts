import { describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  CompanyDataError,
  NotFoundError,
  PlanRequiredError,
  RateLimitError,
  ServerError,
  ValidationError,
  errorFromResponse,
  parseRetryAfter,
} from '@company-data/core/errors';

const KEY = 'sk_live_Zq8VbN3xTt1P0wLm';
const NOW = Date.UTC(2025, 2, 4, 12, 0, 0);
const ours = (code: string, message: string, param?: string) =>
  JSON.stringify({ success: false, error: { code, message, ...(param ? { param } : {}) }, meta: { request_id: 'req-1' } });

describe('errorFromResponse', () => {
  it('maps our error body for each status', () => {
    const v = errorFromResponse(400, {}, ours('invalid_parameter', 'must be exactly 8 digits', 'registry_code'));
    expect(v).toBeInstanceOf(ValidationError);
    expect(v).toMatchObject({
      status: 400,
      code: 'invalid_parameter',
      field: 'registry_code',
      rule: 'must be exactly 8 digits',
      requestId: 'req-1',
    });
    expect(v.message).toBe('registry_code must be exactly 8 digits');

    const a = errorFromResponse(401, {}, ours('api_key_required', 'No API key'));
    expect(a).toBeInstanceOf(AuthenticationError);
    expect(a.code).toBe('api_key_required');
    expect(errorFromResponse(401, {}, ours('invalid_api_key', 'Unknown key')).code).toBe('invalid_api_key');

    expect(errorFromResponse(403, {}, ours('plan_required', 'Needs the API plan'))).toBeInstanceOf(PlanRequiredError);
    // Any 403 is the plan error (docs/decisions/service-interface.md, "Envelope, errors and validation"); the service's code is kept verbatim.
    const other403 = errorFromResponse(403, {}, ours('forbidden', 'Not allowed'));
    expect(other403).toBeInstanceOf(PlanRequiredError);
    expect(other403.code).toBe('forbidden');
    expect(errorFromResponse(403, {}, '').code).toBe('plan_required');

    const nf = errorFromResponse(404, {}, ours('company_not_found', 'No company 12417834'));
    expect(nf).toBeInstanceOf(NotFoundError);
    expect(nf.code).toBe('company_not_found');

    const s = errorFromResponse(503, { 'x-request-id': 'hdr-9' }, '<html>Bad gateway</html>');
    expect(s).toBeInstanceOf(ServerError);
    expect(s).toMatchObject({ status: 503, code: 'server_error', requestId: 'hdr-9' });
    expect(s.message).toBe('The service answered HTTP 503');

    const g = errorFromResponse(409, {}, '');
    expect(g).toBeInstanceOf(CompanyDataError);
    expect(g.code).toBe('http_409');
  });

  it('reads other body shapes tolerantly', () => {
    expect(errorFromResponse(404, {}, JSON.stringify({ code: 'not_found', message: 'nope' }))).toMatchObject({
      code: 'not_found',
      message: 'nope',
    });
    expect(errorFromResponse(401, {}, JSON.stringify({ error: 'api_key_required' }))).toMatchObject({ code: 'api_key_required' });
    expect(errorFromResponse(404, {}, JSON.stringify({ error: 'Company not found' })).message).toBe('Company not found');
    expect(errorFromResponse(500, {}, JSON.stringify({ message: 'boom' })).message).toBe('boom');
    expect(errorFromResponse(502, {}, 'upstream timed out').message).toBe('upstream timed out');
    expect(errorFromResponse(400, {}, JSON.stringify({ message: 'bad limit', field: 'limit' }))).toMatchObject({
      field: 'limit',
      rule: 'bad limit',
    });
    expect(errorFromResponse(500, {}, '[1,2]').message).toBe('The service answered HTTP 500');
  });

  it('carries Retry-After of a 429 from the header (seconds or date) or the body', () => {
    const r = errorFromResponse(429, { 'retry-after': '3' }, ours('rate_limited', 'Too many'), { nowMs: NOW }) as RateLimitError;
    expect(r).toBeInstanceOf(RateLimitError);
    expect(r.retryAfterMs).toBe(3000);
    const d = errorFromResponse(429, { 'retry-after': new Date(NOW + 7000).toUTCString() }, '', { nowMs: NOW }) as RateLimitError;
    expect(d.retryAfterMs).toBe(7000);
    const b = errorFromResponse(
      429,
      {},
      JSON.stringify({ success: false, error: { code: 'rate_limited', message: 'x', retry_after: 2 }, meta: { request_id: 'r' } }),
    ) as RateLimitError;
    expect(b.retryAfterMs).toBe(2000);
    expect((errorFromResponse(429, {}, '') as RateLimitError).retryAfterMs).toBeUndefined();
  });

  it('never carries the API key, even when the server echoes it', () => {
    const echoes = [
      ours('invalid_api_key', `Key ${KEY} is not valid`, KEY),
      JSON.stringify({ error: `bad key ${KEY}` }),
      `proxy says: X-API-Key: ${KEY}`,
    ];
    for (const status of [400, 401, 403, 404, 429, 500]) {
      for (const body of echoes) {
        const e = errorFromResponse(status, { 'x-request-id': KEY }, body, { secrets: [KEY] });
        const everything = JSON.stringify(e) + e.message + String(e.stack) + JSON.stringify({ ...e });
        expect(everything).not.toContain(KEY);
      }
    }
  });

  it('gives every error a plain hint', () => {
    for (const status of [400, 401, 403, 404, 429, 500, 418]) expect(errorFromResponse(status, {}, '').hint.length).toBeGreaterThan(10);
  });
});

describe('parseRetryAfter', () => {
  it.each([
    ['0', 0],
    ['3', 3000],
    ['1.5', 1500],
    [' 10 ', 10000],
  ])('reads seconds %s', (v, ms) => expect(parseRetryAfter(v, NOW)).toBe(ms));
  it('reads an HTTP date and never goes negative', () => {
    expect(parseRetryAfter('Tue, 04 Mar 2025 12:00:05 GMT', NOW)).toBe(5000);
    expect(parseRetryAfter('Tue, 04 Mar 2025 11:59:00 GMT', NOW)).toBe(0);
  });
  it('ignores what it cannot read', () => {
    expect(parseRetryAfter(undefined, NOW)).toBeUndefined();
    expect(parseRetryAfter('', NOW)).toBeUndefined();
    expect(parseRetryAfter('soon', NOW)).toBeUndefined();
    expect(parseRetryAfter('-5', NOW)).toBeUndefined();
  });
});
