import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { IDataObject } from 'n8n-workflow';
import { CompanyDataTrigger } from '../../../nodes/CompanyDataTrigger/CompanyDataTrigger.node';
import type { SentRequest } from '../../support/n8n-http';
import { ACCOUNT, API_KEY, credentials, hookContext, startRig, type Rig } from './harness';

const hooks = new CompanyDataTrigger().webhookMethods.default;
const URL_A = 'https://n8n-a.example.ee/webhook/aaa/webhook';
const URL_B = 'https://n8n-b.example.ee/webhook/bbb/webhook';

let rig: Rig;
beforeEach(async () => {
  rig = await startRig();
});
afterEach(async () => rig.close());

const account = () => rig.svc.account(ACCOUNT).webhook;
const ctx = (state: IDataObject, url: string, options: IDataObject = {}, creds: IDataObject = credentials(rig)) =>
  hookContext(rig, state, { options }, creds, url);

/** The key headers of one request, names lower-cased. */
const keyHeaders = (r: SentRequest) =>
  Object.fromEntries(
    Object.entries(r.headers)
      .filter(([k]) => ['authorization', 'x-api-key'].includes(k.toLowerCase()))
      .map(([k, v]) => [k.toLowerCase(), v]),
  );

describe('credential header style (n8n applies the credential, as for the other nodes)', () => {
  it('activates with a Bearer-style credential: Authorization: Bearer on every call, no X-API-Key', async () => {
    const state: IDataObject = {};
    const bearer = credentials(rig, { authStyle: 'bearer' });
    const check = ctx(state, URL_A, {}, bearer);
    expect(await hooks.checkExists.call(check)).toBe(false);
    const c = ctx(state, URL_A, {}, bearer);
    expect(await hooks.create.call(c)).toBe(true);
    expect(state.signingSecret).toMatch(/.{16,}/);
    expect(account()).toMatchObject({ url: URL_A, enabled: true });
    expect(await hooks.checkExists.call(ctx(state, URL_A, {}, bearer))).toBe(true);

    const sent = [...check.requests, ...c.requests];
    expect(sent.map((r) => `${r.method} ${new URL(r.url).pathname}`)).toEqual(['GET /webhook', 'GET /webhook', 'PUT /webhook']);
    for (const r of sent) expect(keyHeaders(r)).toEqual({ authorization: `Bearer ${API_KEY}` });
    for (const h of [check.helpers, c.helpers]) {
      expect(h.httpRequest).not.toHaveBeenCalled();
      expect(h.httpRequestWithAuthentication).toHaveBeenCalledWith('companyDataApi', expect.anything());
    }
  });

  it('the default style sends X-API-Key only; the client adds no key header of its own', async () => {
    const c = ctx({}, URL_A);
    await hooks.create.call(c);
    expect(c.requests).toHaveLength(2);
    for (const r of c.requests) expect(keyHeaders(r)).toEqual({ 'x-api-key': API_KEY });
  });

  it('a Bearer credential with a wrong key is refused by the service: activation fails, nothing set', async () => {
    await expect(hooks.create.call(ctx({}, URL_A, {}, credentials(rig, { authStyle: 'bearer', apiKey: 'sk_wrong' })))).rejects.toThrow();
    expect(account()).toBeUndefined();
  });
});

