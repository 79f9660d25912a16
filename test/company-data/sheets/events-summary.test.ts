/**
 * The summary column of events → rows, over real HTTP: the sandbox's events polled by the CLI into a
 * CSV file (Estonian), and signed webhooks into a Google sheet (the stand-in) made before the column existed.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsToSheetCommand } from '../../../packages/company-data/src/cli/commands/events-to-sheet';
import { changeSummary, matchCompanySummary } from '@company-data/core/event-summary';
import type { MonitoringChangeEvent } from '@company-data/core/schemas/events';
import { CompanyDataClient } from '../../../packages/company-data/src/index';
import { CsvTable } from '../../../packages/company-data/src/sheets/csv-table';
import { startWebhookReceiver } from '../../../packages/company-data/src/sheets/event-sources';
import { EVENT_COLUMNS, EventSheetWriter } from '../../../packages/company-data/src/sheets/events-to-rows';
import { GoogleSheetTable } from '../../../packages/company-data/src/sheets/google-table';
import { signWebhook } from '@company-data/core/webhooks';
import { startEventsSandbox, type EventsSandbox } from '../sandbox/monitoring/support/sandbox';
import { startSheetsStandin, type SheetsStandin } from '../../support/sheets-standin';
import { runCommand } from '../../support/run-command';
import { searchMatches } from './support/events';

let h: EventsSandbox;
let client: CompanyDataClient;
let standin: SheetsStandin;
let dir: string;
beforeAll(async () => {
  h = await startEventsSandbox({ companies: 10 });
  client = new CompanyDataClient({ baseUrl: h.url, apiKey: h.apiKey });
  standin = await startSheetsStandin();
  dir = mkdtempSync(join(tmpdir(), 'events-summary-'));
  const list = await client.monitoring.createList({ name: 'Võtmekliendid' });
  const listId = (list.data as { id: string }).id;
  await client.monitoring.addCompanies({
    list_id: listId,
    add: h.codes.slice(0, 3).map((c) => ({ registry_code: c, external_ref: `crm-${c}` })),
  });
});
afterAll(async () => {
  await client.close();
  await standin.close();
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

const runCli = (args: string[]) => runCommand(eventsToSheetCommand(), args);

async function control(method: string, path: string, body: unknown): Promise<void> {
  const res = await fetch(`${h.url}${path}`, {
    method,
    headers: { 'x-api-key': h.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
}

describe('summary column', () => {
  it("CLI poll with --lang et writes the trigger's Estonian sentence for each sandbox event", async () => {
    for (const [i, category] of (['tax', 'court', 'registry'] as const).entries())
      await control('POST', '/sandbox/changes', { registry_code: h.codes[i], category });
    const events: MonitoringChangeEvent[] = [];
    for await (const e of client.iterateEvents({})) events.push(e as MonitoringChangeEvent);
    expect(events.length).toBe(3);

    const file = join(dir, 'poll.csv');
    const run = await runCli([
      file,
      '--once',
      '--lang',
      'et',
      '--base-url',
      h.url,
      '--api-key',
      h.apiKey,
      '--state-dir',
      join(dir, 'state-poll'),
    ]);
    expect(run.out).toContain('Events appended: 3 (3 rows)');
    const rows = parse(readFileSync(file, 'utf8')) as string[][];
    expect(rows[0]).toEqual([...EVENT_COLUMNS]);
    const col = rows[0]!.indexOf('summary');
    expect(rows.slice(1).map((r) => [r[0], r[col]])).toEqual(events.map((e) => [e.id, changeSummary(e, 'et')]));
    // Estonian, and it names the list the company is on.
    for (const r of rows.slice(1)) expect(r[col]).toMatch(/ — nimekiri: Võtmekliendid \(viide crm-\d+\)$/);
  });

  it('a language other than et or en is refused, naming the flag', async () => {
    await expect(runCli([join(dir, 'x.csv'), '--once', '--lang', 'ru', '--base-url', h.url, '--api-key', h.apiKey])).rejects.toThrow(
      /--lang.*ru.*invalid|Allowed choices are et, en/,
    );
  });

  it('an existing CSV sheet without the column gets it at the end; old rows keep their values', async () => {
    const old = EVENT_COLUMNS.filter((c) => c !== 'summary');
    const oldRow = old.map((c) =>
      c === 'event_id'
        ? 'evt_old'
        : c === 'registry_code'
          ? '10137319'
          : c === 'type'
            ? 'monitoring.change'
            : c === 'details'
              ? '{"old":0,"new":5}'
              : '',
    );
    const file = join(dir, 'old.csv');
    writeFileSync(
      file,
      [old.join(','), oldRow.map((v) => (v.includes(',') || v.includes('"') ? `"${v.replace(/"/g, '""')}"` : v)).join(',')].join('\n') +
        '\n',
    );
    const writer = new EventSheetWriter({ table: new CsvTable(file), stateDir: join(dir, 'state-old'), lang: 'en' });
    await writer.open();
    const ev = change('evt_new', h.codes[0]!);
    expect(await writer.accept(ev as never)).toBe('appended');
    expect(await writer.accept({ ...ev, id: 'evt_old' } as never)).toBe('duplicate');
    await writer.close();
    const rows = parse(readFileSync(file, 'utf8')) as string[][];
    expect(rows[0]).toEqual([...old, 'summary']);
    expect(rows[1]).toEqual([...oldRow, '']);
    expect(rows[2]![rows[0]!.indexOf('summary')]).toBe(changeSummary(ev, 'en'));
    expect(rows[2]![rows[0]!.indexOf('summary')]).toBe(`Tax debt of Firm OÜ (${h.codes[0]}) rose from 0 € to 1,200 €`);
  });

  it('Google sheet made before the column: header added at the end, grid grown by one column, old rows untouched; webhooks', async () => {
    const old = EVENT_COLUMNS.filter((c) => c !== 'summary');
    const oldRows: string[][] = [
      old.map((c): string =>
        c === 'event_id'
          ? 'evt_a'
          : c === 'registry_code'
            ? '10000001'
            : c === 'type'
              ? 'monitoring.change'
              : c === 'kind'
                ? 'tax_debt'
                : '',
      ),
    ];
    oldRows.push(oldRows[0]!.map((v) => (v === 'evt_a' ? 'evt_b' : v)));
    standin.create('old', [{ title: 'Events', rows: [[...old], ...oldRows], rowCount: 3, columnCount: old.length }]);
    const before = standin.calls.length;
    const writer = new EventSheetWriter({
      table: new GoogleSheetTable({
        spreadsheetId: 'old',
        sheet: 'Events',
        auth: { accessToken: standin.accessToken },
        rootUrl: standin.url,
      }),
      stateDir: join(dir, 'state-google'),
    });
    await writer.open();
    const secret = 'whsec_summary_test';
    const rx = await startWebhookReceiver({ writer, secrets: [secret] });
    const matches = searchMatches('evt_srch_1', ['10000002', '10000003'], {
      search: { id: 'srch_1', name: 'New IT firms' },
      nameSuffix: ' OÜ',
    });
    try {
      for (const e of [change('evt_c', '10000004'), matches, change('evt_c', '10000004')]) {
        const body = JSON.stringify(e);
        const res = await fetch(rx.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...signWebhook({ secret, body, eventId: e.id }) },
          body,
        });
        expect(res.status).toBe(200);
      }
    } finally {
      await rx.close();
      await writer.close();
    }
    const v = standin.values('old', 'Events').map((r) => r.map(String));
    expect(v[0]).toEqual([...old, 'summary']);
    expect(standin.spreadsheets.get('old')!.sheets[0]!.columnCount).toBe(old.length + 1);
    // Old rows: the same cells, nothing written in the new column.
    expect(v.slice(1, 3).map((r) => r.slice(0, old.length))).toEqual(oldRows);
    expect(v.slice(1, 3).map((r) => r[old.length] ?? '')).toEqual(['', '']);
    const writes = standin.calls.slice(before).filter((c) => c.kind === 'write' && c.method === 'values.batchUpdate');
    expect(writes).toHaveLength(1); // the header cell only
    const col = old.length;
    expect(v.slice(3).map((r) => [r[0], r[3], r[col]])).toEqual([
      ['evt_c', '10000004', changeSummary(change('evt_c', '10000004'), 'en')],
      ['evt_srch_1', '10000002', matchCompanySummary(matches.data.search, matches.data.companies[0]!, 'en')],
      ['evt_srch_1', '10000003', matchCompanySummary(matches.data.search, matches.data.companies[1]!, 'en')],
    ]);
    expect(v[4]![col]).toBe('N 10000002 OÜ (10000002) now matches the saved search "New IT firms" — Tallinn, registered 2024-12-30');
  });
});

function change(id: string, code: string): MonitoringChangeEvent {
  return {
    id,
    type: 'monitoring.change',
    created_at: '2025-01-02T07:00:00.000Z',
    data: {
      company: { registry_code: code, name: 'Firm OÜ' },
      lists: [],
      category: 'tax',
      kind: 'tax_debt',
      tone: 'bad',
      details: { old: 0, new: 1200 },
      detected_at: '2025-01-02T06:55:00.000Z',
    },
  } as unknown as MonitoringChangeEvent;
}
