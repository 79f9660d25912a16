import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { readBody } from '../../support/http-server';
import type { AddressInfo } from 'node:net';
import { vi } from 'vitest';
import type {
  ICredentialDataDecryptedObject,
  IDataObject,
  IExecuteFunctions,
  IHookFunctions,
  IHttpRequestOptions,
  INodeExecutionData,
  IPollFunctions,
  IWebhookFunctions,
} from 'n8n-workflow';
import { startSandbox, type Sandbox } from '../../../packages/company-data/src/sandbox';
import { writeHandlers } from '../../../packages/company-data/src/sandbox/write/handlers';
import type { EventService } from '../../../packages/company-data/src/sandbox/write/service';
import { hashKey, keyId } from '../../../packages/company-data/src/sandbox/http/keys';
import type { CompanyPort } from '../../../packages/company-data/src/sandbox/monitoring/company-port';
import { authenticate, forwardHttp, type SentRequest } from '../../support/n8n-http';

/**
 * Test rig: the real sandbox (startSandbox) that the trigger calls over HTTP, a receiver that captures
 * signed deliveries as they arrive (raw body bytes and headers), and n8n contexts whose HTTP helper makes
 * real requests. Changes are made in-process on the sandbox's own event service.
 */

export const API_KEY = 'sk_test_trigger_key_0001';
/** The sandbox account of API_KEY (accounts are key ids). */
export const ACCOUNT = keyId(hashKey(API_KEY));

