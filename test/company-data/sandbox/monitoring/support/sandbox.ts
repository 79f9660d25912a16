import { startSandbox, type Sandbox, type SandboxOptions } from '../../../../../packages/company-data/src/sandbox';
import { legalForms } from '../../../../../packages/company-data/src/sandbox/dataset/labels';
import { creditScoreView } from '../../../../../packages/company-data/src/sandbox/dataset/records';
import type { EventService } from '../../../../../packages/company-data/src/sandbox/write/service';
import type { CompanyPort } from '../../../../../packages/company-data/src/sandbox/monitoring/company-port';

export interface EventsSandbox {
  sb: Sandbox;
  url: string;
  /** Two API-plan keys (two accounts) and a basic-plan key. */
  apiKey: string;
  apiKey2: string;
  basicKey: string;
  svc: EventService;
  companies: CompanyPort;
  /** Registered, rated OÜs without scenario flags: every kind of change applies to them. */
  codes: string[];
  close(): Promise<void>;
}

export const KEYS = { api1: 'sk_test_api_1', api2: 'sk_test_api_2', basic: 'sk_test_basic' } as const;

/** The real sandbox (startSandbox) for the write-side tests: fixed keys (stable accounts across restarts), no random detection. */
export async function startEventsSandbox(
  opts: { companies?: number; dataDir?: string } & Pick<SandboxOptions, 'settings' | 'seed'> = {},
): Promise<EventsSandbox> {
  const sb = await startSandbox({
    companies: Math.max(1500, opts.companies ?? 1500),
    seed: opts.seed,
    dataDir: opts.dataDir,
    rateLimit: false,
    keys: [
      { key: KEYS.api1, plan: 'api' },
      { key: KEYS.api2, plan: 'api' },
      { key: KEYS.basic, plan: 'basic' },
    ],
    settings: { detectionRate: 0, ...opts.settings },
  });
  const ds = sb.dataset;
  const codes = ds.companies
    .filter((c) => c.status === 'R' && c.flags.size === 0 && legalForms[c.form]!.abbr === 'OÜ' && creditScoreView(ds.seed, c, 'et').rated)
    .slice(0, Math.min(50, opts.companies ?? 50))
    .map((c) => c.code);
  return {
    sb,
    url: sb.url,
    apiKey: KEYS.api1,
    apiKey2: KEYS.api2,
    basicKey: KEYS.basic,
    svc: sb.writeSide.service,
    companies: sb.writeSide.service.companies,
    codes,
    close: () => sb.close(),
  };
}

/** A JSON call with a key; returns status, headers and the parsed body (any: each test reads what it expects). */
export async function call(
  base: string,
  key: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; headers: Headers; body: any }> {
  const res = await fetch(base + path, {
    method,
    headers: { 'X-API-Key': key, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}
