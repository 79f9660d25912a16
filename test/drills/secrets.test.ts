/**
 * Drill: a recognisable API key and signing secrets go through every path that prints, throws, outputs
 * or writes: CLI runs (success, unknown key, injected faults, no server, events-to-sheet in poll and
 * webhook mode, the sandbox command), client errors of every class, the Companies node's output and
 * errors, the trigger's log on rejected deliveries, and every file written (sheets, state, ledgers, the
 * sandbox data dir). None of them may contain a secret, in plain text or base64.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IDataObject } from 'n8n-workflow';
import { CompanyDataCompanies } from '../../nodes/CompanyDataCompanies/CompanyDataCompanies.node';
import { CompanyDataClient } from '../../packages/company-data/src/index';
import { startSandbox } from '../../packages/company-data/src/sandbox';
import { signWebhook } from '@company-data/core/webhooks';
import { executeContext } from '../support/n8n-context';
import { runCli, spawnCli, type CliRun } from './support/cli';
import { startFanOut, type FanOut } from './support/receivers';
import { csvOf, drillRows } from './support/rows';

const API_KEY = 'sk_live_SECRETDRILL_9f8e7d6c5b4a3210';
const UNKNOWN_KEY = 'sk_live_SECRETDRILL_unknown_00000001';
const SHEET_SECRET = 'whsec_SECRETDRILL_sheet_5a4b3c2d1e0f';

type Sb = Awaited<ReturnType<typeof startSandbox>>;
let sb: Sb;
let dir: string;
let dataDir: string;
let fan: FanOut;
/** Everything that was printed, thrown or output, with where it came from. */
const seen: { where: string; text: string }[] = [];
const secrets = () => [API_KEY, UNKNOWN_KEY, SHEET_SECRET, ...(fan?.secrets ?? [])];

function leaks(text: string): string[] {
  return secrets().filter(
    (s) => text.includes(s) || text.includes(Buffer.from(s).toString('base64')) || text.includes(encodeURIComponent(s)),
  );
}

function record(where: string, value: unknown) {
  seen.push({ where, text: typeof value === 'string' ? value : `${inspect(value, { depth: 8, showHidden: true })}\n${safeJson(value)}` });
}
function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v) ?? '';
  } catch {
    return '';
  }
}
function recordCli(where: string, r: CliRun) {
  record(`${where} stdout`, r.stdout);
  record(`${where} stderr`, r.stderr);
}

