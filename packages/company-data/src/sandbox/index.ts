import { openApiDocument } from '@company-data/core/openapi';
import { createClock, type SandboxClock } from './clock';
import { buildDataset, type Dataset } from './dataset';
import { DATASET_TODAY } from './dataset/prng';
import { createWriteSide, type WriteSide } from './write/mount';
import type { EventSettings } from './write/service';
import type { Fixtures } from './fixtures';
import { companyHandlers, period } from './handlers/companies';
import { sectionHandlers } from './handlers/sections';
import { KeyStore, newKey, type Plan } from './http/keys';
import { LatencyModel, type LatencySettings } from './latency';
import { DatasetCompanies } from './monitoring/dataset-port';
import { SandboxServer } from './server';
import { SandboxState, type KeyUsage } from './state';

export interface SandboxOptions {
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  seed?: number;
  /** Number of generated companies (at least 1500, so every fixture scenario exists). */
  companies?: number;
  /** Keys accepted besides those in the data dir. Omitted: one API-plan and one basic key are generated. */
  keys?: { key: string; plan: Plan }[];
  /** Keeps keys.json (hashes), state.json and the write side's data here; without it everything is in memory. */
  dataDir?: string;
  /** Sandbox time; default starts at the dataset's today (2026-11-20 09:00 UTC) and runs at real speed. */
  clock?: SandboxClock;
  /** Requests per second per key (default 10); false turns the limit off. */
  rateLimit?: number | false;
  /** Time source of the rate limit, ms (default real time; tests pass a clock they move). */
  rateLimitNow?: () => number;
  /** How often the data dir's key file is re-read (default 10 s). */
  keyReloadMs?: number;
  /** Reuse an already generated dataset (benchmarks, several servers on one dataset). */
  dataset?: Dataset;
  /** Detection and delivery behaviour at start (also PUT /sandbox/settings): detectionRate, duplicateRate, duplicateCopies, answerTimeoutMs, concurrency. */
  settings?: Partial<EventSettings>;
  /** A distant service: round trip, per-query service time and its spread (also PUT /sandbox/latency). */
  latency?: Partial<LatencySettings>;
}

export interface Sandbox {
  url: string;
  /** A key on the API plan (the first given, or a generated one). */
  apiKey: string;
  /** A key on the basic plan (the first given, or a generated one). */
  basicKey: string;
  fixtures: Fixtures;
  dataset: Dataset;
  clock: SandboxClock;
  writeSide: WriteSide;
  /** The latency model (round trip, service time); change it with update({latency_ms, per_query_ms, jitter}). */
  latency: LatencyModel;
  /** Requests and billed lookup queries of a key in the current month. */
  usage(key: string): KeyUsage;
  close(): Promise<void>;
}

export async function startSandbox(opts: SandboxOptions = {}): Promise<Sandbox> {
  const seed = opts.seed ?? 1;
  const ds = opts.dataset ?? buildDataset(seed, opts.companies ?? 20_000);
  const clock = opts.clock ?? createClock({ start: Date.parse(`${DATASET_TODAY}T09:00:00Z`) });
  const state = new SandboxState(opts.dataDir);
  const keys = new KeyStore(opts.dataDir, () => performance.now(), opts.keyReloadMs ?? 10_000);
  const given = opts.keys ?? [];
  const apiKey = given.find((k) => k.plan === 'api')?.key ?? newKey('api');
  const basicKey = given.find((k) => k.plan === 'basic')?.key ?? newKey('basic');
  for (const k of given) keys.add(k.key, k.plan);
  keys.add(apiKey, 'api');
  keys.add(basicKey, 'basic');

  const writeSide = createWriteSide({
    clock,
    companies: new DatasetCompanies(ds, () => new Date(clock.now()).toISOString().slice(0, 10)),
    seed,
    dataDir: opts.dataDir,
    settings: opts.settings,
  });
  const latency = new LatencyModel(opts.latency);
  const server = new SandboxServer({
    latency,
    ds,
    state,
    keys,
    rateLimit: opts.rateLimit ?? 10,
    ...(opts.rateLimitNow ? { rateLimitNow: opts.rateLimitNow } : {}),
    now: () => clock.now(),
    beforeOperation: (key, req, res, requestId) => writeSide.fault(key.id, req, res, requestId),
  });

  server.handleAll({ ...companyHandlers, ...sectionHandlers });
  server.handle('reference.openapi', () => ({ data: openApiDocument(), raw: true }));
  // Usage joins the read side's counters with the companies the key's account monitors (distinct over its lists).
  server.handle('reference.usage', ({ key, state, now }) => {
    const u = state.usage(key!.id, period(now()));
    const monitored = writeSide.service.account(key!.id).lists.codes().size;
    return {
      data: {
        period: u.period,
        requests: u.requests,
        billed_lookup_queries: u.billed_lookup_queries,
        monitored_companies: monitored,
        plan: key!.plan,
      },
    };
  });
  server.handleAll(writeSide.handlers);
  server.route('GET', '/sandbox/fixtures', () => ({ data: ds.fixtures }), { auth: false });
  server.route('GET', '/sandbox/latency', () => ({ data: latency.view() }), { auth: false });
  server.route('PUT', '/sandbox/latency', ({ body }) => (latency.update(body), { data: latency.view() }), { auth: false });
  server.routePrefix(
    '/sandbox/',
    (path) => writeSide.isControl(path),
    (ctx) => writeSide.control(ctx.key!.id, ctx.method, ctx.path, ctx.body),
  );

  const url = await server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1');
  return {
    url,
    apiKey,
    basicKey,
    fixtures: ds.fixtures,
    dataset: ds,
    clock,
    writeSide,
    latency,
    usage: (key) => {
      const info = keys.lookup(key);
      if (!info) throw new Error('usage: unknown key');
      return { ...state.usage(info.id, period(clock.now())) };
    },
    async close() {
      await server.close();
      await writeSide.close();
      state.save();
    },
  };
}

export type { Fixtures } from './fixtures';
export type { Dataset } from './dataset';
export { buildDataset } from './dataset';