export interface Captured {
  rawBody: Buffer;
  headers: IncomingMessage['headers'];
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export interface Rig {
  sandbox: Sandbox;
  svc: EventService;
  companies: CompanyPort;
  apiUrl: string;
  receiverUrl: string;
  captured: Captured[];
  /** Answer of the receiver (default 200). */
  receiverStatus: number;
  waitForDeliveries(n: number, timeoutMs?: number): Promise<Captured[]>;
  close(): Promise<void>;
}

export async function startRig(opts: { duplicateRate?: number } = {}): Promise<Rig> {
  const sandbox = await startSandbox({
    companies: 1500,
    rateLimit: false,
    keys: [{ key: API_KEY, plan: 'api' }],
    settings: { detectionRate: 0, duplicateRate: opts.duplicateRate ?? 0, duplicateCopies: 1 },
  });
  const svc = sandbox.writeSide.service;
  const captured: Captured[] = [];
  const rig = { receiverStatus: 200 } as Rig;
  const receiver = createServer(async (req, res) => {
    const rawBody = await readBody(req);
    captured.push({ rawBody, headers: req.headers });
    res.writeHead(rig.receiverStatus);
    res.end();
  });
  const receiverUrl = await listen(receiver);
  Object.assign(rig, {
    sandbox,
    svc,
    companies: svc.companies,
    apiUrl: sandbox.url,
    receiverUrl,
    captured,
    async waitForDeliveries(n: number, timeoutMs = 5000) {
      const until = Date.now() + timeoutMs;
      while (captured.length < n) {
        if (Date.now() > until) throw new Error(`expected ${n} deliveries, got ${captured.length}`);
        await new Promise((r) => setTimeout(r, 10));
      }
      return captured.slice(0, n);
    },
    async close() {
      await sandbox.close();
      await new Promise((r) => receiver.close(r));
    },
  });
  return rig;
}

/** A monitored company on a list with an external reference, ready for changes. */
export function watchCompany(rig: Rig, name = 'Näidis Ehitus OÜ'): { code: string; listId: string } {
  const [code] = rig.svc.registerCompanies([{ name }]);
  const list = writeHandlers['monitoring.createList']!(rig.svc, ACCOUNT, { name: 'Key clients' }).data as { id: string };
  writeHandlers['monitoring.addCompanies']!(rig.svc, ACCOUNT, {
    list_id: list.id,
    add: [{ registry_code: code!, external_ref: 'CRM-991' }],
  });
  return { code: code!, listId: list.id };
}

export interface NodeParams {
  events?: string[];
  language?: string;
  filters?: IDataObject;
  options?: IDataObject;
  searchIds?: string;
}

const param = (params: NodeParams) => (name: string, fallback?: unknown) => (params as Record<string, unknown>)[name] ?? fallback;

export function credentials(rig: Rig, extra: IDataObject = {}): IDataObject {
  return { apiKey: API_KEY, baseUrl: rig.apiUrl, ...extra };
}

const node = {
  id: 'node-1',
  name: 'Company Data Trigger',
  type: 'n8n-nodes-company-data.companyDataTrigger',
  typeVersion: 1,
  position: [0, 0] as [number, number],
  parameters: {},
};
export const logger = () => ({ warn: vi.fn(), info: vi.fn(), error: vi.fn(), debug: vi.fn() });

/**
 * n8n's two HTTP helpers over real HTTP; httpRequestWithAuthentication applies the real credential's
 * authenticate rule the way n8n does. Every request sent is logged in `requests`.
 */
function httpHelpers(creds: IDataObject) {
  const requests: SentRequest[] = [];
  const httpRequest = vi.fn(async (o: IHttpRequestOptions) => await forwardHttp(o, requests));
  const httpRequestWithAuthentication = vi.fn(async (type: string, o: IHttpRequestOptions) => {
    if (type !== 'companyDataApi') throw new Error(`unexpected credential type ${type}`);
    return await forwardHttp(authenticate(creds as ICredentialDataDecryptedObject, o, node), requests);
  });
  return { requests, helpers: { httpRequest, httpRequestWithAuthentication } };
}

export type HttpHelpers = ReturnType<typeof httpHelpers>['helpers'];

export function hookContext(
  rig: Rig,
  staticData: IDataObject,
  params: NodeParams = {},
  creds: IDataObject = credentials(rig),
  url = 'https://n8n.example.ee/webhook/abc/webhook',
) {
  const { requests, helpers } = httpHelpers(creds);
  return {
    getNode: () => node,
    getNodeWebhookUrl: () => url,
    getWorkflowStaticData: () => staticData,
    getCredentials: async () => creds,
    getNodeParameter: param(params),
    helpers,
    logger: logger(),
    requests,
  } as unknown as IHookFunctions & { logger: ReturnType<typeof logger>; helpers: HttpHelpers; requests: SentRequest[] };
}

export interface WebhookCall {
  status: number;
  body?: unknown;
  result: Awaited<ReturnType<NonNullable<import('n8n-workflow').INodeType['webhook']>>>;
}

export function webhookContext(
  staticData: IDataObject,
  delivery: { rawBody: unknown; headers: IncomingMessage['headers'] },
  params: NodeParams = {},
  creds: IDataObject = {},
  workflowId = 'wf-1',
) {
  const response = { statusCode: 200, body: undefined as unknown };
  const answered = new EventEmitter();
  const res = {
    get statusCode() {
      return response.statusCode;
    },
    once: (event: 'finish' | 'close', listener: () => void) => answered.once(event, listener),
    /** What n8n's HTTP layer does after webhook(): the answer goes out with `status` ('finish', then 'close'), or without one the connection drops ('close'). */
    answer(status?: number) {
      if (status !== undefined) {
        response.statusCode = status;
        answered.emit('finish');
      }
      answered.emit('close');
    },
    status(code: number) {
      response.statusCode = code;
      return res;
    },
    json(body: unknown) {
      response.body = body;
      return res;
    },
    end: () => res,
  };
  const ctx = {
    getRequestObject: () => ({ rawBody: delivery.rawBody, headers: delivery.headers, body: {} }),
    getResponseObject: () => res,
    getWorkflowStaticData: () => staticData,
    getCredentials: async () => creds,
    getNodeParameter: param(params),
    getNode: () => node,
    getWorkflow: () => ({ id: workflowId, active: true }),
    helpers: { returnJsonArray: (items: IDataObject[]) => items.map((json) => ({ json })) },
    logger: logger(),
  } as unknown as IWebhookFunctions & { logger: ReturnType<typeof logger> };
  return { ctx, response };
}

const hop = () => new Promise((r) => setImmediate(r));
const md5 = (value: string | number) => createHash('md5').update(value.toString()).digest('base64');

/**
 * n8n's processed-data store as n8n 2.41.1 runs it (n8n/dist/deduplication/deduplication-helper.js):
 * one row per workflow and context ('n:<node id>' for scope node, '' for scope workflow), unique on
 * that pair, holding the md5 hashes of the values. checkProcessedAndRecord finds the row, then inserts
 * it (the unique key fails when another call inserted it meanwhile: all values count as new) or writes
 * back the list read before with the new hashes appended: no lock and no transaction, so a concurrent
 * update is lost. A call with another mode than the row's fails (validateMode). Each query is one
 * round trip, so concurrent calls interleave as they do against a database; with a `seed`, round trips
 * take 1-4 event-loop turns at random (repeatable), which varies the interleavings. `failures` makes
 * the next node-scope checks throw; `calls` counts node-scope checks.
 */
export class ProcessedDataTable {
  readonly rows = new Map<string, { mode: string; data: string[] }>();
  failures = 0;
  calls = 0;
  queries = 0;
  private state: number | undefined;

