/**
 * Drill: the user's sheet as a careless or hostile user would try it, each case with the CLI as its own
 * process: two writers on one sheet (by other state folders, through a symlink, two enrich runs), files
 * kept as the user left them, formula cells, a forged 64 MB delivery (peak memory), stopping on SIGTERM,
 * and files that are not what their name says.
 */
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signWebhook } from '@company-data/core/webhooks';
import { startLookupServer, type LookupServer } from '../company-data/sheets/support/lookup-server';
import { spawnCli, runCli, type CliRun } from './support/cli';

const SECRET = 'whsec_sheet_guard_test';
let dir: string;
let lookup: LookupServer;
let env: Record<string, string>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sheet-guard-'));
  lookup = await startLookupServer();
  env = { COMPANY_DATA_LOCK_DIR: join(dir, 'locks'), COMPANY_DATA_API_KEY: lookup.apiKey, COMPANY_DATA_BASE_URL: lookup.url };
});
afterAll(async () => {
  await lookup.close();
  rmSync(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function change(n: number, name = `Company ${n} OÜ`) {
  return {
    id: `evt_${String(n).padStart(4, '0')}`,
    type: 'monitoring.change',
    created_at: '2025-03-01T08:00:00Z',
    data: {
      company: { registry_code: '10000001', name },
      lists: [{ id: 'lst_1', name: 'Clients' }],
      category: 'court',
      kind: 'court_case_added',
      tone: 'bad',
      details: {},
      detected_at: '2025-03-01T08:00:00Z',
    },
  };
}

async function deliver(url: string, event: object): Promise<{ status: number; body: string }> {
  const body = JSON.stringify(event);
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...signWebhook({ secret: SECRET, body, eventId: (event as { id: string }).id }) },
    body,
  });
  return { status: res.status, body: await res.text() };
}

/** A receiver process, started and waited for until it listens. */
async function receiver(sheet: string, stateDir: string, extra: string[] = []) {
  const child = spawnCli(
    ['events-to-sheet', sheet, '--webhook', '--port', '0', '--secret', SECRET, '--state-dir', stateDir, ...extra],
    env,
  );
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  for (let i = 0; i < 600 && !/Listening/.test(err); i++) {
    if (child.exitCode !== null) break;
    await sleep(50);
  }
  // Port 0: the address it got is in the line it printed.
  const url = /Listening for webhooks on (\S+)/.exec(err)?.[1];
  return { child, url, stderr: () => err };
}

async function stop(child: ReturnType<typeof spawnCli>): Promise<CliRun> {
  child.kill('SIGTERM');
  return await child.output;
}

const csvRows = (file: string) => (parse(readFileSync(file, 'utf8')) as string[][]).slice(1);

