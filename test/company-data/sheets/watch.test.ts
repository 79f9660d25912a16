/**
 * `company-data watch` over real HTTP: the sandbox as the service, a CSV file and the Google Sheets stand-in
 * as the sheet. The first watch (enrich, then the list), a deleted row leaving the list and a new one joining
 * on the next pass, changes appended once to the events sheet, the digest, and the list sync in parts.
 */
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { watchCommand } from '../../../packages/company-data/src/cli/commands/watch';
import { CompanyDataClient } from '../../../packages/company-data/src/index';
import { syncList } from '../../../packages/company-data/src/sheets/watch-list';
import { startEventsSandbox, type EventsSandbox } from '../sandbox/monitoring/support/sandbox';
import { startSheetsStandin, type SheetsStandin } from '../../support/sheets-standin';
import { Colleague } from '../../support/sheets-standin-colleague';
import { PendingChanges, RowChangeWriter } from '../../../packages/company-data/src/sheets/watch-rows';
import { GoogleSheetTable } from '../../../packages/company-data/src/sheets/google-table';
import { runCommand } from '../../support/run-command';
import { inCliWords } from '../../../packages/company-data/src/cli/sheets-errors';

let h: EventsSandbox;
let client: CompanyDataClient;
let standin: SheetsStandin;
let dir: string;
beforeAll(async () => {
  h = await startEventsSandbox({ companies: 50 });
  client = new CompanyDataClient({ baseUrl: h.url, apiKey: h.apiKey });
  standin = await startSheetsStandin();
  dir = mkdtempSync(join(tmpdir(), 'watch-'));
});
afterAll(async () => {
  await client.close();
  await standin.close();
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

async function control(path: string, body: unknown): Promise<unknown> {
  const res = await fetch(`${h.url}${path}`, {
    method: 'POST',
    headers: { 'x-api-key': h.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const j = (await res.json()) as { data: unknown };
  if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(j)}`);
  return j.data;
}
const change = (code: string, category: string, kind: string, details?: Record<string, unknown>) =>
  control('/sandbox/changes', { registry_code: code, category, kind, ...(details ? { details } : {}) });

async function members(listId: string): Promise<{ registry_code: string; external_ref?: string | null }[]> {
  return (await client.collectAll(client.ops.monitoring.listCompanies, { list_id: listId }, { max: 10_000 })).items;
}
async function listNamed(name: string): Promise<string> {
  const lists = (await client.monitoring.lists()).data as { id: string; name: string }[];
  return lists.find((l) => l.name === name)!.id;
}
const billed = async () => {
  const u = await client.reference.usage();
  return (u.data as { billed_lookup_queries?: number }).billed_lookup_queries ?? 0;
};

const rows = (file: string) => parse(readFileSync(file, 'utf8')) as string[][];
const api = () => ['--base-url', h.url, '--api-key', h.apiKey];

describe('company-data watch, a CSV file', () => {
  it('first watch, then a deleted row leaves and a new row joins; changes appended once; the digest', async () => {
    const file = join(dir, 'leads.csv');
    const state = join(dir, 'state-csv');
    const [a, b, c, d, e, f] = h.codes;
    writeFileSync(file, `Registry code;Owner\n${a};Mari\n${b};Jaan\n${c};Mari\n${d};\nnot a code at all;Jaan\n`);
    const run = (...extra: string[]) => runCommand(watchCommand(), [file, '--once', '--state-dir', state, ...api(), ...extra]);

    const before = await billed();
    const first = await run();
    expect(first.out).toMatch(/List "File leads\.csv" \(lst_\w+, made now\): added 4, removed 0, kept 0/);
    // The name row is looked up (and billed) too; without a match it is no company of the list.
    expect(await billed()).toBe(before + 5);
    const listId = await listNamed('File leads.csv');
    expect((await members(listId)).map((m) => [m.registry_code, m.external_ref]).sort()).toEqual(
      [a, b, c, d].map((code) => [code, 'file:leads.csv']).sort(),
    );
    // The person's column is untouched; the enrich columns are there.
    const rows = parse(readFileSync(file, 'utf8'), { delimiter: ';' }) as string[][];
    expect(rows[0]!.slice(0, 3)).toEqual(['Registry code', 'Owner', 'company_data_status']);
    expect(rows.slice(1).map((r) => r[1])).toEqual(['Mari', 'Jaan', 'Mari', '', 'Jaan']);

    // Nothing changed: nothing billed, nothing sent to the list.
    const again = await run();
    expect(again.out).toContain('Every row is enriched already (nothing billed)');
    expect(again.out).toMatch(/added 0, removed 0, kept 4/);
    expect(await billed()).toBe(before + 5);

    // A colleague deletes b's row and adds e and f: b leaves the list, e and f join; only e and f are billed.
    const kept = readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => !l.startsWith(`${b};`));
    writeFileSync(file, [...kept.filter(Boolean), `${e};Kati`, `${f};Kati`, ''].join('\n'));
    const third = await run();
    expect(third.out).toMatch(/added 2, removed 1, kept 3/);
    expect(await billed()).toBe(before + 7);
    expect((await members(listId)).map((m) => m.registry_code).sort()).toEqual([a, c, d, e, f].sort());

    // Changes: a's tax debt (bad), c's new name (neutral), and b's (no longer watched): only the first two.
    await change(a!, 'tax', 'tax_debt');
    await change(c!, 'registry', 'name_changed');
    await change(b!, 'court', 'court_case');
    const digestFile = join(dir, 'digest.txt');
    const fourth = await run('--digest', digestFile, '--lang', 'et');
    expect(fourth.out).toContain('Changes appended to "Company changes": 2; already stored: 0');
    const events = parse(readFileSync(join(dir, 'leads - Company changes.csv'), 'utf8')) as string[][];
    expect(events).toHaveLength(3);
    const codeAt = events[0]!.indexOf('registry_code');
    expect(events.slice(1).map((r) => r[codeAt])).toEqual([a, c]);
    const digest = readFileSync(digestFile, 'utf8');
    expect(digest.split('\n')[0]).toBe('*Company Data: 2 muudatust 2 ettevõttes*');
    expect(digest.indexOf('🔴 Maksuvõlg')).toBeGreaterThan(0);
    expect(digest.indexOf('🔴')).toBeLessThan(digest.indexOf('⚪ Nimi'));

    // The next pass: the same changes are not appended again, and the digest is empty.
    const fifth = await run('--digest', digestFile);
    expect(fifth.out).toContain('Changes appended to "Company changes": 0');
    expect(readFileSync(digestFile, 'utf8')).toBe('');
    const stdout = await run('--digest', '-');
    expect(stdout.out).not.toContain('*Company Data');
  });

  it('refuses to enrich more than --max-billed-queries before anything is sent', async () => {
    const file = join(dir, 'capped.csv');
    writeFileSync(file, `Registry code\n${h.codes.slice(10, 15).join('\n')}\n`);
    const before = await billed();
    // What the CLI prints (its one wording of the engine's errors, in main.ts).
    const said = await runCommand(watchCommand(), [
      file,
      '--once',
      '--state-dir',
      join(dir, 'state-cap'),
      '--max-billed-queries',
      '2',
      ...api(),
    ]).then(() => 'no error', inCliWords);
    expect(said).toMatch(
      /^max-billed-queries: is 2, but this run would bill 5 unique queries\. Raise --max-billed-queries, or enrich fewer rows/,
    );
    expect(await billed()).toBe(before);
  });
});

describe('company-data watch, an XLSX workbook', () => {
  it('watches one sheet of the workbook, leaves the others, and writes a change into its row', async () => {
    const file = join(dir, 'book.xlsx');
    const [a, b] = h.codes.slice(30);
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('Leads');
    ws.addRow(['Registry code', 'Owner']);
    ws.addRow([a, 'Mari']);
    ws.addRow([b, 'Jaan']);
    wb.addWorksheet('Notes').addRow(['keep me']);
    await wb.xlsx.writeFile(file);
    const run = () => runCommand(watchCommand(), [file, '--sheet', 'Leads', '--once', '--state-dir', join(dir, 'state-xlsx'), ...api()]);
    expect((await run()).out).toMatch(/List "File book\.xlsx \/ Leads" \(lst_\w+, made now\): added 2, removed 0, kept 0/);
    await change(b!, 'registry', 'name_changed', { new: 'Beeta Uus OÜ' });
    expect((await run()).out).toMatch(/Rows updated: 1/);
    const back = new ExcelJS.Workbook();
    await back.xlsx.readFile(file);
    const sheet = back.getWorksheet('Leads')!;
    const head = (sheet.getRow(1).values as unknown[]).slice(1).map(String);
    expect(sheet.getCell(3, head.indexOf('company_data_match_name') + 1).value).toBe('Beeta Uus OÜ');
    expect(sheet.getCell(2, head.indexOf('company_data_last_change') + 1).value ?? null).toBeNull();
    expect(back.getWorksheet('Notes')!.getCell(1, 1).value).toBe('keep me');
    expect(rows(join(dir, 'book - Company changes.csv'))).toHaveLength(2);
  });
});

describe('company-data watch, a Google sheet', () => {
  it('takes the sheet address, names the list after spreadsheet and sheet, appends to the events sheet', async () => {
    const id = 'watchSheet1';
    const [a, b] = h.codes.slice(20);
    // No "Company changes" sheet yet: watch adds it.
    standin.create(id, [
      {
        title: 'Leads',
        rows: [
          ['Company', 'Registry code'],
          ['One', a!],
          ['Two', b!],
        ],
      },
    ]);
    const args = [
      '--spreadsheet',
      `https://docs.google.com/spreadsheets/d/${id}/edit#gid=0`,
      '--sheet',
      'Leads',
      '--once',
      '--state-dir',
      join(dir, 'state-google'),
      '--google-token',
      standin.accessToken,
      '--sheets-root-url',
      standin.url,
      ...api(),
    ];
    const n0 = standin.calls.length;
    const first = await runCommand(watchCommand(), args);
    expect(first.err).toContain('Added the sheet "Company changes"');
    // The first watch's Google requests: the events sheet made with its header in one, enrich's (read, metadata,
    // write-access probe, read before and after its save, the save), and no read of the sheet after enrich; around
    // them the two sheets' leases, each made and deleted (a spreadsheets.batchUpdate each): the events sheet's first.
    expect(standin.calls.slice(n0).map((c) => c.method)).toEqual([
      'spreadsheets.batchUpdate',
      'spreadsheets.batchUpdate',
      'spreadsheets.batchUpdate',
      'values.get',
      'spreadsheets.get',
      'values.update',
      'values.batchGet',
      'values.batchUpdate',
      'values.batchGet',
      'spreadsheets.batchUpdate',
      'spreadsheets.batchUpdate',
    ]);
    expect(standin.values(id, 'Company changes')[0]!.slice(0, 3)).toEqual(['event_id', 'type', 'created_at']);
    expect(first.out).toMatch(/List "Sheet watchSheet1 \/ Leads" \(lst_\w+, made now\): added 2, removed 0, kept 0/);
    const listId = await listNamed('Sheet watchSheet1 / Leads');
    expect((await members(listId)).map((m) => m.external_ref)).toEqual(['gsheet:watchSheet1#Leads', 'gsheet:watchSheet1#Leads']);
    await change(b!, 'tax', 'tax_debt');
    const second = await runCommand(watchCommand(), args);
    expect(second.err).not.toContain('Added the sheet');
    expect(second.out).toMatch(/added 0, removed 0, kept 2/);
    const events = standin.values(id, 'Company changes');
    expect(events).toHaveLength(2);
    expect(events[1]).toContain(b);
    // The state folder lost (another machine): the events sheet is there, so an earlier watch may have made the
    // list: it is looked up by name and kept, not made a second time.
    const elsewhere = args.map((a) => (a === join(dir, 'state-google') ? join(dir, 'state-google-lost') : a));
    const third = await runCommand(watchCommand(), elsewhere);
    expect(third.out).toMatch(/\(lst_\w+\): added 0, removed 0, kept 2/);
    const named = ((await client.monitoring.lists()).data as { name: string }[]).filter((l) => l.name === 'Sheet watchSheet1 / Leads');
    expect(named).toHaveLength(1);
  });
});

