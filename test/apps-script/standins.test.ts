/**
 * The Apps Script stand-in (test/support/apps-script) against Google's documented behaviour, with tiny
 * scripts written here: each limit and each error the reference names.
 */
import { generateKeyPairSync, verify } from 'node:crypto';
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

describe('sheets and the model', () => {
  it('refuses a second sheet of a name, hiding or deleting the last visible sheet, and reads the data range', async () => {
    const w = world({
      'a.js': `function twice() { SpreadsheetApp.getActive().insertSheet('Leads'); }
        function hideAll() { SpreadsheetApp.getActive().getSheets().forEach(function (s) { s.hideSheet(); }); }
        function hidden() { var ss = SpreadsheetApp.getActive(); var s = ss.insertSheet('_state'); s.hideSheet(); return [s.isSheetHidden(), s.getMaxRows(), s.getMaxColumns(), ss.getSheets().length]; }
        function deleteLast() { var ss = SpreadsheetApp.getActive(); ss.deleteSheet(ss.getSheetByName('Leads')); }
        function data() { var s = SpreadsheetApp.getActive().getSheetByName('Leads'); return [s.getLastRow(), s.getLastColumn(), s.getDataRange().getA1Notation()]; }
        function append() { var s = SpreadsheetApp.getActive().getSheetByName('Leads'); s.appendRow(['x', 'y', 'z']); return [s.getMaxRows(), s.getMaxColumns()]; }`,
    });
    w.spreadsheet.addSheet(
      'Leads',
      [
        ['code', 'name'],
        ['1', 'a'],
      ],
      { grid: 'exact' },
    );
    expect((await w.run('twice')).error).toBe('A sheet with the name "Leads" already exists. Please enter another name.');
    expect((await w.run('hideAll')).ok).toBe(false);
    expect((await w.run('hidden')).value).toEqual([true, 1000, 26, 2]);
    expect((await w.run('deleteLast')).ok).toBe(false);
    expect((await w.run('data')).value).toEqual([2, 2, 'A1:B2']);
    expect((await w.run('append')).value).toEqual([3, 3]);
    expect(w.spreadsheet.values('Leads')).toEqual([
      ['code', 'name', ''],
      [1, 'a', ''],
      ['x', 'y', 'z'],
    ]);
  });

  it("plays a colleague's insert, delete and sort", async () => {
    const w = world({ 'a.js': 'function f() {}' });
    w.spreadsheet.addSheet('Leads', [
      ['code', 'name'],
      ['3', 'c'],
      ['1', 'a'],
      ['', 'blank'],
      ['2', 'b'],
    ]);
    w.spreadsheet.sortBy('Leads', 1);
    expect(w.spreadsheet.values('Leads').map((r) => r[1])).toEqual(['name', 'a', 'b', 'c', 'blank']);
    w.spreadsheet.insertRows('Leads', 2, [['9', 'new']]);
    w.spreadsheet.deleteRows('Leads', 4, 1);
    expect(w.spreadsheet.values('Leads').map((r) => r[1])).toEqual(['name', 'new', 'a', 'c', 'blank']);
    expect(w.spreadsheet.displayValues('Leads')[1]).toEqual(['9', 'new']);
  });

  it('keeps a sheet typed as text when asked (an import of text cells)', async () => {
    const w = world({ 'a.js': "function f() { return SpreadsheetApp.getActiveSheet().getRange('A2').getValue(); }" });
    w.spreadsheet.addSheet('Leads', [['code'], ['00123']], { asText: true });
    expect((await w.run('f')).value).toBe('00123');
  });

  it('writes dates the script gives and reads them back as dates of its own realm', async () => {
    const w = world({
      'a.js': `function f() { var r = SpreadsheetApp.getActiveSheet().getRange('A1'); r.setValue(new Date(Date.UTC(2024, 0, 5, 10, 30))); var v = r.getValue(); return [v instanceof Date, v.toISOString(), r.getDisplayValue()]; }`,
    });
    w.spreadsheet.addSheet('Leads', []);
    expect((await w.run('f')).value).toEqual([true, '2024-01-05T10:30:00.000Z', '1/5/2024 10:30:00']);
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

describe('the six-minute limit', () => {
  it('ends an execution at its first service call past 6 virtual minutes; the script cannot catch it', async () => {
    const w = world({
      'a.js': `function f() {
        var props = PropertiesService.getUserProperties();
        for (var i = 0; ; i++) {
          try { Utilities.sleep(60000); props.setProperty('minutes', String(i + 1)); } catch (e) { props.setProperty('caught', String(e)); }
        }
      }`,
    });
    const r = await w.run('f');
    expect(r).toMatchObject({ ok: false, error: 'Exceeded maximum execution time' });
    expect(r.virtualMs).toBeGreaterThan(360_000);
    expect(w.userProperties()).toEqual({ minutes: '6' });
  });

  it('refuses Utilities.sleep over 5 minutes', async () => {
    const w = world({ 'a.js': 'function f() { Utilities.sleep(300001); }' });
    expect((await w.run('f')).ok).toBe(false);
  });
});

describe('PropertiesService', () => {
  it('keeps 9 KB per value and 500 KB per store, all or nothing', async () => {
    const w = world({
      'a.js': `function big() { PropertiesService.getUserProperties().setProperty('k', new Array(9 * 1024 + 2).join('x')); }
        function fits() { PropertiesService.getUserProperties().setProperty('k', new Array(9 * 1024 + 1).join('x')); }
        function fill() { var p = {}; for (var i = 0; i < 60; i++) p['k' + i] = new Array(9000).join('x'); PropertiesService.getDocumentProperties().setProperties(p); }`,
    });
    expect((await w.run('big')).error).toBe('Argument too large: value');
    expect((await w.run('fits')).ok).toBe(true);
    expect((await w.run('fill')).error).toBe(MESSAGES.propertyStoreFull);
    expect(w.documentProperties()).toEqual({});
  });

  it('keeps user properties per user', async () => {
    const w = world({ 'a.js': `function set(v) { PropertiesService.getUserProperties().setProperty('key', v); }` });
    await w.run('set', ['mine']);
    await w.run('set', ['hers'], { user: 'ann@example.com' });
    expect([w.userProperties().key, w.userProperties('ann@example.com').key]).toEqual(['mine', 'hers']);
  });
});

describe('AuthMode.NONE and the manifest', () => {
  it('lets onOpen in AuthMode.NONE add a menu but not reach properties, the network or triggers', async () => {
    const w = world({
      'a.js': `function onOpen() { SpreadsheetApp.getUi().createMenu('Company data').addItem('Enrich', 'enrich').addToUi(); }
        function props() { PropertiesService.getUserProperties(); }
        function net() { UrlFetchApp.fetch('http://127.0.0.1:9/'); }
        function trig() { ScriptApp.newTrigger('x'); }`,
    });
    expect((await w.run('onOpen', [], { authMode: 'NONE' })).ok).toBe(true);
    expect(w.ui.menus).toEqual([{ name: 'Company data', items: [{ caption: 'Enrich', functionName: 'enrich' }] }]);
    for (const fn of ['props', 'net', 'trig'])
      expect((await w.run(fn, [], { authMode: 'NONE' })).error).toMatch(/^You do not have permission to call /);
  });

  it("refuses a call whose scope the manifest's oauthScopes lack", async () => {
    const w = world({
      'appsscript.json': JSON.stringify({ oauthScopes: ['https://www.googleapis.com/auth/spreadsheets.currentonly'] }),
      'a.js': `function net() { UrlFetchApp.fetch('http://127.0.0.1:9/'); }`,
    });
    expect((await w.run('net')).error).toBe(
      'You do not have permission to call UrlFetchApp.fetch. Required permissions: https://www.googleapis.com/auth/script.external_request',
    );
  });

  it('throws from getUi() inside a trigger, whose active sheet is the first', async () => {
    const w = world({
      'a.js': `function ui() { SpreadsheetApp.getUi(); } function active() { return SpreadsheetApp.getActiveSheet().getName(); }`,
    });
    w.spreadsheet.addSheet('First', []);
    w.spreadsheet.addSheet('Second', []);
    expect((await w.run('ui', [], { trigger: true })).error).toBe('Cannot call SpreadsheetApp.getUi() from this context.');
    expect((await w.run('active', [], { activeSheet: 'Second' })).value).toBe('Second');
    expect((await w.run('active', [], { activeSheet: 'Second', trigger: true })).value).toBe('First');
  });
});

describe('LockService', () => {
  it('serialises two concurrent executions on the document lock (two people pressing the button)', async () => {
    // The first run's request is answered only once the second run asks for the lock, so they overlap.
    let answer!: () => void;
    const answered = new Promise<void>((r) => (answer = r));
    const s = await server(async (_q, res) => {
      await answered;
      json(res, 200, {});
    });
    const w = world(
      {
        'a.js': `function count(base) {
          var lock = LockService.getDocumentLock();
          lock.waitLock(10000);
          var props = PropertiesService.getDocumentProperties();
          var n = Number(props.getProperty('n') || 0);
          UrlFetchApp.fetch(base);
          Utilities.sleep(500);
          props.setProperty('n', String(n + 1));
          return lock.hasLock();
        }`,
      },
      {
        onServiceCall: (c) => {
          if (c.service === 'Lock' && c.user === 'ann@example.com') setImmediate(answer);
        },
      },
    );
    const a = w.run('count', [s.url]);
    while (s.requests.length === 0) await new Promise((r) => setTimeout(r, 10));
    const b = w.run('count', [s.url], { user: 'ann@example.com' });
    const [ra, rb] = await Promise.all([a, b]);
    expect([ra.value, rb.value]).toEqual([true, true]);
    expect(w.documentProperties()).toEqual({ n: '2' });
    expect(rb.virtualMs).toBeGreaterThanOrEqual(500);
  });

  it("times a waiter out in virtual time with Google's message while the holder keeps it", async () => {
    // The holder keeps the lock while its request is in flight: the server answers once both others wait.
    let answer!: () => void;
    const answered = new Promise<void>((r) => (answer = r));
    let inFlight!: () => void;
    const holding = new Promise<void>((r) => (inFlight = r));
    const s = await server(async (_q, res) => {
      inFlight();
      await answered;
      json(res, 200, {});
    });
    const asked = new Set<string>();
    const w = world(
      {
        'a.js': `function holder(base) { LockService.getDocumentLock().waitLock(0); UrlFetchApp.fetch(base); Utilities.sleep(120000); return 'done'; }
          function waiter() { LockService.getDocumentLock().waitLock(30000); return 'got it'; }
          function trier() { return LockService.getDocumentLock().tryLock(30000); }`,
      },
      {
        onServiceCall: (c) => {
          if (c.service === 'Lock' && c.user !== 'owner@example.com') asked.add(c.user);
          if (asked.size === 2) setImmediate(answer);
        },
      },
    );
    const h = w.run('holder', [s.url]);
    await holding;
    const [held, waited, tried] = await Promise.all([
      h,
      w.run('waiter', [], { user: 'ann@example.com' }),
      w.run('trier', [], { user: 'bob@example.com' }),
    ]);
    expect(held.value).toBe('done');
    expect(waited.error).toBe('Lock timeout: another process was holding the lock for too long.');
    expect(waited.virtualMs).toBe(30_000);
    expect(tried.value).toBe(false);
  });

  it('releases a lock when its execution ends', async () => {
    const w = world({ 'a.js': `function take() { return LockService.getScriptLock().tryLock(0); }` });
    expect((await w.run('take')).value).toBe(true);
    expect((await w.run('take', [], { user: 'ann@example.com' })).value).toBe(true);
  });
});

describe('ScriptApp triggers', () => {
  const script = {
    'a.js': `function schedule(h) { ScriptApp.newTrigger('tick').timeBased().everyHours(h).create(); }
      function later(ms) { ScriptApp.newTrigger('tick').timeBased().after(ms).create(); }
      function clear() { ScriptApp.getProjectTriggers().forEach(function (t) { ScriptApp.deleteTrigger(t); }); }
      function tick(e) { var p = PropertiesService.getUserProperties(); p.setProperty('ticks', String(Number(p.getProperty('ticks') || 0) + 1)); return e.triggerUid ? 'trigger' : 'no event'; }
      function minutes() { ScriptApp.newTrigger('tick').timeBased().everyMinutes(5).create(); }`,
  };

  it('allows an add-on one time-driven trigger per user per document, at most hourly', async () => {
    const w = world(script);
    expect((await w.run('schedule', [0.5])).ok).toBe(false);
    expect((await w.run('minutes')).ok).toBe(false);
    expect((await w.run('schedule', [1])).ok).toBe(true);
    expect((await w.run('later', [60_000])).error).toBe(MESSAGES.tooManyAddonTriggers);
    expect((await w.run('later', [60_000], { user: 'ann@example.com' })).ok).toBe(true);
    expect(w.triggers().map((t) => [t.user, t.everyHours])).toEqual([
      ['owner@example.com', 1],
      ['ann@example.com', undefined],
    ]);
  });

  it('runs due triggers in time order as their owner; a one-off trigger stays listed after it ran', async () => {
    const w = world(script);
    const start = w.clock.now();
    await w.run('later', [10 * 60_000]);
    const r = await w.runNextTrigger();
    expect(r?.value).toBe('trigger');
    expect(w.clock.now()).toBe(start + 10 * 60_000);
    expect(await w.runNextTrigger()).toBeUndefined();
    expect(w.triggers()).toHaveLength(1);
    expect((await w.run('later', [60_000])).ok).toBe(false);
    await w.run('clear');
    expect((await w.run('later', [60_000])).ok).toBe(true);
  });

  it("stops running a user's triggers once they used the day's trigger runtime", async () => {
    const w = world(
      {
        'a.js':
          "function slow() { Utilities.sleep(300000); } function every() { ScriptApp.newTrigger('slow').timeBased().everyHours(1).create(); }",
      },
      { triggerRuntimeDailyMs: 10 * 60_000 },
    );
    await w.run('every');
    expect((await w.runNextTrigger())?.ok).toBe(true);
    expect((await w.runNextTrigger())?.ok).toBe(true);
    expect((await w.runNextTrigger())?.error).toBe('Service using too much computer time for one day');
    w.clock.advance(24 * 3_600_000);
    expect((await w.runNextTrigger())?.ok).toBe(true);
  });

  it('refuses a request of more than 100 headers', async () => {
    const w = world({
      'a.js':
        "function f() { var h = {}; for (var i = 0; i < 101; i++) h['x-' + i] = '1'; UrlFetchApp.fetch('http://127.0.0.1:9/', { headers: h }); }",
    });
    expect((await w.run('f')).error).toBe('Limit Exceeded: URLFetch headers.');
  });

  it('runs an hourly trigger every hour', async () => {
    const w = world(script);
    const start = w.clock.now();
    await w.run('schedule', [1]);
    await w.runNextTrigger();
    await w.runNextTrigger();
    expect(w.clock.now()).toBe(start + 2 * 3_600_000);
    expect(w.userProperties().ticks).toBe('2');
  });
});

describe('Utilities', () => {
  it('signs, encodes and formats as Google documents, with signed bytes', async () => {
    const w = world({
      'a.js': `function f() {
        var mac = Utilities.computeHmacSha256Signature('message', 'key');
        return [Utilities.base64Encode('hi'), Utilities.base64EncodeWebSafe([-1, -2]), mac.length, mac.some(function (b) { return b < 0; }),
          Utilities.formatDate(new Date(Date.UTC(2024, 0, 5, 13, 4, 5)), 'UTC', "yyyy-MM-dd'T'HH:mm:ss'Z'"),
          Utilities.newBlob('abc', 'text/plain').getDataAsString(), typeof Utilities.getUuid()];
      }`,
    });
    expect((await w.run('f')).value).toEqual(['aGk=', '__4=', 32, true, '2024-01-05T13:04:05Z', 'abc', 'string']);
  });
});

describe('Utilities.computeRsaSignatureSha256 and Protection', () => {
  it('signs with a PEM private key (RSASSA-PKCS1-v1_5, SHA-256) as a service account token needs', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const w = world({
      'a.js': 'function sign(key) { return Utilities.base64Encode(Utilities.computeRsaSignatureSha256("header.payload", key)); }',
    });
    const r = await w.run('sign', [pem]);
    expect(verify('RSA-SHA256', Buffer.from('header.payload'), publicKey, Buffer.from(r.value as string, 'base64'))).toBe(true);
    expect((await w.run('sign', ['not a key'])).ok).toBe(false);
  });

  it("protects a range the script's user and the owner may edit, and no one else", async () => {
    const w = world({
      'a.js': `function protect() { var p = SpreadsheetApp.getActiveSheet().getRange('A1:A5').protect().setDescription('codes'); return p.getEditors().map(function (u) { return u.getEmail(); }); }
        function write() { SpreadsheetApp.getActiveSheet().getRange('A2').setValue('x'); }
        function list() { return SpreadsheetApp.getActive().getProtections(SpreadsheetApp.ProtectionType.RANGE).map(function (p) { return [p.getDescription(), p.canEdit(), p.getRange().getA1Notation()]; }); }`,
    });
    w.spreadsheet.addSheet('Leads', [['code']]);
    w.spreadsheet.share('ann@example.com', 'edit');
    w.spreadsheet.share('bob@example.com', 'edit');
    expect((await w.run('protect', [], { user: 'ann@example.com' })).value).toEqual(['owner@example.com', 'ann@example.com']);
    expect((await w.run('write', [], { user: 'ann@example.com' })).ok).toBe(true);
    expect((await w.run('write', [], { user: 'bob@example.com' })).error).toBe(MESSAGES.protectedCell);
    expect((await w.run('list', [], { user: 'bob@example.com' })).value).toEqual([['codes', false, 'A1:A5']]);
  });
});

describe('closing', () => {
  it('ends a running execution when the world closes', async () => {
    const w = world({ 'a.js': 'function spin() { for (;;) {} }' });
    const r = w.run('spin');
    await w.close();
    expect((await r).ok).toBe(false);
  });
});
