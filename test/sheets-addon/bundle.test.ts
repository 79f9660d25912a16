/**
 * Issue 34, point 1: dist/ holds exactly what clasp pushes, and the server script runs in a bare V8 context
 * (Node's vm: the language's builtins only, no setTimeout, fetch, URL, URLSearchParams, TextEncoder, Buffer,
 * process or AbortController), as Apps Script's V8 runtime documents it. No modules, no private members.
 */
import { readdirSync } from 'node:fs';
import { basename } from 'node:path';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { DIST, readDist, scriptFiles } from './dist-build';

const GLOBALS = [
  'onOpen',
  'onInstall',
  'showSidebar',
  'saveSettings',
  'enrichSheet',
  'keepCurrent',
  'scheduleKeepCurrent',
  'unscheduleKeepCurrent',
];
const WEB_AND_NODE = [
  'setTimeout',
  'setInterval',
  'fetch',
  'URL',
  'URLSearchParams',
  'TextEncoder',
  'TextDecoder',
  'Buffer',
  'crypto',
  'process',
  'AbortController',
  'AbortSignal',
  'require',
  'module',
  'performance',
];

/** A bare context with the script files evaluated in name order, as Apps Script does (one global scope). */
function load(extra: Record<string, unknown> = {}) {
  const context = vm.createContext({ ...extra });
  for (const file of scriptFiles()) new vm.Script(readDist(basename(file)), { filename: basename(file) }).runInContext(context);
  return context as Record<string, unknown>;
}

describe('sheets add-on bundle (dist/)', () => {
  it('holds exactly appsscript.json, the server .js files and the sidebar .html', () => {
    scriptFiles();
    expect(readdirSync(DIST).sort()).toEqual(['Sidebar.html', 'addon.js', 'appsscript.json', 'globals.js']);
    const manifest = JSON.parse(readDist('appsscript.json')) as { runtimeVersion: string; oauthScopes: string[] };
    expect(manifest.runtimeVersion).toBe('V8');
    expect(manifest.oauthScopes.sort()).toEqual(
      [
        'https://www.googleapis.com/auth/script.container.ui',
        'https://www.googleapis.com/auth/script.external_request',
        'https://www.googleapis.com/auth/script.scriptapp',
        'https://www.googleapis.com/auth/spreadsheets.currentonly',
      ].sort(),
    );
  });

  it('evaluates in a bare V8 context, which has none of the Web and Node globals', () => {
    const ctx = load();
    for (const name of WEB_AND_NODE) expect(vm.runInContext(`typeof ${name}`, vm.createContext(ctx)), name).toBe('undefined');
    expect(typeof ctx.CompanyDataAddon).toBe('object');
  });

  it('declares the entry points as top-level functions of the global scope', () => {
    const ctx = load();
    const source = readDist('globals.js');
    for (const name of GLOBALS) {
      expect(typeof ctx[name], name).toBe('function');
      expect(source, name).toMatch(new RegExp(`^function ${name}\\(`, 'm'));
    }
    expect(typeof ctx.onAddonTrigger).toBe('function');
  });

  it('holds no import/export and no private class members (every file is a classic script)', () => {
    for (const file of scriptFiles()) {
      const text = readDist(basename(file));
      // A classic script refuses import/export declarations; compiling it proves there are none.
      expect(() => new vm.Script(text)).not.toThrow();
      expect(text).not.toMatch(/(^|[\s;{}])#[A-Za-z_$][\w$]*\s*(=|;|\()/m);
      expect(text).not.toMatch(/\bimport\s*\(/);
    }
  });

  it('runs onOpen in AuthMode.NONE: the menu only, each item naming a global function', () => {
    const items: [string, string][] = [];
    let added = 0;
    const menu = {
      addItem(caption: string, fn: string) {
        items.push([caption, fn]);
        return menu;
      },
      addSeparator: () => menu,
      addToUi: () => void added++,
    };
    const refuse = () => {
      throw new Error('not in AuthMode.NONE');
    };
    const ctx = load({
      SpreadsheetApp: { getUi: () => ({ createAddonMenu: () => menu, createMenu: () => menu }) },
      PropertiesService: { getUserProperties: refuse, getDocumentProperties: refuse },
      UrlFetchApp: { fetch: refuse, fetchAll: refuse },
      ScriptApp: { newTrigger: refuse, getProjectTriggers: refuse },
    });
    vm.runInContext('onOpen({ authMode: "NONE" })', ctx);
    expect(added).toBe(1);
    expect(items.length).toBeGreaterThanOrEqual(3);
    for (const [, fn] of items) expect(typeof ctx[fn], fn).toBe('function');
  });
});