describe('one writer per sheet', () => {
  it('a second receiver is refused, by another state folder or through a symlink, naming the first; all 40 events land', async () => {
    const sheet = join(dir, 'events.csv');
    const link = join(dir, 'events-link.csv');
    symlinkSync(sheet, link);
    const first = await receiver(sheet, join(dir, 'state-a'));
    expect(first.url).toBeDefined();

    for (const [path, state] of [
      [sheet, join(dir, 'state-b')],
      [link, join(dir, 'state-c')],
    ] as const) {
      const second = await receiver(path, state);
      const out = await second.child.output;
      expect(out.code).not.toBe(0);
      expect(out.stderr).toMatch(
        new RegExp(`being written by another company-data process \\(pid ${first.child.pid} on .+, since \\d{4}-\\d\\d-\\d\\dT`),
      );
    }

    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => deliver(first.url!, change(i + 1))));
    expect(answers.every((a) => a.status === 200 && a.body.includes('"appended"'))).toBe(true);
    expect(new Set(csvRows(sheet).map((r) => r[0])).size).toBe(40);
    expect((await stop(first.child)).code).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
  }, 120_000);

  it('a redelivery of an event the sheet lost is written again, never answered duplicate', async () => {
    const sheet = join(dir, 'lost.csv');
    const state = join(dir, 'state-lost');
    let rx = await receiver(sheet, state);
    for (const n of [1, 2, 3]) expect((await deliver(rx.url!, change(n))).body).toContain('appended');
    await stop(rx.child);
    // Another program saves over the file without the row of event 2 (the ledger still says done).
    const lines = readFileSync(sheet, 'utf8').split('\n');
    writeFileSync(sheet, lines.filter((l) => !l.startsWith('evt_0002')).join('\n'));
    rx = await receiver(sheet, state);
    expect((await deliver(rx.url!, change(2))).body).toContain('"appended"');
    expect((await deliver(rx.url!, change(3))).body).toContain('"duplicate"');
    await stop(rx.child);
    expect(
      csvRows(sheet)
        .map((r) => r[0])
        .sort(),
    ).toEqual(['evt_0001', 'evt_0002', 'evt_0003']);
  }, 60_000);

  it('a lock left by a killed receiver is taken over', async () => {
    const sheet = join(dir, 'killed.csv');
    const rx = await receiver(sheet, join(dir, 'state-k1'));
    rx.child.kill('SIGKILL');
    await rx.child.output;
    expect(readdirSync(join(dir, 'locks')).length).toBeGreaterThan(0);
    const next = await receiver(sheet, join(dir, 'state-k2'));
    expect(next.url).toBeDefined();
    expect((await stop(next.child)).code).toBe(0);
  }, 60_000);

  it('two enrich runs on one file (other state folders): the second is refused, each code is billed once', async () => {
    const file = join(dir, 'leads.csv');
    // 2,000 distinct valid codes: 20 requests, each billed once whichever run sends it.
    const codes = Array.from({ length: 2000 }, (_, i) => validCode(1000000 + i));
    writeFileSync(file, 'Registrikood\n' + codes.join('\n') + '\n');
    const billed0 = lookup.billed;
    // The first run's answers wait until the second has been refused: however slow the machine, the first is still going.
    let release = () => {};
    lookup.hold = new Promise<void>((r) => (release = r));
    const a = spawnCli(['enrich', file, '--state-dir', join(dir, 'enrich-a')], env);
    let b: CliRun;
    try {
      while (lookup.billed === billed0 && a.exitCode === null) await sleep(20);
      b = await runCli(['enrich', file, '--state-dir', join(dir, 'enrich-b')], env);
    } finally {
      lookup.hold = undefined;
      release();
    }
    expect(b.code).not.toBe(0);
    expect(b.stderr).toMatch(new RegExp(`being written by another company-data process \\(pid ${a.pid} `));
    const ra = await a.output;
    expect(ra.code).toBe(0);
    expect(lookup.billed - billed0).toBe(2000);
    const header = (parse(readFileSync(file, 'utf8')) as string[][])[0]!;
    expect(csvRows(file).every((r) => r[header.indexOf('company_data_status')] === 'matched')).toBe(true);
  }, 120_000);
});

/** A registry code with a correct check digit (weights 1..7, then 3..9), from 7 digits. */
function validCode(seven: number): string {
  const d = String(seven).padStart(7, '0').split('').map(Number);
  const sum = (w: number[]) => d.reduce((s, x, i) => s + x * w[i]!, 0) % 11;
  let c = sum([1, 2, 3, 4, 5, 6, 7]);
  if (c === 10) c = sum([3, 4, 5, 6, 7, 8, 9]) % 10;
  return `${seven}${c}`;
}

describe('files as the user left them', () => {
  it('in place: mode kept, symlink followed, no temp files; read-only and a missing --out folder refused before billing', async () => {
    const target = join(dir, 'private.csv');
    writeFileSync(target, 'Registrikood\n' + validCode(1200001) + '\n');
    chmodSync(target, 0o600);
    // As root (CI containers) the owner can be another user's, and must stay theirs.
    const asRoot = process.getuid?.() === 0;
    if (asRoot) chownSync(target, 4321, 4321);
    const link = join(dir, 'private-link.csv');
    symlinkSync(target, link);
    const run = await runCli(['enrich', link, '--state-dir', join(dir, 'st-mode')], env);
    expect(run.code).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe(target);
    expect(statSync(target).mode & 0o777).toBe(0o600);
    if (asRoot) expect([statSync(target).uid, statSync(target).gid]).toEqual([4321, 4321]);
    expect(readFileSync(target, 'utf8')).toContain('matched');
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);

    const billed0 = lookup.billed;
    const ro = join(dir, 'readonly.csv');
    writeFileSync(ro, 'Registrikood\n' + validCode(1200002) + '\n');
    chmodSync(ro, 0o444);
    const refused = await runCli(['enrich', ro, '--state-dir', join(dir, 'st-ro')], env);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(`file: ${ro} is read-only`);
    const noFolder = await runCli(
      ['enrich', target, '--out', join(dir, 'no-such-folder', 'out.csv'), '--mode', 'all', '--state-dir', join(dir, 'st-out')],
      env,
    );
    expect(noFolder.code).not.toBe(0);
    expect(noFolder.stderr).toContain(`the folder ${join(dir, 'no-such-folder')} does not exist`);
    expect(lookup.billed).toBe(billed0);
  }, 60_000);

  it('a temp file left by a killed writer is removed by the next one', async () => {
    const sheet = join(dir, 'temps.csv');
    writeFileSync(sheet, 'event_id\n');
    const stale = join(dir, '.temps.csv.999999.tmp');
    writeFileSync(stale, 'half');
    const rx = await receiver(sheet, join(dir, 'state-temps'));
    expect(existsSync(stale)).toBe(false);
    await stop(rx.child);
  }, 60_000);
});

