/**
 * The world most Sheets tests run in, set up once per test file: the sandbox (seed 1) as the service,
 * a client on it, the Google Sheets stand-in and a temporary folder, all closed after the file. The
 * sandbox's usage counter is what was billed: the tests compare it with what the runs report.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { CompanyDataClient } from '../../../../packages/company-data/src/index';
import { startSandbox } from '../../../../packages/company-data/src/sandbox';
import { startSheetsStandin, type SheetsStandin, type StandinOptions } from '../../../support/sheets-standin';

export type Sandbox = Awaited<ReturnType<typeof startSandbox>>;

export interface SandboxAndSheets {
  sb: Sandbox;
  standin: SheetsStandin;
  client: CompanyDataClient;
  dir: string;
  /** Queries the sandbox has billed so far (GET /usage). */
  billed(): Promise<number>;
  /** Registry code → name of one page of the sandbox's companies, read the plain way (GET /companies). */
  companyNames(page: number, limit: number): Promise<Map<string, string>>;
}

/** Registers beforeAll/afterAll; the fields are there once beforeAll has run. */
export function useSandboxAndSheets(tempPrefix: string, standinOptions: StandinOptions = {}): SandboxAndSheets {
  const world = {} as SandboxAndSheets;
  beforeAll(async () => {
    world.sb = await startSandbox({ port: 0, seed: 1, companies: 2000 });
    world.standin = await startSheetsStandin(standinOptions);
    world.client = new CompanyDataClient({ baseUrl: world.sb.url, apiKey: world.sb.apiKey });
    world.dir = mkdtempSync(join(tmpdir(), tempPrefix));
  });
  afterAll(async () => {
    await world.client?.close();
    await world.standin?.close();
    await world.sb?.close();
    if (world.dir) rmSync(world.dir, { recursive: true, force: true });
  });
  world.billed = async () => {
    const u = await world.client.reference.usage();
    return (u.data as { billed_lookup_queries?: number }).billed_lookup_queries ?? 0;
  };
  world.companyNames = async (page, limit) => {
    const res = await fetch(`${world.sb.url}/companies?limit=${limit}&page=${page}`, { headers: { 'X-API-Key': world.sb.apiKey } });
    const { data } = (await res.json()) as { data: { registry_code: string; name: string }[] };
    return new Map(data.map((c) => [c.registry_code, c.name]));
  };
  return world;
}
