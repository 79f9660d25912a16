/**
 * The add-on's tests' world: the sandbox as the service (its rate limit on the stand-in's virtual clock, as
 * a real service sees the add-on's virtual time), the Apps Script stand-in running the built dist/ files,
 * and the sandbox's usage counter as what was billed.
 */
import { afterAll, afterEach, beforeAll } from 'vitest';
import { startSandbox } from '../../packages/company-data/src/sandbox';
import { createAppsScriptWorld, type AppsScriptWorld, type WorldOptions } from '../support/apps-script';
import { scriptFiles, DIST } from './dist-build';
import { join } from 'node:path';

export type Sandbox = Awaited<ReturnType<typeof startSandbox>>;

export interface AddonWorld {
  sb: Sandbox;
  /** A new stand-in world over dist/ (closed after the test), its settings saved for the owner. */
  world(opts?: Omit<WorldOptions, 'files'>): Promise<AppsScriptWorld>;
  /** Lookup queries the sandbox billed so far. */
  billed(): Promise<number>;
  /** Registry codes of the sandbox's companies, read the plain way (GET /companies). */
  codes(count: number, page?: number): Promise<string[]>;
}

export function useAddonWorld(sandbox: { companies?: number } = {}): AddonWorld {
  const t = {} as AddonWorld;
  const open: AppsScriptWorld[] = [];
  beforeAll(async () => {
    t.sb = await startSandbox({ port: 0, seed: 1, companies: sandbox.companies ?? 2000, rateLimit: false });
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((w) => w.close()));
  });
  afterAll(async () => {
    await t.sb?.close();
  });
  t.world = async (opts = {}) => {
    const files = [...scriptFiles(), join(DIST, 'Sidebar.html'), join(DIST, 'appsscript.json')];
    const w = createAppsScriptWorld({ ...opts, files });
    open.push(w);
    const saved = await w.run('saveSettings', [{ apiKey: t.sb.apiKey, baseUrl: t.sb.url }]);
    if (!saved.ok) throw new Error(`saveSettings failed: ${saved.error}`);
    return w;
  };
  t.billed = async () => {
    return t.sb.usage(t.sb.apiKey).billed_lookup_queries;
  };
  t.codes = async (count, page = 1) => {
    const out: string[] = [];
    for (let p = page; out.length < count; p++) {
      const res = await fetch(`${t.sb.url}/companies?limit=100&page=${p}`, { headers: { 'X-API-Key': t.sb.apiKey } });
      const data = ((await res.json()) as { data: { registry_code: string }[] }).data;
      out.push(...data.map((c) => c.registry_code));
      if (data.length < 100) break;
    }
    return out.slice(0, count);
  };
  return t;
}
