/**
 * Drills: `company-data events-to-sheet` killed (SIGKILL) in the middle of a batch, then run again with the
 * same command. Each event is in the sheet once.
 *  1. After Google applied a batch's append and before the ledger recorded it done: every event of the
 *     batch pending, all its rows in the sheet; the rerun appends nothing.
 *  2. A batch larger than Google's 2 MB a request, so appended in two parts: killed after the first part
 *     was applied, before the second was sent; the rerun appends exactly the rows of the second part.
 *
 * The moment is made, not waited for: a proxy before the Sheets stand-in lets an append through to the
 * stand-in and never answers it, so the process is killed while it waits for the answer, with the
 * ledger's "begin" for the batch's events written and their "done" not.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompanyDataClient } from '../../packages/company-data/src/index';
import { startEventsSandbox, type EventsSandbox } from '../company-data/sandbox/monitoring/support/sandbox';
import { startSheetsStandin, type SheetsStandin } from '../support/sheets-standin';
import { startSheetsProxy } from '../support/sheets-standin-proxy';
import { tempDirs } from '../support/temp-dirs';
import { runCli, spawnCli } from './support/cli';

const tempDir = tempDirs();

let h: EventsSandbox;
let client: CompanyDataClient;
let standin: SheetsStandin;
beforeAll(async () => {
  [h, standin] = await Promise.all([startEventsSandbox({ companies: 10 }), startSheetsStandin()]);
  client = new CompanyDataClient({ baseUrl: h.url, apiKey: h.apiKey });
  const list = (await client.monitoring.createList({ name: 'Customers' })).data as { id: string };
  await client.monitoring.addCompanies({ list_id: list.id, add: h.codes.slice(0, 4).map((registry_code) => ({ registry_code })) });
});
afterAll(async () => {
  await client.close();
  await Promise.all([h.close(), standin.close()]);
});

async function change(code: string, details?: Record<string, unknown>): Promise<string> {
  const res = await fetch(`${h.url}/sandbox/changes`, {
    method: 'POST',
    headers: { 'x-api-key': h.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ registry_code: code, category: 'court', ...(details ? { details } : {}) }),
  });
  expect(res.ok).toBe(true);
  return ((await res.json()) as { data: { events: string[] } }).data.events[0]!;
}

const sheetIdsOf = (id: string) =>
  standin
    .values(id, 'Events')
    .slice(1)
    .map((r) => String(r[0]));
const env = (rootUrl: string) => ({
  COMPANY_DATA_BASE_URL: h.url,
  COMPANY_DATA_API_KEY: h.apiKey,
  COMPANY_DATA_GOOGLE_TOKEN: standin.accessToken,
  COMPANY_DATA_SHEETS_ROOT_URL: rootUrl,
});
/** The ledger's entries by event id: what it recorded of each (begin, done). */
function ledgerOf(state: string): Map<string, string[]> {
  const ledgerFile = readdirSync(state).find((f) => f.startsWith('events-') && f.endsWith('.jsonl'));
  expect(ledgerFile && existsSync(join(state, ledgerFile))).toBeTruthy();
  const out = new Map<string, string[]>();
  for (const line of readFileSync(join(state, ledgerFile!), 'utf8').split('\n').filter(Boolean)) {
    const e = JSON.parse(line) as { t: string; id?: string };
    if (e.id) out.set(e.id, [...(out.get(e.id) ?? []), e.t]);
  }
  return out;
}
/** Runs the command through a proxy that holds the append `which` decides on, killing the process once it is applied. */
async function killedAt(args: string[], which: (appendNo: number) => boolean): Promise<string[]> {
  let appends = 0;
  let child: ReturnType<typeof spawnCli> | undefined;
  const proxy = await startSheetsProxy(
    standin.url,
    (r) => (r.path.includes(':append') && which(++appends) ? 'hold' : 'pass'),
    () => child!.kill('SIGKILL'),
  );
  try {
    child = spawnCli(args, env(proxy.url));
    const killed = await child.output;
    expect(killed.code).toBeNull();
    expect(proxy.held).toHaveLength(1);
    return proxy.held.map((r) => r.body);
  } finally {
    await proxy.close();
  }
}

