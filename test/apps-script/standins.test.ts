/**
 * The Apps Script stand-in (test/support/apps-script) against Google's documented behaviour, with tiny
 * scripts written here: each limit and each error the reference names.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createAppsScriptWorld, MESSAGES, type AppsScriptWorld, type WorldOptions } from '../support/apps-script';
import { json, startTestServer, type TestServer } from '../support/http-server';
import { tempDirs } from '../support/temp-dirs';

const tempDir = tempDirs();
const worlds: AppsScriptWorld[] = [];
const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(worlds.splice(0).map((w) => w.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** A world whose project holds the given files (name → source). */
function world(files: Record<string, string>, opts: Omit<WorldOptions, 'files'> = {}): AppsScriptWorld {
  const dir = tempDir('apps-script-');
  for (const [name, code] of Object.entries(files)) writeFileSync(join(dir, name), code);
  const w = createAppsScriptWorld({ ...opts, files: Object.keys(files).map((f) => join(dir, f)) });
  worlds.push(w);
  return w;
}

async function server(handler: Parameters<typeof startTestServer>[0]): Promise<TestServer> {
  const s = await startTestServer(handler);
  servers.push(s);
  return s;
}

describe('executions', () => {
  it('evaluates the files in name order in one global scope and returns the function value', async () => {
    const w = world({
      'b.js': 'var order = (typeof order === "undefined" ? [] : order).concat("b");',
      'a.js': 'var order = ["a"]; function f(x) { return { order: order, x: x }; }',
    });
    const r = await w.run('f', [{ n: 1 }]);
    expect(r).toMatchObject({ ok: true, value: { order: ['a', 'b'], x: { n: 1 } } });
  });

  it('gives each execution a fresh global scope: only the spreadsheet, properties and triggers persist', async () => {
    const w = world({
      'a.js': `var counter = 0;
        function bump() { counter++; PropertiesService.getUserProperties().setProperty('n', String(counter)); return counter; }`,
    });
    expect((await w.run('bump')).value).toBe(1);
    expect((await w.run('bump')).value).toBe(1);
    expect(w.userProperties()).toEqual({ n: '1' });
  });

  it('has no Web or Node globals, and Date reads the virtual clock', async () => {
    const w = world({
      'a.js': `function f() {
        return ['setTimeout','setInterval','fetch','URL','URLSearchParams','TextEncoder','TextDecoder','Buffer','process','AbortController','atob','btoa','require','crypto','performance']
          .filter(function (n) { return typeof globalThis[n] !== 'undefined'; }).concat([Date.now(), new Date().getTime()]);
      }`,
    });
    const r = await w.run('f');
    expect(r.value).toEqual([w.clock.now(), w.clock.now()]);
  });

  it('tells a missing function, a thrown error, and awaits a returned Promise', async () => {
    const w = world({
      'a.js':
        'function boom() { throw new Error("nope"); } async function later() { return 5; } function pending() { return new Promise(function () {}); }',
    });
    expect(await w.run('missing')).toMatchObject({ ok: false, error: 'Script function not found: missing' });
    expect(await w.run('boom')).toMatchObject({ ok: false, error: 'nope' });
    expect(await w.run('later')).toMatchObject({ ok: true, value: 5 });
    expect((await w.run('pending')).ok).toBe(false);
  });

  it('collects what Logger.log and console.log print', async () => {
    const w = world({ 'a.js': 'function f() { Logger.log("a %s c", "b"); console.log("x", { y: 1 }); }' });
    expect((await w.run('f')).logs).toEqual(['a b c', 'x {"y":1}']);
  });
});