describe('company-data watch, changes into their rows', () => {
  it("each change goes to its company's row(s) although a colleague sorts and inserts while it writes; once; never a person's column", async () => {
    const id = 'rowsSheet';
    const [a, b, c, d] = h.codes.slice(40);
    standin.create(id, [
      {
        title: 'Leads',
        rows: [
          ['Company', 'Registry code', 'Owner'],
          ['Alfa', a!, 'Mari'],
          ['Beeta', b!, 'Jaan'],
          ['Gamma', c!, 'Kati'],
          ['Delta', d!, 'Mari'],
          ['Alfa again', a!, 'Jaan'],
        ],
      },
    ]);
    const args = [
      '--spreadsheet',
      id,
      '--sheet',
      'Leads',
      '--once',
      '--state-dir',
      join(dir, 'state-rows'),
      '--google-token',
      standin.accessToken,
      '--sheets-root-url',
      standin.url,
      ...api(),
    ];
    await runCommand(watchCommand(), args);
    await change(a!, 'registry', 'name_changed', { new: 'Alfa Uus OÜ' });
    await change(b!, 'registry', 'status_changed', { old: 'R', new: 'L' });
    await change(c!, 'tax', 'tax_debt');
    // A colleague sorts by Company (Z→A) just before the rows are written, and inserts a row just before the check.
    const colleague = new Colleague(standin, id, 'Leads');
    colleague.before('values.batchUpdate', (x) => x.sortBy(0, 'desc'));
    colleague.before('values.batchGet', (x) => x.insertRow(2, ['Epsilon', '', 'Tiit']), 2);
    const second = await runCommand(watchCommand(), args);
    expect(colleague.done).toEqual(expect.arrayContaining([expect.stringMatching(/^sort/), 'insert row 2']));
    expect(second.out).toMatch(/Rows updated: \d+/);
    const grid = standin.values(id, 'Leads').map((r) => r.map(String));
    const head = grid[0]!;
    const col = (name: string) => head.indexOf(name);
    const byCompany = (name: string) => grid.filter((r) => r[0] === name);
    for (const r of byCompany('Alfa').concat(byCompany('Alfa again'))) {
      expect(r[col('company_data_match_name')]).toBe('Alfa Uus OÜ');
      expect(r[col('company_data_last_change')]).toMatch(/^Name of .* changed from .* to Alfa Uus OÜ$/);
      expect(r[col('company_data_last_event_id')]).toMatch(/^evt_\d+$/);
      expect(r[col('company_data_changed_at')]).toMatch(/^\d{4}-\d\d-\d\dT/);
    }
    const [beeta] = byCompany('Beeta');
    // enrich's default fields have the label, not the code: only columns the sheet has are written.
    expect(col('company_data_match_status')).toBe(-1);
    expect(beeta![col('company_data_match_status_label')]).toBe('In liquidation');
    expect(byCompany('Gamma')[0]![col('company_data_last_change')]).toMatch(/^Tax debt of /);
    // No change for Delta, and none for the row the colleague inserted; the people's columns are as they were.
    expect(byCompany('Delta')[0]![col('company_data_last_change')] ?? '').toBe('');
    expect(byCompany('Epsilon')[0]![col('company_data_last_event_id')] ?? '').toBe('');
    expect(Object.fromEntries(grid.slice(1).map((r) => [r[0], r[2]]))).toEqual({
      Epsilon: 'Tiit',
      Delta: 'Mari',
      Gamma: 'Kati',
      Beeta: 'Jaan',
      'Alfa again': 'Jaan',
      Alfa: 'Mari',
    });

    // The same changes again (a redelivery, a restart that lost its record): the rows stay as they are.
    const events: unknown[] = [];
    for await (const e of client.iterateEvents({})) if ([a, b, c].includes(e.data.company.registry_code)) events.push(e);
    const table = new GoogleSheetTable({
      spreadsheetId: id,
      sheet: 'Leads',
      auth: { accessToken: standin.accessToken },
      rootUrl: standin.url,
    });
    const again = await new RowChangeWriter(table, { lang: 'en' }).apply(events);
    expect(again).toMatchObject({ rows: 0, notInSheet: 0 });
    expect(standin.values(id, 'Leads').map((r) => r.map(String))).toEqual(grid);
    // An older change after a newer one does not win.
    await change(a!, 'registry', 'name_changed', { new: 'Alfa Uuem OÜ' });
    const third = await runCommand(watchCommand(), args);
    expect(third.out).toMatch(/Rows updated: 2/);
    const older = events.find((e) => (e as { data: { kind: string } }).data.kind === 'name_changed')!;
    await new RowChangeWriter(table, { lang: 'en' }).apply([older]);
    const nameCol = standin.values(id, 'Leads')[0]!.map(String).indexOf('company_data_match_name');
    expect(
      standin
        .values(id, 'Leads')
        .filter((r) => String(r[0]).startsWith('Alfa'))
        .map((r) => r[nameCol]),
    ).toEqual(['Alfa Uuem OÜ', 'Alfa Uuem OÜ']);
  });

  it('a change of a company whose row was deleted goes to the events sheet only', async () => {
    const file = join(dir, 'gone.csv');
    const [a, b] = h.codes.slice(45);
    writeFileSync(file, `Registry code\n${a}\n${b}\n`);
    const run = () => runCommand(watchCommand(), [file, '--once', '--state-dir', join(dir, 'state-gone'), ...api()]);
    await run();
    await change(b!, 'court', 'court_case');
    writeFileSync(
      file,
      readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => !l.startsWith(b!))
        .join('\n'),
    );
    const second = await run();
    expect(second.out).toMatch(/removed 1, kept 1/);
    expect(second.out).toContain('Changes appended to "Company changes": 1');
    expect(second.out).toContain('changes of companies no longer in the sheet (events sheet only): 1');
    const rows = parse(readFileSync(file, 'utf8')) as string[][];
    expect(rows.map((r) => r[0])).toEqual(['Registry code', a]);
    expect(rows[1]![rows[0]!.indexOf('company_data_last_event_id')] ?? '').toBe('');
  });
});

