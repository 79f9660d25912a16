import type {
  ICredentialDataDecryptedObject,
  ICredentialTestFunctions,
  IDataObject,
  IExecuteFunctions,
  IHttpRequestOptions,
  ILoadOptionsFunctions,
  INode,
  WorkflowExecuteMode,
} from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';
import { mock } from 'jest-mock-extended';
import { authenticate, forwardHttp, type SentRequest } from './n8n-http';

/**
 * n8n's contexts for Company Data: Google Sheets (jest-mock-extended), every request over real HTTP:
 * the lookups to the sandbox with the Company Data API credential applied as n8n applies it, Google's
 * token endpoint and Sheets API to the stand-in. Only n8n's execution context is mocked.
 */
export interface GoogleContextOptions {
  params: Record<string, unknown>;
  /** The Company Data API credential. */
  companyData: ICredentialDataDecryptedObject;
  /** The service-account credential (serviceAccountKey: the key file's JSON text). */
  serviceAccount?: ICredentialDataDecryptedObject;
  /** The OAuth2 credential as n8n holds it after the consent: oauthTokenData.access_token. */
  oauth?: ICredentialDataDecryptedObject;
  /** The workflow's static data of this node, kept by the test across executions as n8n keeps it. */
  staticData?: IDataObject;
  /** The execution's cancel signal (Stop). */
  signal?: AbortSignal;
  continueOnFail?: boolean;
  mode?: WorkflowExecuteMode;
}

/** The node as n8n hands it to its contexts. */
export const googleSheetsNode: INode = {
  id: 'g1',
  name: 'Company Data: Google Sheets',
  type: 'n8n-nodes-company-data.companyDataGoogleSheets',
  typeVersion: 1,
  position: [0, 0],
  parameters: {},
};

function credentialsOf(o: Pick<GoogleContextOptions, 'companyData' | 'serviceAccount' | 'oauth'>) {
  return async (type: string) => {
    const c =
      type === 'companyDataApi'
        ? o.companyData
        : type === 'companyDataGoogleServiceAccountApi'
          ? o.serviceAccount
          : type === 'companyDataGoogleSheetsOAuth2Api'
            ? o.oauth
            : undefined;
    if (!c) throw new Error(`Node "${googleSheetsNode.name}" does not have any credentials of type "${type}" set`);
    return c;
  };
}

type Helpers = Pick<IExecuteFunctions['helpers'], 'httpRequest' | 'httpRequestWithAuthentication'>;

/**
 * httpRequest as n8n's (the abort signal honoured); httpRequestWithAuthentication as n8n's: the Company
 * Data credential's header rule, or the OAuth2 token as a Bearer header, adding the execution's cancel
 * signal, and wrapping an HTTP error in a NodeApiError as n8n does.
 */
function wire(helpers: ReturnType<typeof mock<Helpers>>, o: GoogleContextOptions, requests: SentRequest[]) {
  helpers.httpRequest.mockImplementation(async (r: IHttpRequestOptions) => await forwardHttp(r, requests));
  helpers.httpRequestWithAuthentication.mockImplementation(async (type: string, r: IHttpRequestOptions) => {
    const withSignal = o.signal ? { ...r, abortSignal: o.signal } : r;
    if (type === 'companyDataApi') return await forwardHttp(authenticate(o.companyData, withSignal, googleSheetsNode), requests);
    if (type !== 'companyDataGoogleSheetsOAuth2Api' || !o.oauth) throw new Error(`unexpected credential type ${type}`);
    const token = (o.oauth.oauthTokenData as { access_token: string }).access_token;
    try {
      return await forwardHttp({ ...withSignal, headers: { ...withSignal.headers, Authorization: `Bearer ${token}` } }, requests);
    } catch (error) {
      throw new NodeApiError(googleSheetsNode, error as never);
    }
  });
}

export function googleExecuteContext(o: GoogleContextOptions): { ctx: IExecuteFunctions; requests: SentRequest[] } {
  const requests: SentRequest[] = [];
  const helpers = mock<IExecuteFunctions['helpers']>();
  const ctx = mock<IExecuteFunctions>({ helpers });
  ctx.getNode.mockReturnValue(googleSheetsNode);
  ctx.getInputData.mockReturnValue([{ json: {} }]);
  ctx.continueOnFail.mockReturnValue(o.continueOnFail ?? false);
  ctx.getMode.mockReturnValue(o.mode ?? 'trigger');
  ctx.getCredentials.mockImplementation(credentialsOf(o) as IExecuteFunctions['getCredentials']);
  ctx.getNodeParameter.mockImplementation(((name: string, _i: number, fallback?: unknown) =>
    o.params[name] === undefined ? fallback : o.params[name]) as IExecuteFunctions['getNodeParameter']);
  ctx.getExecutionCancelSignal.mockReturnValue(o.signal);
  ctx.getWorkflow.mockReturnValue({ id: 'wf1', name: 'Leads enrichment', active: false });
  ctx.getExecutionId.mockReturnValue('1');
  const staticData = o.staticData ?? {};
  ctx.getWorkflowStaticData.mockReturnValue(staticData);
  wire(helpers, o, requests);
  return { ctx, requests };
}

/** The editor's context (lists of sheets and columns), with the same helpers. */
export function googleLoadOptionsContext(o: Omit<GoogleContextOptions, 'staticData' | 'signal' | 'continueOnFail' | 'mode'>): {
  ctx: ILoadOptionsFunctions;
  requests: SentRequest[];
} {
  const requests: SentRequest[] = [];
  const helpers = mock<ILoadOptionsFunctions['helpers']>();
  const ctx = mock<ILoadOptionsFunctions>({ helpers });
  ctx.getNode.mockReturnValue(googleSheetsNode);
  ctx.getCredentials.mockImplementation(credentialsOf(o) as ILoadOptionsFunctions['getCredentials']);
  ctx.getNodeParameter.mockImplementation(((name: string, fallback?: unknown) =>
    o.params[name] === undefined ? fallback : o.params[name]) as ILoadOptionsFunctions['getNodeParameter']);
  wire(helpers, o, requests);
  return { ctx, requests };
}

/**
 * The context n8n gives a credential test: only the legacy request helper (n8n's adapter turns it into an
 * axios call; here: uri, method, headers, string body, simple false and resolveWithFullResponse, over real HTTP).
 */
export function credentialTestContext(): { ctx: ICredentialTestFunctions; requests: SentRequest[] } {
  const requests: SentRequest[] = [];
  const ctx = mock<ICredentialTestFunctions>();
  ctx.helpers.request = async (uriOrObject: string | object) => {
    const r = uriOrObject as { uri: string; method?: string; headers?: Record<string, string>; body?: string; timeout?: number };
    return await forwardHttp(
      {
        url: r.uri,
        method: (r.method ?? 'GET') as IHttpRequestOptions['method'],
        headers: r.headers,
        body: r.body,
        timeout: r.timeout,
        returnFullResponse: true,
        ignoreHttpStatusErrors: true,
        encoding: 'text',
        json: false,
      },
      requests,
    );
  };
  return { ctx, requests };
}
