/**
 * One lock per sheet, whichever door (issue 34, point 5): the spreadsheet itself holds the writer's lease
 * (a hidden sheet, core sheets/lease). Two `company-data enrich` processes, each with its own state folder
 * and lock folder (two machines), and the n8n node's Enrich Rows (n8n's context mocked, jest-mock-extended)
 * started together on one sheet of the Google Sheets stand-in: each query is billed once (the sandbox's usage
 * counter), the tool's columns are made once and every row is written by one run. A lease left by a crashed
 * holder is taken over once expired; a live one refuses before anything is billed; a lease lost mid-run
 * (its sheet deleted, as a person might) stops the writer before it writes. All over real HTTP.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { INodeExecutionData } from 'n8n-workflow';
import { describe, expect, it } from 'vitest';
import { enrichSheet } from '../../../packages/core/sheets/enrich/enrich';
import { withSheetLease } from '../../../packages/core/sheets/lease/lease-locks';
import { leaseCells, leaseSheetName, type LeaseRecord } from '../../../packages/core/sheets/lease/port';
import { systemClock } from '../../../packages/company-data/src/transport/clock';
import { GoogleSheetTable } from '../../../packages/company-data/src/sheets/google-table';
import { PaidAnswers } from '../../../packages/company-data/src/sheets/paid-answers';
import { CompanyDataGoogleSheets } from '../../../nodes/CompanyDataGoogleSheets/CompanyDataGoogleSheets.node';
import { spawnCli, type CliRun } from '../../drills/support/cli';
import { googleExecuteContext } from '../../support/n8n-google-context';
import { listedCodes } from '../../support/sandbox-codes';
import { useSandboxAndSheets } from './support/sandbox-and-sheets';

const w = useSandboxAndSheets('sheet-lease-', { readsPerMinute: 6000, writesPerMinute: 6000 });
const LEASE = leaseSheetName('Leads');
const billedLine = (out: string) => Number(/billed queries: (\d+)/i.exec(out)?.[1] ?? 0);

/** A spreadsheet of `n` leads, shared with a service account whose key file the CLI reads. */
async function spreadsheet(id: string, n: number) {
  const codes = await listedCodes(w.sb, n);
  w.standin.create(id, [{ title: 'Leads', rows: [['Company', 'Registry code'], ...codes.map((c, i) => [`Lead ${i + 1}`, c])] }]);
  const key = w.standin.serviceAccountKey(`lease-${id}@standin.iam.gserviceaccount.com`);
  w.standin.share(id, [key.client_email]);
  const keyFile = join(w.dir, `${id}-key.json`);
  writeFileSync(keyFile, JSON.stringify(key));
  return { id, codes, key, keyFile };
}

type Sheet = Awaited<ReturnType<typeof spreadsheet>>;

/** `company-data enrich` as its own process: its own state folder and lock folder, as on another machine. */
function cliEnrich(s: Sheet, machine: string) {
  const home = join(w.dir, `${s.id}-${machine}`);
  mkdirSync(home, { recursive: true });
  return spawnCli(
    ['enrich', '--spreadsheet', s.id, '--sheet', 'Leads', '--state-dir', join(home, 'state'), '--google-key-file', s.keyFile],
    {
      COMPANY_DATA_BASE_URL: w.sb.url,
      COMPANY_DATA_API_KEY: w.sb.apiKey,
      COMPANY_DATA_SHEETS_ROOT_URL: w.standin.url,
      COMPANY_DATA_LOCK_DIR: join(home, 'locks'),
    },
  ).output;
}

