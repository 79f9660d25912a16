/**
 * The core's Google Sheets table through its ports alone, as the n8n node drives it: a Transport that signs
 * requests itself (no token source), and a token source renewed after a 401. Over real HTTP to the Sheets
 * stand-in, which checks every request against Google's discovery document.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SheetsRestTable, type GoogleTokenSource, type SheetsClock, type Transport } from '@company-data/core/sheets';
import { UndiciTransport } from '../../../packages/company-data/src/transport/undici';
import { startSheetsStandin, type SheetsStandin } from '../../support/sheets-standin';

let standin: SheetsStandin;
const http = new UndiciTransport();
const clock: SheetsClock = { now: () => Date.now(), sleep: (ms) => new Promise((r) => setTimeout(r, ms)) };

beforeAll(async () => {
  standin = await startSheetsStandin();
});
afterAll(async () => {
  await http.close();
  await standin.close();
});

describe('SheetsRestTable over its ports', () => {
  it('works with a transport that carries the auth itself (no token source)', async () => {
    standin.create('signed', [{ title: 'Leads', rows: [['name'], ['Acme']] }]);
    const signing: Transport = {
      request: (req) => http.request({ ...req, headers: { ...req.headers, authorization: `Bearer ${standin.accessToken}` } }),
    };
    const t = new SheetsRestTable({ spreadsheetId: 'signed', sheet: 'Leads', transport: signing, clock, rootUrl: standin.url });
    expect((await t.read()).rows).toEqual([['Acme']]);
    await t.write([{ row: 1, col: 1, value: '00123' }]);
    await t.flush();
    await t.append([['Beta', '=1+1']]);
    expect(standin.values('signed', 'Leads')).toEqual([['name'], ['Acme', '00123'], ['Beta', '=1+1']]);
    expect(standin.violations).toEqual([]);
  });

  it('without any auth a 401 is reported with what to do, not renewed', async () => {
    standin.create('bare', [{ title: 'S', rows: [['h']] }]);
    const t = new SheetsRestTable({ spreadsheetId: 'bare', sheet: 'S', transport: http, clock, rootUrl: standin.url });
    await expect(t.read()).rejects.toThrow(/Google Sheets 401 UNAUTHENTICATED/);
  });

  it('renews a refused token once and sends again; a token that cannot be renewed says so', async () => {
    standin.create('renew', [{ title: 'S', rows: [['h'], ['1']] }]);
    let token = 'stale-token';
    let renewals = 0;
    const tokens: GoogleTokenSource = {
      on401: 'sign in again',
      authorize: async () => ({ authorization: `Bearer ${token}` }),
      renew: async () => {
        renewals++;
        token = standin.accessToken;
        return true;
      },
    };
    const t = new SheetsRestTable({ spreadsheetId: 'renew', sheet: 'S', transport: http, tokens, clock, rootUrl: standin.url });
    expect((await t.read()).rows).toEqual([['1']]);
    expect(renewals).toBe(1);

    const fixed: GoogleTokenSource = {
      on401: 'get a new token',
      authorize: async () => ({ authorization: 'Bearer nope' }),
      renew: async () => false,
    };
    const u = new SheetsRestTable({ spreadsheetId: 'renew', sheet: 'S', transport: http, tokens: fixed, clock, rootUrl: standin.url });
    const err = await u.read().catch((e: unknown) => e as Error);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/401 UNAUTHENTICATED.*get a new token/);
    expect((err as Error).message).not.toContain('nope');
  });
});
