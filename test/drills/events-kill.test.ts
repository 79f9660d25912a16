/**
 * Drill: `company-data events-to-sheet` killed (SIGKILL) after Google applied an append and before the
 * ledger recorded it, then run again with the same command. Each event is in the sheet once.
 *
 * The moment is made, not waited for: a proxy before the Sheets stand-in lets the second append through
 * to the stand-in and never answers it, so the process is killed while it waits for the answer, with
 * the ledger's "begin" for that event written and its "done" not.
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

async function change(code: string): Promise<string> {
  const res = await fetch(`${h.url}/sandbox/changes`, {
    method: 'POST',
    headers: { 'x-api-key': h.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ registry_code: code, category: 'court' }),
  });
  expect(res.ok).toBe(true);
  return ((await res.json()) as { data: { events: string[] } }).data.events[0]!;
}

describe('events-to-sheet killed between the append and the ledger entry', () => {
  it('writes each event once when run again', async () => {
    const ids: string[] = [];
    for (const code of h.codes.slice(0, 4)) ids.push(await change(code));
    standin.create('kill', [{ title: 'Events' }]);
    const state = join(tempDir('events-kill-'), 'state');
    const args = ['events-to-sheet', '--spreadsheet', 'kill', '--sheet', 'Events', '--once', '--state-dir', state];
    const env = (rootUrl: string) => ({
      COMPANY_DATA_BASE_URL: h.url,
      COMPANY_DATA_API_KEY: h.apiKey,
      COMPANY_DATA_GOOGLE_TOKEN: standin.accessToken,
      COMPANY_DATA_SHEETS_ROOT_URL: rootUrl,
    });

    let appends = 0;
    let child: ReturnType<typeof spawnCli> | undefined;
    const proxy = await startSheetsProxy(
      standin.url,
      (r) => (r.path.includes(':append') && ++appends === 2 ? 'hold' : 'pass'),
      () => child!.kill('SIGKILL'),
    );
    try {
      child = spawnCli(args, env(proxy.url));
      const killed = await child.output;
      expect(killed.code).toBeNull();
      expect(proxy.held).toHaveLength(1);
    } finally {
      await proxy.close();
    }

    // The window was hit: the second event is in the sheet, and the ledger began it but never finished it.
    const sheetIds = () =>
      standin
        .values('kill', 'Events')
        .slice(1)
        .map((r) => String(r[0]));
    expect(sheetIds()).toEqual(ids.slice(0, 2));
    const ledgerFile = readdirSync(state).find((f) => f.startsWith('events-') && f.endsWith('.jsonl'));
    expect(ledgerFile && existsSync(join(state, ledgerFile))).toBeTruthy();
    const entries = readFileSync(join(state, ledgerFile!), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { t: string; id?: string });
    expect(entries.filter((e) => e.id === ids[1]).map((e) => e.t)).toEqual(['begin']);

    const again = await runCli(args, env(standin.url));
    expect(again.stderr).toContain('Reconciled 1 event(s) with the sheet.');
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('Events appended: 2 (2 rows); already stored: 1');
    expect(sheetIds()).toEqual(ids);

    // And once more, with nothing new: nothing is added.
    const third = await runCli(args, env(standin.url));
    expect(third.code).toBe(0);
    expect(third.stdout).toContain('Events appended: 0 (0 rows)');
    expect(sheetIds()).toEqual(ids);
  }, 60_000);
});