/** The n8n node's Enrich Rows on the same sheet, through its execute() with n8n's context mocked. */
async function n8nEnrich(s: Sheet): Promise<{ json?: Record<string, unknown>; error?: Error }> {
  const { ctx } = googleExecuteContext({
    params: {
      authentication: 'serviceAccount',
      operation: 'enrich',
      spreadsheet: { __rl: true, mode: 'url', value: `https://docs.google.com/spreadsheets/d/${s.id}/edit#gid=0` },
      sheet: { __rl: true, mode: 'list', value: '0' },
      keyColumn: '',
      fields: ['name', 'registry_code', 'status_label'],
      mode: 'missing',
      maxBilledQueries: 0,
      options: { sheetsApiUrl: w.standin.url },
    },
    companyData: { apiKey: w.sb.apiKey, baseUrl: w.sb.url, authStyle: 'xApiKey' },
    serviceAccount: { serviceAccountKey: JSON.stringify(s.key) },
  });
  try {
    const out = (await new CompanyDataGoogleSheets().execute.call(ctx)) as INodeExecutionData[][];
    return { json: out[0]![0]!.json as Record<string, unknown> };
  } catch (error) {
    return { error: error as Error };
  }
}

/** The sheet as objects by header, and its header. */
function rows(id: string, title = 'Leads') {
  const [header = [], ...body] = w.standin.values(id, title).map((r) => r.map(String));
  return { header, rows: body.map((r) => Object.fromEntries(header.map((h, i) => [h, r[i] ?? '']))) };
}

function sheetTitles(id: string): string[] {
  return w.standin.sheetTitles(id);
}

/** Seeds a lease sheet as another door would have made it (hidden, its record in text cells). */
function seedLease(id: string, record: LeaseRecord) {
  w.standin.addSheet(id, { title: LEASE, hidden: true, rows: leaseCells(record) });
}

const cliOk = (r: CliRun) => r.code === 0;
const busyText = /is being written by/;