describe('changes into rows, batched', () => {
  it('1,000 changes into a 10,000-row sheet in 3 Google requests (read, write, check); the same again writes nothing', async () => {
    const codes = Array.from({ length: 10_000 }, (_, i) => String(10_000_000 + i));
    standin.create('bigRows', [
      {
        title: 'Leads',
        rows: [
          ['Company', 'company_data_status', 'company_data_match_registry_code', 'company_data_match_name'],
          ...codes.map((c) => [`Firma ${c}`, 'matched', c, 'Old']),
        ],
      },
    ]);
    const events = codes.slice(0, 1000).map((c, i) => ({
      id: `evt_${i + 1}`,
      type: 'monitoring.change',
      data: {
        company: { registry_code: c, name: 'Old' },
        kind: 'name_changed',
        tone: 'neutral',
        details: { old: 'Old', new: `New ${i}` },
        detected_at: '2026-11-20T05:00:00Z',
      },
    }));
    const table = new GoogleSheetTable({
      spreadsheetId: 'bigRows',
      sheet: 'Leads',
      auth: { accessToken: standin.accessToken },
      rootUrl: standin.url,
    });
    const { header } = await table.read();
    const n0 = standin.calls.length;
    expect(await new RowChangeWriter(table, { lang: 'en' }).apply(events, header)).toEqual({
      changes: 1000,
      rows: 1000,
      notInSheet: 0,
      restored: 0,
    });
    expect(standin.calls.slice(n0).map((c) => c.method)).toEqual(['values.batchGet', 'values.batchUpdate', 'values.batchGet']);
    const grid = standin.values('bigRows', 'Leads');
    expect(grid[1]!.slice(3).map(String)).toEqual([
      'New 0',
      'Name of Old (10000000) changed from Old to New 0',
      '2026-11-20T05:00:00Z',
      'evt_1',
    ]);
    expect(grid[1001]![3]).toBe('Old');
    const n1 = standin.calls.length;
    expect((await new RowChangeWriter(table, { lang: 'en' }).apply(events, header)).rows).toBe(0);
    // The header given is from before the columns were added: read again by the new one, nothing written.
    expect(standin.calls.slice(n1).map((c) => c.method)).toEqual(['values.batchGet', 'values.batchGet']);
  });
});

