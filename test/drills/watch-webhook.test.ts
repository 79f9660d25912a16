/**
 * `company-data watch --webhook` as users run it: its own process, the sandbox sending real signed deliveries,
 * each three times. The change lands once in the events file and in its company's row at the next pass.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startEventsSandbox, type EventsSandbox } from '../company-data/sandbox/monitoring/support/sandbox';
import { spawnCli } from './support/cli';

let h: EventsSandbox;
let dir: string;
beforeAll(async () => {
  h = await startEventsSandbox({ companies: 10 });
  dir = mkdtempSync(join(tmpdir(), 'watch-hook-'));
});
afterAll(async () => {
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

async function call(method: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${h.url}${path}`, {
    method,
    headers: { 'x-api-key': h.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const j = (await res.json()) as { data: Record<string, unknown> };
  if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(j)}`);
  return j.data;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const rows = (file: string) => parse(readFileSync(file, 'utf8')) as string[][];

it('a delivered change (sent three times) is appended once and reaches its row; the secret never shows', async () => {
  const [a, b] = h.codes;
  const file = join(dir, 'leads.csv');
  writeFileSync(file, `Registry code,Owner\n${a},Mari\n${b},Jaan\n`);
  // The first PUT makes the webhook and is the one answer carrying its secret.
  const secret = String((await call('PUT', '/webhook', { url: 'http://127.0.0.1:9/none', enabled: false })).signing_secret);
  const child = spawnCli(
    ['watch', file, '--webhook', '--port', '0', '--secret', secret, '--interval', '1', '--state-dir', join(dir, 'state')],
    {
      COMPANY_DATA_BASE_URL: h.url,
      COMPANY_DATA_API_KEY: h.apiKey,
      COMPANY_DATA_LOCK_DIR: join(dir, 'locks'),
    },
  );
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  try {
    for (let i = 0; i < 600 && !/Listening/.test(err); i++) {
      if (child.exitCode !== null) break;
      await sleep(50);
    }
    const url = /Listening for webhooks on (\S+)/.exec(err)?.[1];
    expect(url, err).toBeDefined();
    await call('PUT', '/webhook', { url, enabled: true });
    await call('PUT', '/sandbox/settings', { duplicate_rate: 1, duplicate_copies: 2 });
    const made = await call('POST', '/sandbox/changes', {
      registry_code: a,
      category: 'registry',
      kind: 'name_changed',
      details: { new: 'Alfa Uus OÜ' },
    });
    const eventId = (made.events as string[])[0]!;
    const idCol = () => rows(file)[0]!.indexOf('company_data_last_event_id');
    for (let i = 0; i < 400 && !(idCol() >= 0 && rows(file)[1]![idCol()] === eventId); i++) await sleep(50);
    const sheet = rows(file);
    const head = sheet[0]!;
    expect(sheet[1]![head.indexOf('company_data_last_event_id')]).toBe(eventId);
    expect(sheet[1]![head.indexOf('company_data_match_name')]).toBe('Alfa Uus OÜ');
    expect(sheet[2]![head.indexOf('company_data_last_event_id')] ?? '').toBe('');
    expect(sheet.map((r) => r[1])).toEqual(['Owner', 'Mari', 'Jaan']);
    // Three deliveries, one row in the events file.
    for (let i = 0; i < 100 && (err.match(/: duplicate/g) ?? []).length < 2; i++) await sleep(50);
    const events = rows(join(dir, 'leads - Company changes.csv'));
    expect(events.slice(1).map((r) => r[0])).toEqual([eventId]);
  } finally {
    await call('PUT', '/sandbox/settings', { duplicate_rate: 0 });
    child.kill('SIGTERM');
    const run = await child.output;
    expect(run.stdout + run.stderr).not.toContain(secret);
  }
});