describe('SpreadsheetApp', () => {
  it("refuses setValues data of another shape with Google's words", async () => {
    const w = world({
      'a.js': `function rows() { SpreadsheetApp.getActiveSheet().getRange(1, 1, 2, 2).setValues([[1, 2]]); }
        function cols() { SpreadsheetApp.getActiveSheet().getRange(1, 1, 2, 2).setValues([[1, 2], [3]]); }`,
    });
    w.spreadsheet.addSheet('Leads', [['code']]);
    expect((await w.run('rows')).error).toBe(
      'The number of rows in the data does not match the number of rows in the range. The data has 1 but the range has 2.',
    );
    expect((await w.run('cols')).error).toBe(
      'The number of columns in the data does not match the number of columns in the range. The data has 1 but the range has 2.',
    );
  });

  it('parses written strings as if typed, unless the cell is plain text', async () => {
    const w = world({
      'a.js': `function f() {
        var s = SpreadsheetApp.getActiveSheet();
        s.getRange('B1:B3').setNumberFormat('@');
        s.getRange('A1:B3').setValues([['12345678', '00123'], ['2024-01-05', '2024-01-05'], ['TRUE', "'x"]]);
        var v = s.getRange('A1:B3').getValues();
        return v.map(function (r) { return r.map(function (c) { return c instanceof Date ? 'Date ' + c.toISOString() : typeof c + ' ' + c; }); });
      }`,
    });
    w.spreadsheet.addSheet('Leads', []);
    expect((await w.run('f')).value).toEqual([
      ['number 12345678', 'string 00123'],
      ['Date 2024-01-05T00:00:00.000Z', 'string 2024-01-05'],
      ['boolean true', "string 'x"],
    ]);
    expect(w.spreadsheet.displayValues('Leads')[1]).toEqual(['2024-01-05', '2024-01-05']);
  });

  it('refuses a cell over 50,000 characters and a range outside the grid; insertColumnsAfter grows it', async () => {
    const w = world({
      'a.js': `function long() { SpreadsheetApp.getActiveSheet().getRange(1, 1).setValue(new Array(50002).join('x')); }
        function outside() { return SpreadsheetApp.getActiveSheet().getRange(1, 3, 1, 1).getValues(); }
        function grow() { var s = SpreadsheetApp.getActiveSheet(); s.insertColumnsAfter(s.getMaxColumns(), 1); s.getRange(1, 3).setValue('new'); return s.getMaxColumns(); }`,
    });
    w.spreadsheet.addSheet('Leads', [['code', 'name']], { grid: 'exact' });
    expect((await w.run('long')).error).toBe(MESSAGES.cellTooLong);
    expect((await w.run('outside')).error).toBe('The coordinates of the range are outside the dimensions of the sheet.');
    expect((await w.run('grow')).value).toBe(3);
    expect(w.spreadsheet.values('Leads')).toEqual([['code', 'name', 'new']]);
  });

  it('refuses a protected range to an editor who is not its editor, and any write to a viewer', async () => {
    const w = world({ 'a.js': `function f() { SpreadsheetApp.getActiveSheet().getRange('B2').setValue('x'); }` });
    w.spreadsheet.addSheet('Leads', [
      ['code', 'name'],
      ['1', 'a'],
    ]);
    w.spreadsheet.protectRange('Leads', 'B1:B10');
    w.spreadsheet.share('ann@example.com', 'edit');
    w.spreadsheet.share('vic@example.com', 'view');
    expect((await w.run('f', [], { user: 'ann@example.com' })).error).toBe(MESSAGES.protectedCell);
    expect((await w.run('f', [], { user: 'vic@example.com' })).error).toBe(MESSAGES.noPermission);
    expect((await w.run('f')).ok).toBe(true);
  });

  it('lets the test edit the sheet between two service calls', async () => {
    let inserted = false;
    const w = world(
      { 'a.js': `function f() { var s = SpreadsheetApp.getActiveSheet(); var before = s.getLastRow(); return [before, s.getLastRow()]; }` },
      {
        onServiceCall: (c) => {
          if (c.method === 'getLastRow' && c.count === 2 && !inserted) {
            inserted = true;
            w.spreadsheet.insertRows('Leads', 2, [['new']]);
          }
        },
      },
    );
    w.spreadsheet.addSheet('Leads', [['code'], ['1']]);
    expect((await w.run('f')).value).toEqual([2, 3]);
  });
});

describe('UrlFetchApp', () => {
  it('fetches synchronously over real HTTP; a status >= 400 throws unless muteHttpExceptions', async () => {
    const s = await server((req, res, body) => json(res, req.url === '/missing' ? 404 : 200, { url: req.url, body }));
    const w = world(
      {
        'a.js': `function f(base) {
        var r = UrlFetchApp.fetch(base + '/x', { method: 'post', contentType: 'application/json', payload: JSON.stringify({ a: 1 }) });
        var muted = UrlFetchApp.fetch(base + '/missing', { muteHttpExceptions: true });
        var all = UrlFetchApp.fetchAll([base + '/1', { url: base + '/2' }]).map(function (x) { return JSON.parse(x.getContentText()).url; });
        return [r.getResponseCode(), JSON.parse(r.getContentText()), muted.getResponseCode(), all];
      }
      function loud(base) { UrlFetchApp.fetch(base + '/missing'); }`,
      },
      { fetchLatencyMs: 300 },
    );
    const r = await w.run('f', [s.url]);
    expect(r).toMatchObject({ ok: true, fetches: 4, virtualMs: 900, value: [200, { url: '/x', body: '{"a":1}' }, 404, ['/1', '/2']] });
    const loud = await w.run('loud', [s.url]);
    expect(loud.error).toMatch(/^Request failed for http:\/\/127\.0\.0\.1:\d+ returned code 404\. Truncated server response: /);
  });

  it('keeps the daily quota per user', async () => {
    const s = await server((_q, res) => json(res, 200, {}));
    const w = world({ 'a.js': `function f(base) { for (var i = 0; i < 3; i++) UrlFetchApp.fetch(base); }` }, { urlFetchDailyQuota: 5 });
    expect((await w.run('f', [s.url])).ok).toBe(true);
    expect((await w.run('f', [s.url])).error).toBe('Service invoked too many times for one day: urlfetch.');
    w.clock.advance(24 * 3600 * 1000);
    expect((await w.run('f', [s.url])).ok).toBe(true);
  });
});
