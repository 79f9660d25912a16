/**
 * Check before paying, and stop paying after a refused save (issue 22, points 3 and 5), over real HTTP:
 * the sandbox answers and counts billed queries, the Google Sheets stand-in keeps roles, protected
 * ranges, the 10,000,000-cell limit and credentials, and lets a test change them while a run is going on.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withRegistryCheckDigit } from '@company-data/core/validation';
import { enrichCommand } from '../../../packages/company-data/src/cli/commands/enrich';
import { CompanyDataClient } from '../../../packages/company-data/src/index';
import { enrichTable, reportOfFailedRun } from '../../../packages/company-data/src/sheets/enrich';
import { GoogleSheetTable } from '../../../packages/company-data/src/sheets/google-table';
import { PreflightError } from '../../../packages/company-data/src/sheets/preflight';
import type { SheetsStandin } from '../../support/sheets-standin';
import { useSandboxAndSheets, type Sandbox } from './support/sandbox-and-sheets';
import { CELL_LIMIT, MESSAGES } from '../../support/sheets-standin-permissions';

const world = useSandboxAndSheets('preflight-', { readsPerMinute: 600, writesPerMinute: 600 });
let sb: Sandbox;
let standin: SheetsStandin;
let client: CompanyDataClient;
/** Two lookup requests a second: a run of N queries lasts N / 200 s, far longer than the first saves take. */
let slowClient: CompanyDataClient;
let dir: string;
let keyFile: string;
const BOT = 'enrich-bot@proj.iam.gserviceaccount.com';

beforeAll(async () => {
  ({ sb, standin, client, dir } = world);
  slowClient = new CompanyDataClient({ baseUrl: sb.url, apiKey: sb.apiKey, rateLimit: { requests: 2, perMs: 1000 } });
  keyFile = join(dir, 'key.json');
  writeFileSync(keyFile, JSON.stringify(standin.serviceAccountKey(BOT)));
});
afterAll(async () => {
  await slowClient.close();
});

const billed = () => world.billed();

/** Distinct registry codes with valid check digits (most unknown to the sandbox: billed as no_match). */
const codes = (n: number, from = 0) => Array.from({ length: n }, (_, i) => withRegistryCheckDigit(String(1_900_000 + from + i)));

let sheetNo = 0;
/** A spreadsheet with a Leads sheet of `n` codes (plus any other sheets), shared with the bot as `role`. */
function leads(
  n: number,
  opts: { role?: 'owner' | 'writer' | 'reader'; cols?: number; others?: { title: string; rowCount: number; columnCount: number }[] } = {},
) {
  const id = `pf${++sheetNo}`;
  standin.create(id, [
    { title: 'Leads', rows: [['Registry code', 'note'], ...codes(n).map((c) => [c, 'x'])], rowCount: n + 1, columnCount: opts.cols ?? 26 },
    ...(opts.others ?? []),
  ]);
  standin.access.setRole(id, 'owner@example.com', 'owner');
  standin.access.setRole(id, BOT, opts.role ?? 'writer');
  return id;
}

const sheet = (id: string, title = 'Leads') =>
  new GoogleSheetTable({ spreadsheetId: id, sheet: title, auth: { serviceAccountKeyFile: keyFile }, rootUrl: standin.url });

/** The sheet's values, trailing empty cells left out (as Google answers them). */
const snapshot = (id: string, title = 'Leads') =>
  JSON.stringify(
    standin.values(id, title).map((r) => {
      const row = r.map(String);
      while (row.length && row[row.length - 1] === '') row.pop();
      return row;
    }),
  );

/** Runs the CLI in-process; keeps what it printed also when it fails. */
async function cli(args: string[]): Promise<{ out: string; error?: Error; exitCode: number }> {
  let out = '';
  const o = process.stdout.write.bind(process.stdout);
  const e = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((s: string) => ((out += s), true)) as typeof process.stdout.write;
  process.stderr.write = (() => true) as typeof process.stderr.write;
  const before = process.exitCode;
  let error: Error | undefined;
  try {
    await enrichCommand().exitOverride().parseAsync(args, { from: 'user' });
  } catch (err) {
    error = err as Error;
  } finally {
    process.stdout.write = o;
    process.stderr.write = e;
  }
  const exitCode = Number(process.exitCode ?? 0);
  process.exitCode = before;
  return { out, exitCode, ...(error ? { error } : {}) };
}

