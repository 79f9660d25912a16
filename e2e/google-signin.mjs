#!/usr/bin/env node
// The browser sign-in end to end, as a person does it: the built `company-data auth login` prints an
// address, headless Chromium (Debian's chromium, installed with apt-get when missing, driven by
// puppeteer-core) opens it on the Google stand-in's consent page and clicks Allow, the browser is sent back
// to the command's loopback port, and the command keeps the sign-in. Then: the sign-in file is 0600 and
// holds a refresh token printed nowhere, `auth status` names the account, `enrich --google-account`
// enriches a Google sheet shared with that account only, and `auth logout` revokes it and deletes the file.
// Usage: node e2e/google-signin.mjs [--keep]. Prints "N passed, N failed"; exits 1 when a check failed.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildIfStale } from './lib/build.mjs';
import { assert, assertEqual, checkRun, waitFor } from './lib/checks.mjs';
import { installDebianPackage, which } from './lib/debian.mjs';
import { loadSheetsStandin } from './lib/sheets-standin.mjs';

const repoDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const keep = process.argv.includes('--keep');
const { log, check, cleanups, finish } = checkRun();
const cli = path.join(repoDir, 'packages', 'company-data', 'dist', 'cli', 'main.js');

const chromium = () =>
  which('chromium') ??
  installDebianPackage('chromium', {
    what: 'Chromium',
    found: () => which('chromium'),
    options: ['--no-install-recommends'],
    log: (m) => log(`[chromium] ${m}`),
  });

/**
 * Runs the built CLI; resolves with its exit code and output. onErr sees stderr as it arrives.
 * @param {string[]} args
 * @param {{ env?: NodeJS.ProcessEnv, onErr?: (soFar: string) => void, timeoutMs?: number }} [opts]
 * @returns {Promise<{ code: number | null, out: string, err: string }>}
 */
function runCli(args, { env = {}, onErr, timeoutMs = 120_000 } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], {
      // The embedded sandbox answers the lookups; no browser opener is started (--no-browser where it applies).
      env: { ...process.env, COMPANY_DATA_BASE_URL: '', COMPANY_DATA_API_KEY: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => {
      err += d;
      onErr?.(err);
    });
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      reject(new Error(`company-data ${args[0]} did not end within ${timeoutMs / 1000} s:\n${out}\n${err}`));
    }, timeoutMs);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out, err });
    });
  });
}