  constructor({ seed }: { seed?: number } = {}) {
    this.state = seed;
  }

  private async roundTrip() {
    let hops = 1;
    if (this.state !== undefined) {
      this.state = (this.state * 1103515245 + 12345) % 2 ** 31; // a small LCG: repeatable runs
      hops += this.state % 4;
    }
    for (let i = 0; i < hops; i++) await hop();
  }

  /** Hashes stored for the node (scope node). */
  entries(nodeId = node.id): string[] {
    return this.rows.get(`n:${nodeId}`)?.data ?? [];
  }

  holds(id: string, nodeId = node.id): boolean {
    return this.entries(nodeId).includes(md5(id));
  }

  private async find(context: string) {
    this.queries++;
    await this.roundTrip();
    const row = this.rows.get(context);
    return row ? { mode: row.mode, data: [...row.data] } : undefined;
  }

  private async write(context: string, value: { mode: string; data: string[] }, insert: boolean) {
    this.queries++;
    await this.roundTrip();
    if (insert && this.rows.has(context))
      throw new Error('duplicate key value violates unique constraint "PK_ca04b9d8dc72de268fe07a65773"');
    if (insert || this.rows.has(context)) this.rows.set(context, value);
  }

  helpers(nodeId = node.id) {
    const contextOf = (scope: string) => (scope === 'node' ? `n:${nodeId}` : '');
    return {
      checkProcessedAndRecord: async (items: Array<string | number>, scope: string, options: { mode: string; maxEntries?: number }) => {
        const context = contextOf(scope);
        if (scope === 'node') this.calls++;
        const found = await this.find(context);
        if (scope === 'node' && this.failures > 0) {
          this.failures--;
          throw new Error('Connection terminated unexpectedly');
        }
        if (found && found.mode !== options.mode)
          throw new Error(
            'Deduplication data was originally saved with an incompatible setting of the ‘Keep Items Where’ parameter. Try ’Clean Database’ operation to reset.',
          );
        const hashes = items.map(md5);
        if (!found) {
          await this.write(context, { mode: options.mode, data: hashes.slice(-(options.maxEntries ?? Infinity)) }, true);
          return { new: items, processed: [] };
        }
        const seen = new Set(found.data);
        const res = { new: [] as Array<string | number>, processed: [] as Array<string | number> };
        hashes.forEach((h, i) => {
          if (seen.has(h)) res.processed.push(items[i]!);
          else {
            res.new.push(items[i]!);
            found.data.push(h);
          }
        });
        await this.write(context, { mode: found.mode, data: found.data.slice(-(options.maxEntries ?? Infinity)) }, false);
        return res;
      },
      clearAllProcessedItems: async (scope: string) => {
        this.queries++;
        await this.roundTrip();
        this.rows.delete(contextOf(scope));
      },
      getProcessedDataCount: async (scope: string, options: { mode: string }) => {
        const found = await this.find(contextOf(scope));
        return options.mode === 'entries' && found?.mode === 'entries' ? found.data.length : 0;
      },
    };
  }
}

export function executeContext(items: INodeExecutionData[], table: ProcessedDataTable, mode = 'webhook', log = logger()) {
  return {
    getInputData: () => items,
    getMode: () => mode,
    getNode: () => node,
    getWorkflow: () => ({ id: 'wf-1' }),
    logger: log,
    helpers: table.helpers(),
  } as unknown as IExecuteFunctions;
}

export function pollContext(
  rig: Rig,
  staticData: IDataObject,
  params: NodeParams,
  mode = 'trigger',
  creds: IDataObject = credentials(rig),
) {
  const { requests, helpers } = httpHelpers(creds);
  return {
    getNode: () => node,
    getMode: () => mode,
    getWorkflowStaticData: () => staticData,
    getCredentials: async () => creds,
    getNodeParameter: param(params),
    helpers: { ...helpers, returnJsonArray: (items: IDataObject[]) => items.map((json) => ({ json })) },
    logger: logger(),
    requests,
  } as unknown as IPollFunctions & { helpers: HttpHelpers; requests: SentRequest[] };
}
