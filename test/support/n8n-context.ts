import type {
  ICredentialDataDecryptedObject,
  IDataObject,
  IExecuteFunctions,
  IHttpRequestOptions,
  ILoadOptionsFunctions,
  INode,
  INodeExecutionData,
} from 'n8n-workflow';
import { mock } from 'jest-mock-extended';
import { authenticate, forwardHttp, type SentRequest } from './n8n-http';

export interface ContextOptions {
  /** Node parameters; a function gets (name, itemIndex) for per-item values. */
  params: Record<string, unknown> | ((name: string, itemIndex: number) => unknown);
  items?: INodeExecutionData[];
  credentials: ICredentialDataDecryptedObject;
  continueOnFail?: boolean;
  nodeType?: string;
  /** The node's typeVersion (1 unless given). */
  version?: number;
}

export interface TestContext {
  ctx: IExecuteFunctions;
  /** Every HTTP request the node made, in order. */
  requests: SentRequest[];
}

/**
 * A jest-mock-extended IExecuteFunctions whose HTTP helpers go to the sandbox over real HTTP, with
 * the credential applied like n8n applies it. Only the execution context is mocked, never HTTP.
 */
export function executeContext(opts: ContextOptions): TestContext {
  const requests: SentRequest[] = [];
  const node: INode = {
    id: 'n1',
    name: 'Company Data',
    type: opts.nodeType ?? 'n8n-nodes-company-data.test',
    typeVersion: opts.version ?? 1,
    position: [0, 0],
    parameters: {},
  };
  const helpers = mock<IExecuteFunctions['helpers']>();
  const ctx = mock<IExecuteFunctions>({ helpers });
  ctx.getNode.mockReturnValue(node);
  ctx.getInputData.mockReturnValue(opts.items ?? [{ json: {} }]);
  ctx.continueOnFail.mockReturnValue(opts.continueOnFail ?? false);
  ctx.getCredentials.mockResolvedValue(opts.credentials);
  ctx.getNodeParameter.mockImplementation(((name: string, itemIndex: number, fallback?: unknown) => {
    const v = typeof opts.params === 'function' ? opts.params(name, itemIndex) : opts.params[name];
    return v === undefined ? fallback : v;
  }) as IExecuteFunctions['getNodeParameter']);
  wireHttp(helpers, opts.credentials, node, requests);
  return { ctx, requests };
}

type HttpHelpers = Pick<IExecuteFunctions['helpers'], 'httpRequest' | 'httpRequestWithAuthentication'>;

/** The helpers' HTTP calls go to the sandbox over real HTTP, with the credential applied as n8n applies it. */
function wireHttp(
  helpers: ReturnType<typeof mock<HttpHelpers>>,
  credentials: ICredentialDataDecryptedObject,
  node: INode,
  requests: SentRequest[],
) {
  helpers.httpRequest.mockImplementation(async (o: IHttpRequestOptions) => await forwardHttp(o, requests));
  helpers.httpRequestWithAuthentication.mockImplementation(async (type: string, o: IHttpRequestOptions) => {
    if (type !== 'companyDataApi') throw new Error(`unexpected credential type ${type}`);
    return await forwardHttp(authenticate(credentials, o, node), requests);
  });
}

export const jsonOf = (out: INodeExecutionData[][]) => out[0]!.map((i) => i.json as IDataObject);

/**
 * The context n8n gives listSearch and loadOptions methods (the editor's pickers and option lists),
 * with the same real-HTTP helpers as executeContext.
 */
export function loadOptionsContext(opts: Pick<ContextOptions, 'credentials' | 'nodeType' | 'version'>): {
  ctx: ILoadOptionsFunctions;
  requests: SentRequest[];
} {
  const requests: SentRequest[] = [];
  const node: INode = {
    id: 'n1',
    name: 'Company Data',
    type: opts.nodeType ?? 'n8n-nodes-company-data.test',
    typeVersion: opts.version ?? 2,
    position: [0, 0],
    parameters: {},
  };
  const helpers = mock<ILoadOptionsFunctions['helpers']>();
  const ctx = mock<ILoadOptionsFunctions>({ helpers });
  ctx.getNode.mockReturnValue(node);
  ctx.getCredentials.mockResolvedValue(opts.credentials);
  wireHttp(helpers, opts.credentials, node, requests);
  return { ctx, requests };
}
