/**
 * The sidebar (dist/Sidebar.html) in a real Chromium, with google.script.run replaced by the test: each call
 * runs the named global function in the Apps Script stand-in on the sandbox, and its plain value comes back,
 * as Apps Script's client does. Settings, the sheet and key column from lists, the price before paying,
 * Enrich, the schedule; a screenshot for the README (docs/img/sheets-addon-sidebar.png).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppsScriptWorld } from '../support/apps-script';
import { readDist } from './dist-build';
import { useAddonWorld } from './world';

/** e2e/lib/debian.mjs (JavaScript): found on PATH, or installed with apt-get when missing, as the e2e checks do. */
interface Debian {
  which(cmd: string): string | undefined;
  installDebianPackage(pkg: string, o: { what?: string; found: () => string | undefined; options?: string[] }): string;
}
const debian = async (): Promise<Debian> => import(resolve(__dirname, '../../e2e/lib/debian.mjs'));

const t = useAddonWorld();
let browser: Browser;
let profile: string;

beforeAll(async () => {
  // Debian's chromium, installed when missing as the e2e's browser checks do (a fresh CI machine lacks it).
  const { which, installDebianPackage } = await debian();
  const chromium =
    which('chromium') ??
    installDebianPackage('chromium', { what: 'Chromium', found: () => which('chromium'), options: ['--no-install-recommends'] });
  profile = mkdtempSync(join(tmpdir(), 'sidebar-chromium-'));
  browser = await puppeteer.launch({
    executablePath: chromium,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      `--user-data-dir=${profile}`,
    ],
  });
}, 600_000);
afterAll(async () => {
  await browser?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

/** google.script.run as the page sees it: chainable handlers, then the server function by name. */
const CLIENT = `
  window.google = { script: { run: (function make(ok, fail) {
    return new Proxy({}, { get: function (_t, name) {
      if (name === 'withSuccessHandler') return function (f) { return make(f, fail); };
      if (name === 'withFailureHandler') return function (f) { return make(ok, f); };
      return function () {
        window.__serverCall(name, Array.prototype.slice.call(arguments)).then(
          function (v) { ok && ok(v); }, function (e) { fail && fail(new Error(String(e && e.message || e))); });
      };
    } });
  })(null, null) } };`;

async function openSidebar(w: AppsScriptWorld): Promise<Page> {
  const page = await browser.newPage();
  await page.setViewport({ width: 300, height: 1150 });
  await page.exposeFunction('__serverCall', async (name: string, args: unknown[]) => {
    const r = await w.run(name, args, { activeSheet: 'Leads' });
    if (!r.ok) throw new Error(r.error);
    return r.value;
  });
  // Before the sidebar's own script, as Apps Script serves google.script.run to it.
  await page.setContent(readDist('Sidebar.html').replace('<head>', `<head><script>${CLIENT}</script>`), { waitUntil: 'load' });
  return page;
}

const text = (page: Page, sel: string) => page.$eval(sel, (el) => (el as unknown as { innerText: string }).innerText);
const until = (page: Page, sel: string, pattern: RegExp) =>
  page.waitForFunction(`new RegExp(${JSON.stringify(pattern.source)}).test(document.querySelector(${JSON.stringify(sel)}).innerText)`, {
    timeout: 60_000,
  });

describe('sidebar in Chromium', () => {
  it('saves settings, shows the price before paying, enriches and schedules', { timeout: 180_000 }, async () => {
    const codes = await t.codes(8, 9);
    const w = await t.world();
    w.spreadsheet.addSheet('Leads', [['Company', 'Registry code', 'Owner'], ...codes.map((c, i) => [`Company ${i}`, c, `rep ${i % 3}`])]);
    w.spreadsheet.addSheet('Notes', [['Text'], ['hello']]);
    const page = await openSidebar(w);

    // The sheet and its key column come from lists.
    await until(page, '#keyState', /saved/);
    expect(await page.$$eval('#sheet option', (o) => o.map((x) => (x as unknown as { value: string }).value))).toEqual(
      expect.arrayContaining(['Leads', 'Notes']),
    );
    expect(await page.$eval('#sheet', (s) => (s as unknown as { value: string }).value)).toBe('Leads');
    expect(await page.$eval('#column', (s) => (s as unknown as { value: string }).value)).toBe('Registry code');

    // Settings: the key goes to the user's properties, the field is emptied and never shows it again.
    await page.type('#apiKey', t.sb.apiKey);
    await page.type('#chat', 'https://hooks.slack.com/services/T000/B000/XXXX');
    await page.click('#save');
    await until(page, '#report', /Settings saved/);
    expect(await page.$eval('#apiKey', (i) => (i as unknown as { value: string }).value)).toBe('');
    expect(Object.values(w.userProperties())).toContain(t.sb.apiKey);
    expect(Object.values(w.documentProperties()).join('\n')).not.toContain(t.sb.apiKey);

    // The price before paying: every distinct query, nothing paid yet.
    const before = await t.billed();
    await page.click('#price');
    await until(page, '#priceBox', /queries to bill/);
    expect(await text(page, '#priceBox')).toBe('8 queries to bill; 0 answers already paid.');
    expect(await t.billed()).toBe(before);

    await page.click('#enrich');
    await until(page, '#report', /Enriched 8 rows/);
    expect(await t.billed()).toBe(before + 8);
    await page.click('#price');
    await until(page, '#priceBox', /^0 queries to bill/);

    await page.select('#every', '4');
    await page.click('#schedule');
    await until(page, '#scheduleState', /every 4 h/);
    expect(w.triggers()).toEqual([expect.objectContaining({ handler: 'onAddonTrigger', everyHours: 4 })]);

    expect(await page.content()).not.toContain(t.sb.apiKey);
    // The README's picture is made on purpose (COMPANY_DATA_UPDATE_SCREENSHOTS=1); an ordinary run writes to the
    // ignored out/ folder, so a test run leaves the tree clean.
    const shot = process.env.COMPANY_DATA_UPDATE_SCREENSHOTS === '1' ? '../../docs/img' : '../../out';
    await page.screenshot({ path: resolve(__dirname, shot, 'sheets-addon-sidebar.png'), fullPage: true });
    await page.close();
  });
});