describe('activation and deactivation', () => {
  it('first activation creates the webhook and keeps the secret; checkExists then matches on the URL', async () => {
    const state: IDataObject = {};
    expect(await hooks.checkExists.call(ctx(state, URL_A))).toBe(false);
    expect(await hooks.create.call(ctx(state, URL_A))).toBe(true);
    expect(state.signingSecret).toMatch(/.{16,}/);
    expect(account()).toMatchObject({ url: URL_A, enabled: true });
    expect(await hooks.checkExists.call(ctx(state, URL_A))).toBe(true);
    expect(await hooks.checkExists.call(ctx(state, URL_B))).toBe(false);
  });

  it('deactivation turns sending off; reactivation reuses the kept secret (the service shows it once)', async () => {
    const state: IDataObject = {};
    await hooks.create.call(ctx(state, URL_A));
    const secret = state.signingSecret;
    expect(await hooks.delete.call(ctx(state, URL_A))).toBe(true);
    expect(account()).toMatchObject({ url: URL_A, enabled: false });
    expect(await hooks.checkExists.call(ctx(state, URL_A))).toBe(false);
    await hooks.create.call(ctx(state, URL_A));
    expect(account()).toMatchObject({ url: URL_A, enabled: true });
    expect(state.signingSecret).toBe(secret);
  });

  it('refuses to take over a webhook that sends to another address, and changes nothing', async () => {
    await hooks.create.call(ctx({}, URL_A));
    const other: IDataObject = {};
    await expect(hooks.create.call(ctx(other, URL_B, {}, credentials(rig, { webhookSigningSecret: 'whsec_known' })))).rejects.toThrow(
      /another address \(https:\/\/n8n-a\.example\.ee/,
    );
    await expect(hooks.create.call(ctx(other, URL_B, {}, credentials(rig, { webhookSigningSecret: 'whsec_known' })))).rejects.toMatchObject(
      { description: expect.stringContaining('Take Over Existing Webhook') },
    );
    expect(account()).toMatchObject({ url: URL_A, enabled: true });
  });

  it('takes over only when told, says so in the log, and records where it pointed before', async () => {
    const first: IDataObject = {};
    await hooks.create.call(ctx(first, URL_A));
    const other: IDataObject = {};
    const c = ctx(other, URL_B, { takeOver: true }, credentials(rig, { webhookSigningSecret: first.signingSecret as string }));
    await hooks.create.call(c);
    expect(account()).toMatchObject({ url: URL_B, enabled: true });
    expect(other.previousUrl).toBe(URL_A);
    expect(c.logger.warn).toHaveBeenCalledWith(expect.stringContaining(URL_A));
    // The first workflow's deactivation now leaves the taken-over webhook alone.
    await hooks.delete.call(ctx(first, URL_A));
    expect(account()).toMatchObject({ url: URL_B, enabled: true });
  });

  it('an existing webhook with no secret we know: a clear error naming the credential field, nothing changed', async () => {
    await hooks.create.call(ctx({}, URL_A));
    await hooks.delete.call(ctx({}, URL_A));
    await expect(hooks.create.call(ctx({}, URL_B))).rejects.toMatchObject({
      description: expect.stringContaining('Webhook Signing Secret'),
    });
    expect(account()).toMatchObject({ url: URL_A, enabled: false });
  });

  it('a disabled webhook of another address is reused with the credential secret', async () => {
    const first: IDataObject = {};
    await hooks.create.call(ctx(first, URL_A));
    await hooks.delete.call(ctx(first, URL_A));
    const second: IDataObject = {};
    await hooks.create.call(ctx(second, URL_B, {}, credentials(rig, { webhookSigningSecret: first.signingSecret as string })));
    expect(account()).toMatchObject({ url: URL_B, enabled: true });
    expect(
      await hooks.checkExists.call(ctx(second, URL_B, {}, credentials(rig, { webhookSigningSecret: first.signingSecret as string }))),
    ).toBe(true);
  });

  it('a wrong API key is an activation error that says what to do', async () => {
    await expect(hooks.create.call(ctx({}, URL_A, {}, credentials(rig, { apiKey: 'sk_wrong' })))).rejects.toThrow();
    expect(account()).toBeUndefined();
  });

  it('deactivation with a failing service does not block and is logged', async () => {
    const state: IDataObject = {};
    await hooks.create.call(ctx(state, URL_A));
    const c = ctx(state, URL_A, {}, credentials(rig, { apiKey: 'sk_revoked' }));
    expect(await hooks.delete.call(c)).toBe(false);
    expect(c.logger.warn).toHaveBeenCalledTimes(1);
    expect(String(c.logger.warn.mock.calls[0]![0])).not.toContain('sk_revoked');
  });
});
