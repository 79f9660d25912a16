import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebhookReceiver } from '../../../packages/company-data/src/sheets/event-sources';
import { EventLedger } from '../../../packages/company-data/src/sheets/event-ledger';
import { EventSheetWriter } from '../../../packages/company-data/src/sheets/events-to-rows';
import { CsvTable } from '../../../packages/company-data/src/sheets/csv-table';
import { XlsxTable } from '../../../packages/company-data/src/sheets/xlsx-table';
import { GoogleSheetTable } from '../../../packages/company-data/src/sheets/google-table';
import type { Table } from '../../../packages/company-data/src/sheets/table';
import { signWebhook } from '@company-data/core/webhooks';
import { startSheetsStandin, type SheetsStandin } from '../../support/sheets-standin';
import { tempDirs } from '../../support/temp-dirs';
import { searchMatches, taxDebtChange } from './support/events';

const secret = 'whsec_test_only';

const tempDir = tempDirs();

const change = (n: number, code = '10137319') =>
  taxDebtChange(n, { code, lists: [{ id: 'lst_a1', name: 'Customers', external_ref: 'crm-7' }] });

const matches = (id: string, codes: string[]) => searchMatches(id, codes);

async function deliver(url: string, event: object, sig = secret): Promise<number> {
  const body = JSON.stringify(event);
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...signWebhook({ secret: sig, body, eventId: (event as { id: string }).id }) },
    body,
  });
  await res.text();
  return res.status;
}

function ids(table: string[][]): string[] {
  return table.slice(1).map((r) => `${r[0]}|${r[3]}`);
}

