/**
 * Stand-in HTTP front for the write side until the sandbox server (src/sandbox, read side) routes to it:
 * key → account and plan, routes of the monitoring, searches and webhook groups from the operation table,
 * the envelope, errors, faults and /sandbox/ controls. Real node:http on loopback.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { inputSchema, operationId, type AnyOperation } from '../../../src/core/operation';
import { operationGroups } from '../../../src/core/operations';
import { createClock } from '../../../src/sandbox/clock';
import { applyFault, FaultInjector } from '../../../src/sandbox/control/faults';
import { handleControl } from '../../../src/sandbox/control/routes';
import { SandboxError } from '../../../src/sandbox/events/errors';
import { writeHandlers } from '../../../src/sandbox/events/handlers';
import { EventService, type EventSettings } from '../../../src/sandbox/events/service';
import type { CompanyFacts } from '../../../src/sandbox/monitoring/company-port';
import { MemoryCompanies, newFacts } from '../../../src/sandbox/monitoring/memory-companies';
import { withRegistryCheckDigit } from '../../../src/core/validation';

export interface Harness {
  url: string;
  apiKey: string;
  apiKey2: string;
  basicKey: string;
  svc: EventService;
  companies: MemoryCompanies;
  codes: string[];
  close(): Promise<void>;
}

const writeOps = [operationGroups.monitoring, operationGroups.searches, operationGroups.webhook].flatMap((g) => Object.values(g) as AnyOperation[]);

function matchPath(template: string, path: string): Record<string, string> | null {
  const names: string[] = [];
  const re = new RegExp(`^${template.replace(/\{(\w+)\}/g, (_m, n: string) => (names.push(n), '([^/]+)'))}$`);
  const m = re.exec(path);
  if (!m) return null;
  return Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(m[i + 1]!)]));
}

function coerceQuery(op: AnyOperation, q: URLSearchParams): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, spec] of Object.entries(op.params)) {
    if (spec.in !== 'query' || !q.has(k)) continue;
    const raw = q.getAll(k).join(',');
    const type = (spec.schema as { def?: { innerType?: { def?: { type?: string } }; type?: string } }).def;
    const inner = type?.type === 'optional' ? type.innerType?.def?.type : type?.type;
    out[k] = inner === 'array' ? raw.split(',') : inner === 'number' ? Number(raw) : inner === 'boolean' ? raw === 'true' : raw;
  }
  return out;
}

export async function startHarness(opts: { companies?: number; dataDir?: string; seed?: number; start?: number; settings?: Partial<EventSettings>; memory?: MemoryCompanies } = {}): Promise<Harness> {
  const companies = opts.memory ?? new MemoryCompanies();
  if (!opts.memory) {
    for (let i = 0; i < (opts.companies ?? 50); i++) {
      const code = withRegistryCheckDigit(String(1_100_000 + i));
      const f: CompanyFacts = newFacts(code, { name: `Testfirma ${i} OÜ`, registered_on: '2015-03-01', county: i % 2 ? 'Tartu maakond' : 'Harju maakond', activity_code: i % 3 ? '62011' : '47911' }, '2015-03-01', i);
      f.board = ['Mari Tamm'];
      f.tax_debt = i % 5 === 0 ? 1200 : null;
      f.rating = 'BBB';
      companies.byCode.set(code, f);
    }
  }
  const clock = createClock({ start: opts.start ?? Date.parse('2026-11-20T09:00:00Z') });
  const svc = new EventService({ clock, companies, seed: opts.seed ?? 1, dataDir: opts.dataDir, settings: { detectionRate: 0, ...opts.settings } });
  const faults = new FaultInjector();
  const keys = new Map([
    ['sk_test_api_1', { account: 'acct_1', plan: 'api' }],
    ['sk_test_api_2', { account: 'acct_2', plan: 'api' }],
    ['sk_test_basic', { account: 'acct_3', plan: 'basic' }],
  ]);

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(text)), ...headers });
    res.end(text);
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const requestId = randomUUID();
      try {
        const url = new URL(req.url ?? '/', 'http://x');
        const key = (req.headers['x-api-key'] as string | undefined) ?? req.headers.authorization?.replace(/^Bearer /, '');
        if (!key) throw new SandboxError(401, 'api_key_required', 'Send the API key in X-API-Key');
        const who = keys.get(key);
        if (!who) throw new SandboxError(401, 'invalid_api_key', 'The API key is unknown or revoked');
        const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
        if (url.pathname.startsWith('/sandbox/')) {
          const r = handleControl({ svc, faults, account: who.account }, req.method ?? 'GET', url.pathname, body);
          return send(res, r.status ?? 200, { success: true, data: r.data, meta: { request_id: requestId, ...r.meta } });
        }
        const fault = faults.take(who.account);
        if (fault && (await applyFault(fault, req, res, requestId))) return;
        for (const op of writeOps) {
          if (op.method !== req.method) continue;
          const pathParams = matchPath(op.path, url.pathname);
          if (!pathParams) continue;
          if (op.plan === 'api' && who.plan !== 'api') throw new SandboxError(403, 'plan_required', 'This operation needs the API plan');
          const input: Record<string, unknown> = { ...coerceQuery(op, url.searchParams), ...pathParams };
          for (const [k, spec] of Object.entries(op.params)) if (spec.in === 'body' && body && k in body) input[k] = body[k];
          const parsed = inputSchema(op).safeParse(input);
          if (!parsed.success) {
            const issue = parsed.error.issues[0]!;
            const param = issue.path.join('.');
            throw new SandboxError(400, 'invalid_parameter', `${param} ${issue.message}`, param);
          }
          const r = writeHandlers[operationId(op)]!(svc, who.account, parsed.data);
          return send(res, r.status ?? 200, { success: true, data: r.data, meta: { request_id: requestId, ...r.meta } });
        }
        throw new SandboxError(404, 'not_found', `no operation at ${req.method} ${url.pathname}`);
      } catch (err) {
        const e = err instanceof SandboxError ? err : new SandboxError(500, 'server_error', String(err));
        send(res, e.status, { success: false, error: { code: e.code, message: e.message, ...(e.param ? { param: e.param } : {}) }, meta: { request_id: requestId } }, e.headers);
      }
    });
  });
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    apiKey: 'sk_test_api_1',
    apiKey2: 'sk_test_api_2',
    basicKey: 'sk_test_basic',
    svc,
    companies,
    codes: [...companies.byCode.keys()],
    async close() {
      await svc.close();
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** A JSON call with a key; returns status, headers and parsed body. */
export async function call(base: string, key: string, method: string, path: string, body?: unknown) {
  const res = await fetch(base + path, {
    method,
    headers: { 'X-API-Key': key, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}