describe('changes waiting for their rows', () => {
  it('survive a restart and a torn last line; once applied, the file starts afresh', () => {
    const stateDir = join(dir, 'state-pending');
    const ev = (n: number) => ({ id: `evt_${n}`, type: 'monitoring.change', data: { company: { registry_code: '10000001', name: 'X' } } });
    const first = new PendingChanges(stateDir, 'file:/x.csv');
    first.add([ev(1), ev(2)]);
    first.add([ev(2)]);
    first.close();
    // A process killed while writing a line leaves part of it.
    const path = readdirSync(stateDir).map((f) => join(stateDir, f))[0]!;
    appendFileSync(path, '{"event":{"id":"evt_3"');
    const again = new PendingChanges(stateDir, 'file:/x.csv');
    expect(again.waiting().map((e) => (e as { id: string }).id)).toEqual(['evt_1', 'evt_2']);
    again.settle(['evt_1']);
    expect(again.waiting().map((e) => (e as { id: string }).id)).toEqual(['evt_2']);
    again.add([ev(4)]);
    again.settle(['evt_2', 'evt_4']);
    expect(again.waiting()).toEqual([]);
    expect(readFileSync(path, 'utf8')).toBe('');
    again.close();
  });
});

describe('the list sync in parts', () => {
  it('parts of a lowered size; a removal replaces with the kept companies first; the list ends exact', async () => {
    const stateDir = join(dir, 'state-parts');
    const codes = h.codes.slice(0, 7);
    const base = { client, listName: 'Parts', externalRef: 'gsheet:parts#S', stateDir, tableId: 'gsheet:parts#S', partSize: 3 };
    const first = await syncList({ ...base, codes });
    expect(first).toMatchObject({ created: true, added: 7, removed: 0, kept: 0, partRequests: 3 });
    expect((await members(first.listId)).map((m) => m.registry_code).sort()).toEqual([...codes].sort());
    // Found again by its id; nothing to do: no part sent.
    const same = await syncList({ ...base, codes });
    expect(same).toMatchObject({ listId: first.listId, created: false, added: 0, removed: 0, kept: 7, partRequests: 0, requests: 1 });
    // One gone, one new: replace with the kept first, in parts.
    const next = [...codes.slice(1), h.codes[30]!];
    const moved = await syncList({ ...base, codes: next });
    expect(moved).toMatchObject({ added: 1, removed: 1, kept: 6, partRequests: 3 });
    expect((await members(first.listId)).map((m) => m.registry_code).sort()).toEqual([...next].sort());
    // A lost state folder: the list is found by name and its members read, so the counts stay true.
    const lost = await syncList({ ...base, stateDir: join(dir, 'state-parts-lost'), codes: next });
    expect(lost).toMatchObject({ listId: first.listId, created: false, added: 0, removed: 0, kept: 7, partRequests: 0 });
    // A first watch (the caller knows no earlier watch made a list): made without looking for one of its name.
    const fresh = await syncList({ ...base, listName: 'Parts, first', stateDir: join(dir, 'state-parts-first'), codes, firstWatch: true });
    expect(fresh).toMatchObject({ created: true, added: 7, partRequests: 3, requests: 4 });
    // With a state, the list it names is looked for as always, first watch or not.
    const known = await syncList({ ...base, listName: 'Parts, first', stateDir: join(dir, 'state-parts-first'), codes, firstWatch: true });
    expect(known).toMatchObject({ listId: fresh.listId, created: false, kept: 7, partRequests: 0, requests: 1 });
    // An unknown code is reported, not kept as a member.
    const bad = await syncList({ ...base, codes: [...next, '10000018'] });
    expect(bad.invalid.map((i) => i.registry_code)).toEqual(['10000018']);
  });
});
