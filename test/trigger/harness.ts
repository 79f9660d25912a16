import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { vi } from 'vitest';
import type { ICredentialDataDecryptedObject, IDataObject, IExecuteFunctions, IHookFunctions, IHttpRequestOptions, INodeExecutionData, IPollFunctions, IWebhookFunctions } from 'n8n-workflow';
import { startSandbox, type Sandbox } from '../../packages/cli/src/sandbox';
import { writeHandlers } from '../../packages/cli/src/sandbox/write/handlers';
import type { EventService } from '../../packages/cli/src/sandbox/write/service';
import { hashKey, keyId } from '../../packages/cli/src/sandbox/http/keys';
import type { CompanyPort } from '../../packages/cli/src/sandbox/monitoring/company-port';
import { authenticate, forwardHttp, type SentRequest } from '../support/n8n-http';

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

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
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
  writeHandlers['monitoring.addCompanies']!(rig.svc, ACCOUNT, { list_id: list.id, add: [{ registry_code: code!, external_ref: 'CRM-991' }] });
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

const node = { id: 'node-1', name: 'Company Data Trigger', type: 'n8n-nodes-company-data.companyDataTrigger', typeVersion: 1, position: [0, 0] as [number, number], parameters: {} };
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

export function hookContext(rig: Rig, staticData: IDataObject, params: NodeParams = {}, creds: IDataObject = credentials(rig), url = 'https://n8n.example.ee/webhook/abc/webhook') {
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

export function webhookContext(staticData: IDataObject, delivery: { rawBody: unknown; headers: IncomingMessage['headers'] }, params: NodeParams = {}, creds: IDataObject = {}, workflowId = 'wf-1') {
  const response = { statusCode: 200, body: undefined as unknown };
  const res = {
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

/**
 * n8n's processed-data store as n8n 2.41 runs it (DeduplicationHelper.handleHashedItems): find the
 * node's row, then insert it (the unique key fails when another call inserted it meanwhile) or
 * write back the copy read before, with no lock in between. `failures` makes the next calls throw.
 */
export class ProcessedDataTable {
  readonly rows = new Map<string, string[]>();
  failures = 0;
  calls = 0;
  helpers(nodeKey: string) {
    return {
      checkProcessedAndRecord: async (items: Array<string | number>, scope: string, options: { mode: string; maxEntries?: number }) => {
        this.calls++;
        const key = `${scope}:${nodeKey}`;
        const found = this.rows.get(key);
        const read = found ? [...found] : undefined;
        await new Promise((r) => setImmediate(r)); // the database round trip
        if (this.failures > 0) {
          this.failures--;
          throw new Error('SQLITE_BUSY: database is locked');
        }
        const fresh = items.map(String).filter((i) => !read?.includes(i));
        if (!read) {
          if (this.rows.has(key)) throw new Error('SQLITE_CONSTRAINT: UNIQUE constraint failed: processed_data.workflowId, processed_data.context');
          this.rows.set(key, fresh.slice(-(options.maxEntries ?? Infinity)));
        } else {
          this.rows.set(key, [...read, ...fresh].slice(-(options.maxEntries ?? Infinity)));
        }
        return { new: fresh, processed: items.map(String).filter((i) => !fresh.includes(i)) };
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
    helpers: table.helpers('wf-1:node-1'),
  } as unknown as IExecuteFunctions;
}

export function pollContext(rig: Rig, staticData: IDataObject, params: NodeParams, mode = 'trigger', creds: IDataObject = credentials(rig)) {
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