describe('events → rows, webhook mode', () => {
  let standin: SheetsStandin;
  beforeAll(async () => {
    standin = await startSheetsStandin();
  });
  afterAll(() => standin.close());

  async function scenario(makeTable: () => Table, readBack: () => string[][] | Promise<string[][]>) {
    const stateDir = tempDir('events-state-');
    let writer = new EventSheetWriter({ table: makeTable(), stateDir });
    await writer.open();
    const log: string[] = [];
    let rx = await startWebhookReceiver({ writer, secrets: [secret], onEvent: (id, outcome) => log.push(`${id}: ${outcome}`) });
    // Redelivery, concurrent duplicates, a forged request and a test event.
    expect(await deliver(rx.url, change(1))).toBe(200);
    expect(await deliver(rx.url, change(1))).toBe(200);
    expect(await Promise.all([deliver(rx.url, change(2)), deliver(rx.url, change(2)), deliver(rx.url, change(2))])).toEqual([
      200, 200, 200,
    ]);
    expect(await deliver(rx.url, change(3), 'wrong-secret')).toBe(401);
    expect(log.filter((l) => l.includes('rejected'))).toEqual([expect.stringMatching(/: rejected \(\w+\); check the signing secret$/)]);
    expect(await deliver(rx.url, { id: 'evt_t', type: 'webhook.test', created_at: '2025-01-02T07:00:00.000Z', data: {} })).toBe(200);
    expect(await deliver(rx.url, matches('evt_srch_x1_20250102_1', ['10000001', '10000002']))).toBe(200);
    expect(writer.stats).toMatchObject({ appended: 3, duplicates: 3, ignored: 1 });

    // A second writer for the same sheet is refused while the first runs.
    const second = new EventSheetWriter({ table: makeTable(), stateDir });
    await expect(second.open()).rejects.toThrow(/being written by another company-data process \(pid \d+ on .+, since \d{4}-/);

    await rx.close();
    await writer.close();

    // Restart: the same events again, plus a new one.
    writer = new EventSheetWriter({ table: makeTable(), stateDir });
    await writer.open();
    rx = await startWebhookReceiver({ writer, secrets: [secret] });
    for (const e of [change(1), change(2), matches('evt_srch_x1_20250102_1', ['10000001', '10000002']), change(4)])
      expect(await deliver(rx.url, e)).toBe(200);
    await rx.close();
    await writer.close();

    const rows = await readBack();
    expect(rows[0]!.slice(0, 4)).toEqual(['event_id', 'type', 'created_at', 'registry_code']);
    expect(ids(rows)).toEqual([
      'evt_1|10137319',
      'evt_2|10137319',
      'evt_srch_x1_20250102_1|10000001',
      'evt_srch_x1_20250102_1|10000002',
      'evt_4|10137319',
    ]);
    expect(rows[1]![rows[0]!.indexOf('lists')]).toBe('Customers (crm-7)');
    expect(rows[1]![rows[0]!.indexOf('details')]).toBe('{"old":0,"new":1200}');
    return stateDir;
  }

  it('CSV: each event once under redelivery, concurrency and restart', async () => {
    const dir = tempDir('events-csv-');
    const path = join(dir, 'events.csv');
    await scenario(
      () => new CsvTable(path),
      () => parse(readFileSync(path, 'utf8')) as string[][],
    );
  });

  it('XLSX: each event once; the workbook opens in exceljs with the rows as text', async () => {
    const dir = tempDir('events-xlsx-');
    const path = join(dir, 'events.xlsx');
    await scenario(
      () => new XlsxTable(path, { sheet: 'Events' }),
      async () => {
        const wb = new ExcelJS.Workbook();
        await wb.xlsx.readFile(path);
        const grid: string[][] = [];
        wb.getWorksheet('Events')!.eachRow(
          (row, n) => (grid[n - 1] = (row.values as unknown[]).slice(1).map((v) => (v === undefined || v === null ? '' : String(v)))),
        );
        return grid;
      },
    );
  });

  it('Google Sheets: each event once; appends with INSERT_ROWS', async () => {
    standin.create('ev', [{ title: 'Events', rowCount: 2, columnCount: 5 }]);
    await scenario(
      () =>
        new GoogleSheetTable({ spreadsheetId: 'ev', sheet: 'Events', auth: { accessToken: standin.accessToken }, rootUrl: standin.url }),
      () => standin.values('ev', 'Events').map((r) => r.map(String)),
    );
    expect(standin.calls.filter((c) => c.method === 'values.append').every((c) => c.valueInputOption === 'RAW')).toBe(true);
  });

  it('a Google append whose answer was lost is not repeated on redelivery', async () => {
    standin.create('lost', [{ title: 'Events', rowCount: 1, columnCount: 3 }]);
    const table = new GoogleSheetTable({
      spreadsheetId: 'lost',
      sheet: 'Events',
      auth: { accessToken: standin.accessToken },
      rootUrl: standin.url,
    });
    const writer = new EventSheetWriter({ table, stateDir: tempDir('lost-') });
    await writer.open();
    standin.failAfterApply = 1;
    await expect(writer.accept(change(1) as never)).rejects.toThrow(/503/);
    expect(await writer.accept(change(1) as never)).toBe('appended');
    expect(await writer.accept(change(1) as never)).toBe('duplicate');
    await writer.close();
    expect(
      standin
        .values('lost', 'Events')
        .slice(1)
        .map((r) => r[0]),
    ).toEqual(['evt_1']);
  });

  it('reconciles a crash between the append and the ledger entry, and rows the ledger never saw', async () => {
    const dir = tempDir('events-crash-');
    const path = join(dir, 'events.csv');
    const stateDir = join(dir, 'state');
    const writer = new EventSheetWriter({ table: new CsvTable(path), stateDir });
    await writer.open();
    await writer.accept(change(1) as never);
    await writer.close();
    // Simulate a crash: evt_2 rows reached the sheet, the ledger has "begin" only; evt_3 was begun, never appended.
    const ledger = new EventLedger(writer.ledger.path);
    const header = readFileSync(path, 'utf8').split('\n')[0]!.split(',');
    const row = (n: number) =>
      header.map((h) => (h === 'event_id' ? `evt_${n}` : h === 'registry_code' ? '10137319' : h === 'type' ? 'monitoring.change' : ''));
    ledger.begin('evt_2', [row(2)]);
    ledger.begin('evt_3', [row(3)]);
    ledger.close();
    writeFileSync(path, readFileSync(path, 'utf8') + row(2).join(',') + '\n' + row(9).join(',') + '\n');

    const again = new EventSheetWriter({ table: new CsvTable(path), stateDir });
    await again.open();
    expect(await again.accept(change(9) as never)).toBe('duplicate');
    expect(await again.accept(change(2) as never)).toBe('duplicate');
    expect(await again.accept(change(3) as never)).toBe('duplicate');
    await again.close();
    const lines = readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(',')[0]);
    expect(lines).toEqual(['evt_1', 'evt_2', 'evt_9', 'evt_3']);
  });
});