async function main() {
  log('Browser sign-in: `company-data auth login` with headless Chromium against the Google stand-in');
  await buildIfStale(repoDir, (m) => log(`[build] ${m}`));
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'company-data-signin-'));
  cleanups.push(async () => (keep ? log(`[keep] ${work}`) : fs.rmSync(work, { recursive: true, force: true })));
  const state = path.join(work, 'state');
  /**
   * Everything the CLI printed, scanned for secrets at the end.
   * @type {string[]}
   */
  const printed = [];

  const { startSheetsStandin } = await loadSheetsStandin(work);
  const standin = await startSheetsStandin({ auth: { account: 'kati.tamm@example.com' } });
  cleanups.push(() => standin.close());
  const clientFile = path.join(work, 'client_secret_desktop.json');
  fs.writeFileSync(clientFile, JSON.stringify(standin.auth.desktopClient()));
  standin.create('leads', [{ title: 'Leads', rows: [['company'], ['13545698'], ['Lõunaranna Tarkvara'], ['19999992']] }]);
  standin.share('leads', ['kati.tamm@example.com']);

  let bin;
  await check('Chromium is there (installed from Debian packages when missing)', async () => {
    bin = chromium();
    assert(bin, 'no chromium after installing it');
  });
  if (!bin) return;

  const puppeteer = (await import('puppeteer-core')).default;
  const browser = await puppeteer.launch({
    executablePath: bin,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--no-default-browser-check'],
  });
  cleanups.push(() => browser.close());

  await check('auth login: Chromium opens the printed address, clicks Allow on the consent page and lands on "Signed in"', async () => {
    const page = await browser.newPage();
    let url = '';
    const login = runCli(['auth', 'login', '--no-browser', '--client-file', clientFile, '--state-dir', state, '--timeout', '120'], {
      onErr: (soFar) => (url ||= /^(http:\/\/\S+\/o\/oauth2\/auth\?\S+)$/m.exec(soFar)?.[1] ?? ''),
    });
    await waitFor('the sign-in address on stderr', () => url, { timeoutMs: 60_000 });
    await page.goto(url);
    assertEqual(await page.$eval('#account', (e) => e.textContent), 'kati.tamm@example.com', 'account on the consent page');
    await Promise.all([page.waitForNavigation(), page.click('#allow')]);
    const landed = new URL(page.url());
    assert(landed.hostname === '127.0.0.1' && landed.searchParams.has('code'), `the browser landed on ${landed.origin}${landed.pathname}`);
    const text = await page.$eval('body', (e) => e.textContent ?? '');
    assert(text.includes('Signed in as kati.tamm@example.com'), `landing page says: ${text}`);
    const r = await login;
    printed.push(r.out, r.err);
    assertEqual(r.code, 0, `auth login exit code (stderr: ${r.err})`);
    assert(r.out.includes('Signed in as kati.tamm@example.com.'), `auth login printed: ${r.out}`);
    log(`        ${r.out.split('\n')[0]}`);
  });

  const file = path.join(state, 'google-account.json');
  await check('the sign-in is kept in the state folder, readable by its owner only, with a refresh token', async () => {
    assertEqual((fs.statSync(file).mode & 0o777).toString(8), '600', 'mode of google-account.json');
    const stored = JSON.parse(fs.readFileSync(file, 'utf8'));
    assertEqual([stored.type, stored.account], ['authorized_user', 'kati.tamm@example.com'], 'type and account');
    assert(typeof stored.refresh_token === 'string' && stored.refresh_token.length > 20, 'a refresh token is kept');
  });

  await check('auth status names the account and finds the sign-in working', async () => {
    const r = await runCli(['auth', 'status', '--state-dir', state]);
    printed.push(r.out, r.err);
    assertEqual(r.code, 0, `auth status exit code (${r.out}${r.err})`);
    assert(r.out.includes('Signed in as kati.tamm@example.com') && r.out.includes('the sign-in works'), r.out);
  });

  await check('enrich --google-account enriches a Google sheet shared with that account only', async () => {
    const r = await runCli([
      'enrich',
      '--spreadsheet',
      'leads',
      '--sheet',
      'Leads',
      '--google-account',
      '--state-dir',
      state,
      '--sheets-root-url',
      standin.url,
    ]);
    printed.push(r.out, r.err);
    assertEqual(r.code, 0, `enrich exit code (${r.out}${r.err})`);
    assert(r.out.includes('Done. Key column: company.'), r.out);
    const rows = standin.values('leads', 'Leads');
    const status = rows[0].indexOf('company_data_status');
    assertEqual(
      rows.slice(1).map((/** @type {unknown[]} */ row) => String(row[status]).split(':')[0]),
      ['matched', 'matched', 'no_match'],
      'company_data_status of the three rows',
    );
    log(`        ${r.out.split('\n')[1]}`);
  });

  await check('auth logout revokes the sign-in at the token service and deletes the file', async () => {
    const r = await runCli(['auth', 'logout', '--state-dir', state]);
    printed.push(r.out, r.err);
    assertEqual(r.code, 0, `auth logout exit code (${r.out}${r.err})`);
    assert(r.out.includes('access revoked'), r.out);
    assert(!fs.existsSync(file), 'google-account.json is gone');
    assert(!standin.auth.hasGrant('kati.tamm@example.com'), 'the stand-in still honours the refresh token');
  });

  await check('no token, code, client secret or key appears in anything the CLI printed', async () => {
    const text = printed.join('\n');
    const secrets = standin.auth.secrets();
    assert(secrets.length >= 3, `the stand-in handed out ${secrets.length} secrets`);
    for (const s of secrets) assert(!text.includes(s), `a secret (${s.slice(0, 6)}...) was printed`);
  });
}

await finish(main);
