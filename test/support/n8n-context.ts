import type { ICredentialDataDecryptedObject, IDataObject, IExecuteFunctions, IHttpRequestOptions, INode, INodeExecutionData } from 'n8n-workflow';
import { mock } from 'jest-mock-extended';
import { authenticate, forwardHttp, type SentRequest } from './n8n-http';

export interface ContextOptions {
  /** Node parameters; a function gets (name, itemIndex) for per-item values. */
  params: Record<string, unknown> | ((name: string, itemIndex: number) => unknown);
  items?: INodeExecutionData[];
  credentials: ICredentialDataDecryptedObject;
  continueOnFail?: boolean;
  nodeType?: string;
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
  const node: INode = { id: 'n1', name: 'Company Data', type: opts.nodeType ?? 'n8n-nodes-company-data.test', typeVersion: 1, position: [0, 0], parameters: {} };
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
  helpers.httpRequest.mockImplementation(async (o: IHttpRequestOptions) => await forwardHttp(o, requests));
  helpers.httpRequestWithAuthentication.mockImplementation(async (type: string, o: IHttpRequestOptions) => {
    if (type !== 'companyDataApi') throw new Error(`unexpected credential type ${type}`);
    return await forwardHttp(authenticate(opts.credentials, o, node), requests);
  });
  return { ctx, requests };
}

export const jsonOf = (out: INodeExecutionData[][]) => out[0]!.map((i) => i.json as IDataObject);