describe('events-to-sheet killed between the append and the ledger entry', () => {
  it('writes each event once when run again', async () => {
    standin.create('kill', [{ title: 'Events' }]);
    const state = join(tempDir('events-kill-'), 'state');
    const args = ['events-to-sheet', '--spreadsheet', 'kill', '--sheet', 'Events', '--once', '--state-dir', state];
    const ids: string[] = [];
    for (const code of h.codes.slice(0, 2)) ids.push(await change(code));
    // A first run stores two events.
    const first = await runCli(args, env(standin.url));
    expect(first.stdout).toContain('Events appended: 2 (2 rows)');
    for (const code of h.codes.slice(0, 2)) ids.push(await change(code));

    // The next batch (the two new events) is applied by Google, and the process killed before it hears so.
    await killedAt(args, (n) => n === 1);
    expect(sheetIdsOf('kill')).toEqual(ids);
    const ledger = ledgerOf(state);
    expect(ids.map((id) => ledger.get(id))).toEqual([['begin', 'done'], ['begin', 'done'], ['begin'], ['begin']]);

    const again = await runCli(args, env(standin.url));
    expect(again.stderr).toContain('Reconciled 2 event(s) with the sheet.');
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('Events appended: 0 (0 rows); already stored: 2');
    expect(sheetIdsOf('kill')).toEqual(ids);

    // And once more, with nothing new: nothing is added.
    const third = await runCli(args, env(standin.url));
    expect(third.code).toBe(0);
    expect(third.stdout).toContain('Events appended: 0 (0 rows)');
    expect(sheetIdsOf('kill')).toEqual(ids);
  }, 60_000);
});

describe('events-to-sheet killed between the parts of one batch', () => {
  it('appends exactly the rows of the part that was not sent when run again', async () => {
    standin.create('kill-parts', [{ title: 'Events' }]);
    const state = join(tempDir('events-kill-parts-'), 'state');
    const args = ['events-to-sheet', '--spreadsheet', 'kill-parts', '--sheet', 'Events', '--once', '--state-dir', state];
    // 60 events of some 45 KB each (a long note in details): one batch of 2.7 MB, over Google's 2 MB a request.
    for (let i = 0; i < 60; i++) await change(h.codes[i % 4]!, { note: `${i} ${'n'.repeat(45_000)}` });
    // A new state folder: every event of the account, the earlier test's too, in one batch.
    const ids: string[] = [];
    for await (const e of client.iterateEvents({})) ids.push(e.id);
    expect(ids.length).toBeGreaterThanOrEqual(60);

    const held = await killedAt(args, (n) => n === 1);
    const firstPart = (JSON.parse(held[0]!) as { values: string[][] }).values.map((r) => r[0]);
    expect(firstPart.length).toBeGreaterThan(0);
    expect(firstPart.length).toBeLessThan(ids.length);
    expect(sheetIdsOf('kill-parts')).toEqual(firstPart);
    const ledger = ledgerOf(state);
    expect(ids.every((id) => ledger.get(id)?.join() === 'begin')).toBe(true);

    const appendsBefore = standin.calls.filter((c) => c.method === 'values.append').length;
    const again = await runCli(args, env(standin.url));
    expect(again.code).toBe(0);
    expect(again.stderr).toContain(`Reconciled ${ids.length} event(s) with the sheet.`);
    expect(sheetIdsOf('kill-parts')).toEqual(ids);
    // The rest went in as one part: the rows of the first part were not sent again.
    expect(standin.calls.filter((c) => c.method === 'values.append').length - appendsBefore).toBe(1);
    const done = ledgerOf(state);
    expect(ids.every((id) => done.get(id)?.join() === 'begin,done')).toBe(true);
  }, 90_000);
});