describe('CSV formula cells', () => {
  it('service text starting with = + - @ is written inert by default (enrich and events); --csv-formulas keep writes it raw', async () => {
    const file = join(dir, 'names.csv');
    // The lookup server answers a name query with a company of that very name.
    const evil = ['=HYPERLINK("http://x.test","y")', '+cmd|x', '-A1*2 Firma', '@SUM(A1)'];
    writeFileSync(file, 'company\n' + evil.map((e) => `"${e.replaceAll('"', '""')}"`).join('\n') + '\n');
    expect(
      (await runCli(['enrich', file, '--out', join(dir, 'names-safe.csv'), '--fields', 'name', '--state-dir', join(dir, 'st-f1')], env))
        .code,
    ).toBe(0);
    const safe = parse(readFileSync(join(dir, 'names-safe.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
    expect(safe.map((r) => r.company_data_match_name)).toEqual(evil.map((e) => `'${e}`));
    expect(safe.map((r) => r.company)).toEqual(evil); // the user's own cells stay as typed
    expect(
      (
        await runCli(
          [
            'enrich',
            file,
            '--out',
            join(dir, 'names-raw.csv'),
            '--fields',
            'name',
            '--csv-formulas',
            'keep',
            '--state-dir',
            join(dir, 'st-f2'),
          ],
          env,
        )
      ).code,
    ).toBe(0);
    const raw = parse(readFileSync(join(dir, 'names-raw.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
    expect(raw.map((r) => r.company_data_match_name)).toEqual(evil);

    const sheet = join(dir, 'formula-events.csv');
    const rx = await receiver(sheet, join(dir, 'state-f'));
    await deliver(rx.url!, change(7, '=HYPERLINK("http://x.test")'));
    await stop(rx.child);
    expect(csvRows(sheet)[0]![4]).toBe(`'=HYPERLINK("http://x.test")`);
  }, 60_000);
});

/** Peak resident memory of a process so far, MB (Linux). */
const peakMb = (pid: number) => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

/** Sends a 64 MB body (chunked, so only reading can find its size) with well-formed signature headers. */
function forged(url: string, headers: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const sock = connect(Number(port), hostname, () => {
      sock.write(`POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n${headers}\r\n`);
      const chunk = Buffer.alloc(1024 * 1024, 0x20);
      let sent = 0;
      const pump = () => {
        while (sent < 64) {
          sent++;
          if (!sock.write(`${chunk.length.toString(16)}\r\n`) || !sock.write(chunk) || !sock.write('\r\n'))
            return void sock.once('drain', pump);
        }
        sock.write('0\r\n\r\n');
      };
      pump();
    });
    let got = '';
    sock.on('data', (d) => {
      got += d;
      const m = /^HTTP\/1\.1 (\d+)/.exec(got);
      if (m) {
        resolve(m[1]!);
        sock.destroy();
      }
    });
    let error = '';
    sock.on('error', (e) => (error = ` (${(e as NodeJS.ErrnoException).code})`));
    sock.on('close', () => resolve(got.slice(0, 20) || `closed without an answer${error}`));
  });
}

describe('receiver in constant memory', () => {
  it('a forged 64 MB delivery gets 413 while it is read; peak memory stays flat; its claimed id is quoted in the log', async () => {
    const rx = await receiver(join(dir, 'big.csv'), join(dir, 'state-big'));
    if (process.platform !== 'linux') return;
    const before = peakMb(rx.child.pid!);
    const sig = signWebhook({ secret: SECRET, body: 'x' });
    const status = await forged(
      rx.url!,
      `X-Service-Timestamp: ${sig['X-Service-Timestamp']}\r\nX-Service-Signature: ${sig['X-Service-Signature']}\r\nX-Service-Event-Id: evt_1: appended\r\n`,
    );
    expect(status).toBe('413');
    // Headers alone decide a delivery without signature: refused before its body is read.
    expect(await forged(rx.url!, 'X-Service-Event-Id: evt_2\r\n')).toBe('401');
    const growth = peakMb(rx.child.pid!) - before;
    // Unfixed, the body was read whole: +127 MB for 64 MB. The cap is 4 MiB.
    expect(growth).toBeLessThan(40);
    const out = await stop(rx.child);
    expect(out.stderr).toContain('"evt_1: appended": rejected (body_too_large)');
    expect(out.stderr).not.toMatch(/^evt_1: appended/m);
  }, 60_000);
});

describe('stopping', () => {
  let silent: Server;
  let silentUrl: string;
  beforeAll(async () => {
    silent = createServer(() => {}); // accepts and never answers
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    silent.closeAllConnections();
    silent.close();
  });

  it('--once against a service that never answers stops on SIGTERM within 2 s; --timeout ends it on its own', async () => {
    const once = spawnCli(['events-to-sheet', join(dir, 'once.csv'), '--once', '--state-dir', join(dir, 'state-once')], {
      ...env,
      COMPANY_DATA_BASE_URL: silentUrl,
    });
    await sleep(1500);
    const t0 = Date.now();
    const out = await stop(once);
    const ms = Date.now() - t0;
    expect(out.stderr).toContain('Stopping');
    // The rule is 2 s; a loaded test machine gets some slack on top.
    expect(ms).toBeLessThan(4000);

    const t1 = Date.now();
    const timed = await runCli(
      ['events-to-sheet', join(dir, 'once2.csv'), '--once', '--timeout', '2', '--state-dir', join(dir, 'state-once2')],
      { ...env, COMPANY_DATA_BASE_URL: silentUrl },
    );
    expect(timed.code).toBe(1);
    expect(timed.stderr).toContain('did not finish within 2 s');
    expect(Date.now() - t1).toBeLessThan(15_000);
  }, 60_000);

  it('a receiver in the middle of a slow delivery stops on SIGTERM within 2 s', async () => {
    const rx = await receiver(join(dir, 'slow.csv'), join(dir, 'state-slow'));
    const { hostname, port } = new URL(rx.url!);
    const sig = signWebhook({ secret: SECRET, body: '{}' });
    const sock = connect(Number(port), hostname, () =>
      sock.write(
        `POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\nX-Service-Timestamp: ${sig['X-Service-Timestamp']}\r\nX-Service-Signature: ${sig['X-Service-Signature']}\r\n\r\n{`,
      ),
    );
    sock.on('error', () => {});
    await sleep(300);
    const t0 = Date.now();
    const out = await stop(rx.child);
    expect(Date.now() - t0).toBeLessThan(4000);
    expect(out.code).toBe(0);
    sock.destroy();
  }, 60_000);
});

describe('files that are not what their name says', () => {
  it('random bytes named .csv or .xlsx: the file, the format expected and what it holds; no bytes echoed', async () => {
    const bytes = Buffer.concat([Buffer.from([0x1b, 0x5b, 0x32, 0x4a, 0x00]), randomBytes(4096)]);
    for (const [name, expected] of [
      ['noise.csv', 'a CSV text file'],
      ['noise.xlsx', 'an XLSX workbook'],
    ] as const) {
      const file = join(dir, name);
      writeFileSync(file, bytes);
      const r = await runCli(['enrich', file, '--state-dir', join(dir, 'st-noise')], env);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain(`file: ${file} is not ${expected}`);
      expect(r.stderr).toMatch(/it holds binary data/);
      expect(r.stderr).not.toContain('\u001b');
      expect(r.stderr).not.toContain('\u0000');
    }
    const xls = join(dir, 'old.xlsx');
    writeFileSync(xls, Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), randomBytes(512)]));
    expect((await runCli(['enrich', xls], env)).stderr).toContain('it holds an old Excel 97-2003 (.xls) workbook');
    const zipCsv = join(dir, 'book.csv');
    writeFileSync(zipCsv, Buffer.concat([Buffer.from('PK\u0003\u0004'), randomBytes(64)]));
    expect((await runCli(['enrich', zipCsv], env)).stderr).toContain('name it .xlsx');
    const broken = join(dir, 'broken.csv');
    writeFileSync(broken, 'a,b\n"open,1\n');
    const r = await runCli(['enrich', broken], env);
    expect(r.stderr).toContain(`file: ${broken} is not valid CSV: a quoted value is not closed`);
    expect(r.stderr).not.toMatch(/CSV_|Invalid Closing|Quote Not Closed/i);
  }, 60_000);
});