describe('one lease per sheet, whichever door', () => {
  it('two CLI processes (two machines) and the n8n node started together: each query billed once, each row written by one run', async () => {
    const s = await spreadsheet('lease-together', 150);
    const before = await w.billed();
    const [a, b, n] = await Promise.all([cliEnrich(s, 'machine-a'), cliEnrich(s, 'machine-b'), n8nEnrich(s)]);
    const billed = (await w.billed()) - before;

    // Each run either did its work or was refused, naming who writes the sheet; nothing else went wrong.
    for (const r of [a, b]) if (!cliOk(r)) expect(r.stderr).toMatch(busyText);
    if (n.error) expect(n.error.message).toMatch(busyText);
    const done = [cliOk(a), cliOk(b), !n.error].filter(Boolean).length;
    expect(done).toBeGreaterThan(0);

    // Each distinct query billed once, and what the runs say they billed is what the service counted.
    expect(billed).toBe(150);
    const reported = billedLine(a.stdout) + billedLine(b.stdout) + Number(n.json?.billedQueries ?? 0);
    expect(reported).toBe(billed);

    // One set of the tool's columns (two writers at once would each add theirs), every row enriched for its own key.
    const { header, rows: got } = rows(s.id);
    const ours = header.filter((h) => h.startsWith('company_data_'));
    expect(new Set(ours).size).toBe(ours.length);
    expect(got.map((r) => r.company_data_match_registry_code)).toEqual(s.codes);
    expect(got.map((r) => r['Registry code'])).toEqual(s.codes);
    // Every lease given back.
    expect(sheetTitles(s.id)).toEqual(['Leads']);

    // A rerun from a third machine bills nothing.
    const again = await cliEnrich(s, 'machine-c');
    expect(again.code).toBe(0);
    expect(billedLine(again.stdout)).toBe(0);
    expect((await w.billed()) - before).toBe(150);
  }, 240_000);

  it('a live lease of another door refuses before anything is read or billed, naming it; an expired one (a crashed holder) is taken over', async () => {
    const s = await spreadsheet('lease-expiry', 30);
    const now = Date.now();
    seedLease(s.id, {
      holder: 'addon-run-1',
      who: 'the Google Sheets add-on (ann@example.com)',
      takenAt: now,
      renewedAt: now,
      expiresAt: now + 3_600_000,
    });
    const before = await w.billed();
    const refused = await cliEnrich(s, 'machine-a');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('is being written by the Google Sheets add-on (ann@example.com)');
    const n = await n8nEnrich(s);
    expect(n.error?.message).toContain('is being written by the Google Sheets add-on (ann@example.com)');
    expect((await w.billed()) - before).toBe(0);
    expect(rows(s.id).header).toEqual(['Company', 'Registry code']);

    // The same lease, its holder gone a day ago: taken over, the run goes, and gives the sheet back.
    w.standin.deleteSheet(s.id, LEASE);
    const day = 86_400_000;
    seedLease(s.id, {
      holder: 'cli-crashed',
      who: 'company-data (pid 1 on gone)',
      takenAt: now - day,
      renewedAt: now - day,
      expiresAt: now - day + 120_000,
    });
    const taken = await cliEnrich(s, 'machine-a');
    expect(taken.stderr).toBe('');
    expect(taken.code).toBe(0);
    expect((await w.billed()) - before).toBe(30);
    expect(rows(s.id).rows.map((r) => r.company_data_match_registry_code)).toEqual(s.codes);
    expect(sheetTitles(s.id)).toEqual(['Leads']);
  }, 120_000);

  it('a lease lost mid-run (its sheet deleted by a person) stops the writer before it writes; what was paid is kept', async () => {
    const s = await spreadsheet('lease-lost', 40);
    const stateDir = join(w.dir, 'lost-state');
    const table = new GoogleSheetTable({
      spreadsheetId: s.id,
      sheet: 'Leads',
      auth: { serviceAccountKeyFile: s.keyFile },
      rootUrl: w.standin.url,
    });
    // The lease deleted right after the checks' probe write: the run has paid by the first save.
    w.standin.access.onWrite = (_id, method) => {
      if (method !== 'values.update') return;
      w.standin.access.onWrite = undefined;
      w.standin.deleteSheet(s.id, LEASE);
      afterProbe = JSON.stringify(w.standin.values(s.id, 'Leads'));
    };
    let afterProbe = '';
    const before = await w.billed();
    const err = await enrichSheet({
      table,
      client: w.client,
      fields: ['name', 'registry_code'],
      ports: {
        clock: systemClock,
        answers: (scope) => new PaidAnswers({ ...scope, stateDir }),
        // Renewed before every write (renewEveryMs 0), as the add-on does without a timer: the loss is seen at once.
        locks: withSheetLease(undefined, { clock: systemClock, who: 'test run', renewEveryMs: 0, background: false }),
      },
    }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err?.message).toMatch(/lock: the run stopped writing .* because its lock .* was lost: its lock sheet was deleted or taken over/);
    // Not a cell written after the loss: the sheet is as the probe left it (the same text it held).
    expect(afterProbe).toContain('Lead 40');
    expect(JSON.stringify(w.standin.values(s.id, 'Leads'))).toBe(afterProbe);
    expect(rows(s.id).header.filter((h) => h.startsWith('company_data_'))).toEqual([]);
    const paid = (await w.billed()) - before;
    // The first save waits for answers: some were paid for before the loss was seen.
    expect(paid).toBeGreaterThan(0);
    // A rerun (its lease taken anew) bills nothing for what the lost run paid for.
    const again = await enrichSheet({
      table: new GoogleSheetTable({
        spreadsheetId: s.id,
        sheet: 'Leads',
        auth: { serviceAccountKeyFile: s.keyFile },
        rootUrl: w.standin.url,
      }),
      client: w.client,
      fields: ['name', 'registry_code'],
      ports: {
        clock: systemClock,
        answers: (scope) => new PaidAnswers({ ...scope, stateDir }),
        locks: withSheetLease(undefined, { clock: systemClock, who: 'test rerun' }),
      },
    });
    expect(again.billedQueries + paid).toBe(40);
    expect(rows(s.id).rows.map((r) => r.company_data_match_registry_code)).toEqual(s.codes);
  }, 120_000);
});