const cliArgs = (id: string, state: string, title = 'Leads') => [
  '--spreadsheet',
  id,
  '--sheet',
  title,
  '--google-key-file',
  keyFile,
  '--sheets-root-url',
  standin.url,
  '--base-url',
  sb.url,
  '--api-key',
  sb.apiKey,
  '--fields',
  'name',
  '--state-dir',
  join(dir, state),
];

/** A real run that must be refused before paying: nothing billed, no cell changed, the failed checks in the error. */
async function refusedBeforePaying(id: string, title = 'Leads'): Promise<PreflightError> {
  const b0 = await billed();
  const before = snapshot(id, title);
  const err = await enrichTable({ table: sheet(id, title), client, fields: ['name'], stateDir: join(dir, `s-${id}`) }).catch(
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PreflightError);
  expect((err as Error).message).toMatch(/Nothing was sent and nothing was billed\.$/);
  expect(await billed()).toBe(b0);
  expect(snapshot(id, title)).toBe(before);
  return err as PreflightError;
}

describe('the stand-in behaves like Google', () => {
  it('a reader reads but every write is refused with 403; spreadsheets.get shows protection as the caller sees it, filtered by fields', async () => {
    const id = leads(2, { role: 'reader' });
    standin.access.protect(id, { range: { sheetId: 0, startColumnIndex: 0, endColumnIndex: 1 }, description: 'codes', editors: [BOT] });
    const t = sheet(id);
    expect((await t.read()).rows).toHaveLength(2);
    const res = await fetch(`${standin.url}v4/spreadsheets/${id}/values/'Leads'!C1?valueInputOption=RAW`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${standin.accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ values: [['x']] }),
    });
    // The stand-in's access token is another user ('oauth-user'), with no role here.
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ error: { code: 403, message: MESSAGES.denied, status: 'PERMISSION_DENIED' } });

    const get = async (user: string, fields: string) => {
      standin.access.setRole(id, 'oauth-user', user === 'owner' ? 'owner' : 'reader');
      const r = await fetch(`${standin.url}v4/spreadsheets/${id}?fields=${encodeURIComponent(fields)}`, {
        headers: { authorization: `Bearer ${standin.accessToken}` },
      });
      return (await r.json()) as { sheets: { protectedRanges?: Record<string, unknown>[]; properties?: unknown }[] };
    };
    const asOwner = await get('owner', 'sheets.protectedRanges');
    expect(asOwner).toEqual({
      sheets: [
        {
          protectedRanges: [
            {
              protectedRangeId: expect.any(Number),
              range: { sheetId: 0, startColumnIndex: 0, endColumnIndex: 1 },
              description: 'codes',
              requestingUserCanEdit: true,
              editors: { users: [BOT] },
            },
          ],
        },
      ],
    });
    const asReader = await get('reader', 'sheets(properties(title),protectedRanges(requestingUserCanEdit,editors))');
    expect(asReader.sheets[0]).toEqual({ properties: { title: 'Leads' }, protectedRanges: [{ requestingUserCanEdit: false }] });
  });

  it('a write touching a protected cell is refused whole; growth past 10,000,000 cells over all sheets is refused', async () => {
    const id = leads(2, { cols: 3, others: [{ title: 'Big', rowCount: 999_990, columnCount: 10 }] });
    standin.access.protect(id, { range: { sheetId: 0, startColumnIndex: 2, endColumnIndex: 3 }, editors: ['owner@example.com'] });
    standin.access.setRole(id, 'oauth-user', 'writer');
    const call = (path: string, body: unknown) =>
      fetch(`${standin.url}v4/spreadsheets/${id}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${standin.accessToken}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as { error?: { message: string; status: string } } }));
    const before = snapshot(id);
    const refused = await call('/values:batchUpdate', {
      valueInputOption: 'RAW',
      data: [
        { range: "'Leads'!B1", values: [['free']] },
        { range: "'Leads'!C2", values: [['protected']] },
      ],
    });
    expect(refused).toEqual({ status: 403, body: { error: { code: 403, message: MESSAGES.protected, status: 'PERMISSION_DENIED' } } });
    expect(snapshot(id)).toBe(before);
    // 999,990 × 10 + 3 × 3 cells = 9,999,909: 40 more columns of 3 rows are 29 cells too many, 1 more fits.
    expect(999_990 * 10 + 9 + 40 * 3).toBeGreaterThan(CELL_LIMIT);
    const grow = await call(':batchUpdate', { requests: [{ appendDimension: { sheetId: 0, dimension: 'COLUMNS', length: 40 } }] });
    expect(grow).toEqual({ status: 400, body: { error: { code: 400, message: MESSAGES.cellLimit, status: 'INVALID_ARGUMENT' } } });
    expect((await call(':batchUpdate', { requests: [{ appendDimension: { sheetId: 0, dimension: 'COLUMNS', length: 1 } }] })).status).toBe(
      200,
    );
  });
});

describe('check before paying', () => {
  it('view-only sharing: nothing billed, the message names the client_email to share with as an Editor', async () => {
    const err = await refusedBeforePaying(leads(3, { role: 'reader' }));
    expect(err.message).toMatch(
      new RegExp(
        `^write access: ${BOT} can only view the spreadsheet: share it with ${BOT} as an Editor \\(Share in Google Sheets\\), then run again`,
      ),
    );
  });

  it('a protected output column: nothing billed, the message names the cell, the range and what to ask for', async () => {
    const id = leads(3);
    // Column C is where the run puts company_data_status, the first of its own columns.
    standin.access.protect(id, {
      range: { sheetId: 0, startColumnIndex: 2, endColumnIndex: 3 },
      description: 'Finance only',
      editors: ['owner@example.com'],
    });
    const err = await refusedBeforePaying(id);
    expect(err.message).toMatch(
      new RegExp(
        `^protected ranges: cell C1 \\(column "company_data_status"\\) is in a protected range \\("Finance only"\\) that ${BOT} cannot edit: ask the spreadsheet's owner to add ${BOT} to that range's editors`,
      ),
    );
    expect(err.checks.find((c) => c.check === 'write access')?.ok).toBe(true);
  });

  it('protection that does not refuse the cells written passes: warning-only, the key column, a protected sheet with holes, the bot as editor', async () => {
    const id = leads(3);
    standin.access.protect(id, { range: { sheetId: 0, startColumnIndex: 2, endColumnIndex: 3 }, warningOnly: true });
    standin.access.protect(id, { range: { sheetId: 0, startColumnIndex: 0, endColumnIndex: 2 }, editors: ['owner@example.com'] });
    standin.access.protect(id, { range: { sheetId: 0, startColumnIndex: 3, endColumnIndex: 4 }, editors: [BOT] });
    standin.access.protect(id, {
      range: { sheetId: 0 },
      namedRange: 'whole',
      editors: ['owner@example.com'],
      unprotectedRanges: [{ startColumnIndex: 2, endColumnIndex: 8 }],
    });
    const b0 = await billed();
    const r = await enrichTable({ table: sheet(id), client, fields: ['name'], stateDir: join(dir, 's-holes') });
    expect(r.checks?.map((c) => [c.check, c.ok])).toEqual([
      ['sheet', true],
      ['cell limit', true],
      ['protected ranges', true],
      ['write access', true],
    ]);
    expect(await billed()).toBe(b0 + 3);
    expect(standin.values(id, 'Leads')[0]).toEqual([
      'Registry code',
      'note',
      'company_data_status',
      'company_data_query',
      'company_data_reason',
      'company_data_match_name',
      'company_data_enriched_at',
    ]);
  });

  it("every column the run writes is checked (company_data_reason too); an old version's bare columns, never written, are not", async () => {
    const id = leads(3);
    // Column E is company_data_reason (after company_data_status and company_data_query); its header cell is free.
    standin.access.protect(id, {
      range: { sheetId: 0, startRowIndex: 1, startColumnIndex: 4, endColumnIndex: 5 },
      editors: ['owner@example.com'],
    });
    const err = await refusedBeforePaying(id);
    expect(err.message).toMatch(/^protected ranges: cell E2 \(column "company_data_reason"\) is in a protected range/);

    // A sheet the version before issue 22 enriched: its bare "name" column is a person's now, protected; two
    // rows done by it (their answers not free here: they keep their old columns) and one new row.
    const old = `pf${++sheetNo}`;
    const [a, b, c] = codes(3, 500);
    standin.create(old, [
      {
        title: 'Leads',
        rows: [
          ['Registry code', 'name', 'enrich_status', 'enriched_at'],
          [a!, 'Kept by a person', 'no_match', '2026-01-01T00:00:00Z'],
          [b!, '', 'no_match', '2026-01-01T00:00:00Z'],
          [c!],
        ],
      },
    ]);
    standin.access.setRole(old, BOT, 'writer');
    standin.access.protect(old, { range: { sheetId: 0, startColumnIndex: 1, endColumnIndex: 2 }, editors: ['owner@example.com'] });
    const b0 = await billed();
    const r = await enrichTable({ table: sheet(old), client, fields: ['name'], stateDir: join(dir, 's-old') });
    expect(r.checks?.every((ch) => ch.ok)).toBe(true);
    expect(await billed()).toBe(b0 + 1);
    expect(r.legacyRows).toBe(2);
    expect(standin.values(old, 'Leads').map((row) => String(row[1] ?? ''))).toEqual(['name', 'Kept by a person', '', '']);
  });

  it('a spreadsheet near the 10,000,000-cell limit (all sheets count): nothing billed, says what to delete', async () => {
    // 999,998 × 10 + 4 rows × 3 columns = 9,999,992 cells, and the run's lease sheet, one cell: 9,999,993; the run's
    // 5 columns need 4 more of 4 rows (the grid's third column is empty): 16 cells, 9 too many.
    const id = leads(3, { cols: 3, others: [{ title: 'Archive', rowCount: 999_998, columnCount: 10 }] });
    const err = await refusedBeforePaying(id);
    expect(err.message).toMatch(
      /^cell limit: adding 4 columns to sheet "Leads" needs 16 more cells, but the spreadsheet already holds 9,999,993 of Google's 10,000,000 \(every sheet's rows × columns count, empty ones too\): delete empty rows or columns in any of its sheets, or copy this sheet into a new spreadsheet/,
    );
  });

  it('a sheet titled Q1 is checked and enriched; an unknown title lists the sheets that exist, before anything is billed', async () => {
    const id = `pf${++sheetNo}`;
    standin.create(id, [
      { title: 'Summary', rows: [['total']] },
      { title: 'Q1', rows: [['Registry code'], ...codes(2).map((c) => [c])] },
    ]);
    const b0 = await billed();
    const r = await enrichTable({ table: sheet(id, 'Q1'), client, fields: ['name'], stateDir: join(dir, 's-q1') });
    expect(r.checks?.[0]).toEqual({ check: 'sheet', ok: true, text: '"Q1" found (the spreadsheet has 2 sheets)' });
    expect(await billed()).toBe(b0 + 2);
    expect(standin.values(id, 'Summary')).toEqual([['total']]);
    await expect(enrichTable({ table: sheet(id, 'Q2'), client, stateDir: join(dir, 's-q2') })).rejects.toThrow(
      /no sheet named "Q2" in spreadsheet pf\d+; its sheets are "Summary", "Q1"/,
    );
    expect(await billed()).toBe(b0 + 2);
  });

  it('--dry-run shows the same checks, pass or fail, changes no cell and bills nothing', async () => {
    const viewOnly = leads(2, { role: 'reader' });
    const protectedCol = leads(2);
    standin.access.protect(protectedCol, { range: { sheetId: 0, startColumnIndex: 2, endColumnIndex: 3 }, editors: [] });
    const full = leads(2, { cols: 2, others: [{ title: 'Archive', rowCount: 999_999, columnCount: 10 }] });
    const fine = leads(2);
    const b0 = await billed();
    const before = [viewOnly, protectedCol, full, fine].map((id) => snapshot(id));
    const runs = [];
    for (const id of [viewOnly, protectedCol, full, fine]) runs.push(await cli([...cliArgs(id, `dry-${id}`), '--dry-run']));
    const lines = runs.map((r) => r.out.split('\n').filter((l) => l.startsWith('Check ')));
    expect(lines[0]).toEqual([
      'Check sheet: ok: "Leads" found (the spreadsheet has 1 sheet)',
      expect.stringMatching(/^Check cell limit: ok: /),
      'Check protected ranges: ok: none on the sheet',
      expect.stringMatching(
        new RegExp(`^Check write access: FAILED: ${BOT} can only view the spreadsheet: share it with ${BOT} as an Editor`),
      ),
    ]);
    expect(lines[1]![2]).toMatch(
      /^Check protected ranges: FAILED: cell C1 \(column "company_data_status"\) is in a protected range that enrich-bot@/,
    );
    // 999,999 × 10 + 3 rows × 2 columns = 9,999,996 cells; the run's 5 columns of 3 rows are 15 more.
    expect(lines[2]![1]).toMatch(/^Check cell limit: FAILED: adding 5 columns to sheet "Leads" needs 15 more cells/);
    // Every cell that sheet's run writes is beyond its grid; a dry run does not grow it, so it has no cell to test write access on.
    expect(lines[2]![3]).toMatch(/^Check write access: not checked: /);
    expect(lines[3]!.every((l) => / ok: /.test(l))).toBe(true);
    expect(runs.map((r) => r.exitCode)).toEqual([2, 2, 2, 0]);
    for (const r of runs) expect(r.out).toMatch(/Billed queries: 2/);
    expect(await billed()).toBe(b0);
    expect([viewOnly, protectedCol, full, fine].map((id) => snapshot(id))).toEqual(before);
  });
});

describe('stop paying after a refused save', () => {
  // At two requests a second, 2,000 distinct queries take 10 s; saves come every 50 ms (or 50 times their cost).
  const N = 2_000;

  /**
   * Runs enrich, and after its first save changes the sheet's permissions as `change` says. Also what the
   * sandbox had billed when the first refused request reached the sheet: the client sends sheet requests one
   * at a time, so the n-th request seen is the n-th call logged.
   */
  async function refusedMidRun(id: string, table: GoogleSheetTable, state: string, change: () => void) {
    let saves = 0;
    standin.access.onWrite = (sid, method) => {
      if (sid === id && method === 'values.batchUpdate' && ++saves === 1) change();
    };
    const usage = () => sb.usage(sb.apiKey).billed_lookup_queries;
    const seen: number[] = [];
    const hook = () => void seen.push(usage());
    standin.beforeRequest.push(hook);
    const c0 = standin.calls.length;
    const b0 = usage();
    try {
      const err = await enrichTable({ table, client: slowClient, fields: ['name'], stateDir: join(dir, state), flushEveryMs: 50 }).catch(
        (e: unknown) => e,
      );
      const refused = standin.calls.slice(c0).findIndex((c) => c.status === 401 || c.status === 403);
      expect(refused).toBeGreaterThan(0);
      const billedInRun = usage() - b0;
      return {
        err: err as Error,
        report: reportOfFailedRun(err),
        billedInRun,
        billedAfterRefusal: billedInRun - (seen[refused]! - b0),
        saves,
      };
    } finally {
      standin.access.onWrite = undefined;
      standin.beforeRequest.splice(standin.beforeRequest.indexOf(hook), 1);
    }
  }

  /**
   * After the refusal reached the sheet, nothing new is sent: only requests already in flight may still be
   * billed (slowClient starts two a second, 100 queries each; a loaded machine may hold a few back). How far
   * the run got before it depends on the machine, so that is not asserted.
   */
  const IN_FLIGHT = 300;

  /** The rerun after the owner fixed it: bills only what the first run did not pay for; every row ends enriched. */
  async function rerunBillsOnlyTheRest(id: string, table: GoogleSheetTable, state: string, kept: number) {
    const b0 = await billed();
    const r = await enrichTable({ table, client, fields: ['name'], stateDir: join(dir, state) });
    expect(await billed()).toBe(b0 + N - kept);
    expect(r.billedQueries).toBe(N - kept);
    const [header, ...rows] = standin.values(id, 'Leads');
    const status = header!.indexOf('company_data_status');
    expect(status).toBeGreaterThan(1);
    expect(rows).toHaveLength(N);
    expect(rows.every((row) => /^(matched|no_match)$/.test(String(row[status])))).toBe(true);
  }

  it('a colleague removes the account’s edit access after the first save: billing stops, the report says what is kept, a rerun bills nothing for it', async () => {
    const id = leads(N);
    const { err, report, billedInRun, billedAfterRefusal } = await refusedMidRun(id, sheet(id), 'mid-403', () =>
      standin.access.setRole(id, BOT, 'reader'),
    );
    expect(err.message).toMatch(
      new RegExp(
        `Google Sheets 403 PERMISSION_DENIED: The caller does not have permission \\(share the spreadsheet with ${BOT} as an Editor`,
      ),
    );
    expect(report).toBeDefined();
    // Everything billed is in the report and kept; the rest was never sent.
    expect(report!.billedQueries).toBe(billedInRun);
    expect(report!.failed?.keptAnswers).toBe(billedInRun);
    expect(billedInRun).toBeGreaterThan(0);
    expect(billedAfterRefusal).toBeLessThanOrEqual(IN_FLIGHT);
    standin.access.setRole(id, BOT, 'writer');
    await rerunBillsOnlyTheRest(id, sheet(id), 'mid-403', billedInRun);
  });

  it('a colleague protects the output column after the first save: same, and the error says to ask for the protected range', async () => {
    const id = leads(N);
    // Column C holds company_data_status, written in every row (the codes are unknown: the name column stays empty).
    const { err, report, billedInRun, billedAfterRefusal } = await refusedMidRun(id, sheet(id), 'mid-protect', () =>
      standin.access.protect(id, { range: { sheetId: 0, startColumnIndex: 2, endColumnIndex: 3 }, editors: ['owner@example.com'] }),
    );
    expect(err.message).toMatch(/Google Sheets 403 PERMISSION_DENIED: You are trying to edit a protected cell or object\./);
    expect(err.message).toMatch(new RegExp(`ask the spreadsheet's owner to add ${BOT} to its editors`));
    expect(report!.failed?.keptAnswers).toBe(billedInRun);
    expect(billedAfterRefusal).toBeLessThanOrEqual(IN_FLIGHT);
  });

  it('an access token revoked mid-run (401, cannot be refreshed): billing stops, report, a rerun bills nothing for the kept answers', async () => {
    const id = leads(N);
    standin.access.setRole(id, 'oauth-user', 'writer');
    const table = () =>
      new GoogleSheetTable({ spreadsheetId: id, sheet: 'Leads', auth: { accessToken: standin.accessToken }, rootUrl: standin.url });
    const { err, report, billedInRun, billedAfterRefusal } = await refusedMidRun(id, table(), 'mid-401', () =>
      standin.access.revoke('oauth-user'),
    );
    expect(err.message).toMatch(/Google Sheets 401 UNAUTHENTICATED: .*\(the credentials were refused or have expired/);
    expect(report!.billedQueries).toBe(billedInRun);
    expect(billedAfterRefusal).toBeLessThanOrEqual(IN_FLIGHT);
    standin.access.restore('oauth-user');
    await rerunBillsOnlyTheRest(id, table(), 'mid-401', billedInRun);
  });

  it('the CLI prints the usual report, what is kept, then the error', async () => {
    // The CLI saves a Google sheet every 10 s: access is taken away right after the checks, and the first save is refused.
    const id = leads(300);
    standin.access.onWrite = (sid, method) => {
      if (sid === id && method === 'values.update') standin.access.setRole(id, BOT, 'reader');
    };
    try {
      const b0 = await billed();
      const r = await cli(cliArgs(id, 'cli-mid'));
      const n = (await billed()) - b0;
      expect(r.error?.message).toMatch(
        /Google Sheets 403 PERMISSION_DENIED: The caller does not have permission \(share the spreadsheet with/,
      );
      const lines = r.out.trim().split('\n');
      expect(lines[0]).toMatch(/^Stopped by the error below\. Key column: Registry code\. Rows answered before it: \d+$/);
      expect(lines).toContain(`Requests: ${Math.ceil(n / 100)}; billed queries: ${n}`);
      expect(lines[lines.length - 1]).toBe(
        `Kept: the ${n} answer(s) paid for in this run are in ${join(dir, 'cli-mid')}; running the same command again bills nothing for them.`,
      );
    } finally {
      standin.access.onWrite = undefined;
    }
  });
});