function filesUnder(d: string): string[] {
  return readdirSync(d).flatMap((name) => {
    const p = join(d, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'drill-secrets-'));
  dataDir = join(dir, 'sandbox-data');
  sb = await startSandbox({
    port: 0,
    seed: 1,
    companies: 1500,
    dataDir,
    keys: [{ key: API_KEY, plan: 'api' }],
    settings: { detectionRate: 0, duplicateRate: 0 },
  });
  fan = await startFanOut({ workflowId: 'wf-drill-secrets', dir: join(dir, 'fan') });
  await fan.activate({ apiKey: API_KEY, baseUrl: sb.url });
});
afterAll(async () => {
  await fan?.close();
  await sb?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function fault(spec: object) {
  const res = await fetch(`${sb.url}/sandbox/faults`, {
    method: 'POST',
    headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
    body: JSON.stringify(spec),
  });
  expect(res.status).toBeLessThan(300);
}

describe('secrets never leak', () => {
  it('CLI: enrich (success, unknown key, faults, no server), events-to-sheet (poll, webhook), sandbox', async () => {
    const env = { COMPANY_DATA_BASE_URL: sb.url, COMPANY_DATA_API_KEY: API_KEY };
    const rows = drillRows(sb.dataset, 300);
    const file = (name: string) => {
      const f = join(dir, name);
      writeFileSync(f, csvOf(rows));
      return f;
    };
    const ok = await runCli(['enrich', file('ok.csv'), '--state-dir', join(dir, 'state')], env);
    expect(ok.code).toBe(0);
    recordCli('enrich ok', ok);

    // --max-age 0: the first run's answers are in the answer cache; these runs must really send.
    const unknown = await runCli([
      'enrich',
      file('unknown.csv'),
      '--api-key',
      UNKNOWN_KEY,
      '--base-url',
      sb.url,
      '--state-dir',
      join(dir, 'state'),
      '--max-age',
      '0',
    ]);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr + unknown.stdout).toMatch(/401|key/i);
    recordCli('enrich unknown key', unknown);

    await fault({ kind: 'server_error', count: 2, status: 503 });
    await fault({ kind: 'reset', count: 1 });
    const faulty = await runCli(['enrich', file('faulty.csv'), '--state-dir', join(dir, 'state'), '--max-age', '0'], env);
    expect(faulty.code).toBe(2); // rows with errors
    recordCli('enrich with faults', faulty);

    const down = await runCli(['enrich', file('down.csv'), '--base-url', 'http://127.0.0.1:9', '--state-dir', join(dir, 'state')], {
      COMPANY_DATA_API_KEY: API_KEY,
    });
    recordCli('enrich no server', down);

    // Events: one change polled to a sheet, then webhook mode with its own secret.
    const list = (await (
      await fetch(`${sb.url}/monitoring/lists`, {
        method: 'POST',
        headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
        body: '{"name":"Secrets"}',
      })
    ).json()) as { data: { id: string } };
    const code = sb.dataset.companies[3]!.code;
    await fetch(`${sb.url}/monitoring/lists/${list.data.id}/companies`, {
      method: 'POST',
      headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ add: [{ registry_code: code }] }),
    });
    await fetch(`${sb.url}/sandbox/changes`, {
      method: 'POST',
      headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ registry_code: code, category: 'court' }),
    });
    const poll = await runCli(['events-to-sheet', join(dir, 'events.csv'), '--once', '--state-dir', join(dir, 'events-state')], env);
    expect(poll.code).toBe(0);
    recordCli('events-to-sheet poll', poll);

    const hook = spawnCli(
      ['events-to-sheet', join(dir, 'hook-events.csv'), '--webhook', '--port', '0', '--state-dir', join(dir, 'hook-state')],
      { COMPANY_DATA_WEBHOOK_SECRET: SHEET_SECRET },
    );
    const url = await new Promise<string>((resolve, reject) => {
      let err = '';
      hook.stderr!.on('data', (d) => {
        err += d;
        const m = /Listening for webhooks on (\S+)/.exec(err);
        if (m) resolve(m[1]!);
      });
      hook.once('exit', () => reject(new Error(`events-to-sheet exited: ${err}`)));
    });
    for (const [body, secret] of [
      [JSON.stringify({ id: 'evt_s1', type: 'webhook.test', created_at: '2026-11-20T10:00:00.000Z', data: {} }), SHEET_SECRET],
      ['{"id":"evt_s2"}', 'whsec_wrong'],
    ] as const) {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...signWebhook({ secret, body }) },
        body,
      });
      record(`events-to-sheet webhook answer ${res.status}`, await res.text());
    }
    hook.kill('SIGTERM');
    recordCli('events-to-sheet webhook', await hook.output);

    const sandboxCli = spawnCli([
      'sandbox',
      '--port',
      '0',
      '--key',
      API_KEY,
      '--data-dir',
      join(dir, 'cli-sandbox'),
      '--companies',
      '1500',
    ]);
    await new Promise<void>((resolve) => {
      let out = '';
      sandboxCli.stdout!.on('data', (d) => {
        out += d;
        if (/Keys:|listening|http:\/\//i.test(out)) resolve();
      });
      sandboxCli.once('exit', () => resolve());
    });
    sandboxCli.kill('SIGTERM');
    recordCli('sandbox command', await sandboxCli.output);
  }, 90_000);

  it('client errors of every class', async () => {
    const bad = new CompanyDataClient({ baseUrl: sb.url, apiKey: UNKNOWN_KEY });
    await bad.companies.get({ registry_code: sb.fixtures.companies.active!.registry_code }).catch((e) => record('AuthenticationError', e));
    await bad.close();
    const client = new CompanyDataClient({ baseUrl: sb.url, apiKey: API_KEY, timeoutMs: 500, retry: { retries: 0, rateLimitRetries: 0 } });
    const code = sb.fixtures.companies.active!.registry_code;
    for (const spec of [
      { kind: 'server_error', count: 1 },
      { kind: 'rate_limited', count: 1, retry_after: 120 },
      { kind: 'reset', count: 1 },
      { kind: 'slow', count: 1, delay_ms: 900 },
    ]) {
      await fault(spec);
      await client.companies.get({ registry_code: code }).then(
        () => record(`${spec.kind}: no error`, ''),
        (e) => record(`client error after ${spec.kind}`, e),
      );
    }
    await client.companies.get({ registry_code: '19999992' }).catch((e) => record('NotFoundError', e));
    await client.companies.get({ registry_code: '12345678' }).catch((e) => record('ValidationError', e));
    await client.close();
    const down = new CompanyDataClient({ baseUrl: 'http://127.0.0.1:9', apiKey: API_KEY, retry: { retries: 0 } });
    await down.companies.get({ registry_code: code }).catch((e) => record('ConnectionError', e));
    await down.close();
    expect(seen.filter((s) => s.where.startsWith('client error') || s.where.endsWith('Error'))).toHaveLength(8);
  });

  it('Companies node: output items and thrown errors', async () => {
    const node = new CompanyDataCompanies();
    const items = ['13545698', '12345678', 'ab', sb.fixtures.unknown_registry_code].map((c) => ({ json: { code: c } as IDataObject }));
    const params = { operation: 'lookup', querySource: 'field', queryField: 'code', options: {} };
    const out = await node.execute.call(executeContext({ params, items, credentials: { apiKey: API_KEY, baseUrl: sb.url } }).ctx);
    record('node lookup output', out);
    for (const continueOnFail of [true, false]) {
      const { ctx } = executeContext({
        params: { operation: 'get', registry_code: '13545698' },
        credentials: { apiKey: UNKNOWN_KEY, baseUrl: sb.url },
        continueOnFail,
      });
      await node.execute.call(ctx).then(
        (o) => record('node get output (continueOnFail)', o),
        (e) => record('node get error', e),
      );
    }
    expect(seen.some((s) => s.where === 'node get error')).toBe(true);
  });

  it('trigger: rejected deliveries are logged without the secret', async () => {
    const body = JSON.stringify({ id: 'evt_x', type: 'webhook.test', created_at: '2026-11-20T10:00:00.000Z', data: {} });
    for (const secret of ['whsec_wrong', fan.secrets[0]!]) {
      const res = await fetch(fan.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...signWebhook({ secret, body }) },
        body,
      });
      record(`fan-out answer ${res.status}`, await res.text());
    }
    expect(fan.logs.length).toBeGreaterThan(0);
    for (const l of fan.logs) record('trigger log', l);
  });

  it('nothing printed, thrown or output contains a secret', () => {
    expect(seen.length).toBeGreaterThan(20);
    // The scan itself finds a secret in each form it looks for.
    for (const form of [API_KEY, Buffer.from(API_KEY).toString('base64'), encodeURIComponent(fan.secrets[0]!)])
      expect(leaks(`x ${form} y`)).toHaveLength(1);
    const found = seen.flatMap((s) => leaks(s.text).map((secret) => `${s.where}: ${secret.slice(0, 12)}...`));
    expect(found).toEqual([]);
  });

  it('no file written contains a secret', async () => {
    await sb.close(); // flushes the sandbox's state and data dir
    const files = filesUnder(dir);
    expect(files.length).toBeGreaterThan(10);
    expect(files.some((f) => f.endsWith('keys.json') || f.endsWith('state.json'))).toBe(true);
    const found = files.flatMap((f) => leaks(readFileSync(f).toString('latin1')).map((s) => `${f}: ${s.slice(0, 12)}...`));
    expect(found).toEqual([]);
    sb = undefined as unknown as Sb;
  });
});
