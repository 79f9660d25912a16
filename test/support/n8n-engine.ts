/**
 * Runs workflows in n8n-core's real execution engine (WorkflowExecute), the way n8n's own node test
 * harness does (packages/core/nodes-testing): real expressions, real credential handling through
 * an ICredentialsHelper, real httpRequestWithAuthentication (axios) over loopback HTTP.
 */
import './n8n-engine-env';
import { ExecutionLifecycleHooks, WorkflowExecute } from 'n8n-core';
import { mock } from 'jest-mock-extended';
import type {
  ICredentialDataDecryptedObject,
  IDataObject,
  IExecuteFunctions,
  IHttpRequestOptions,
  INode,
  INodeExecutionData,
  INodeType,
  INodeTypeDescription,
  INodeTypes,
  IRun,
  IRunExecutionData,
  IWorkflowExecuteAdditionalData,
  Workflow as WorkflowType,
} from 'n8n-workflow';
import { createDeferredPromise, ICredentialsHelper, NodeConnectionTypes, Workflow } from 'n8n-workflow';
import { CompanyDataApi } from '../../credentials/CompanyDataApi.credentials';

/** A start node that emits the items given in its "items" parameter (the test's stand-in for a sheet). */
class StaticItems implements INodeType {
  description: INodeTypeDescription = {
    displayName: 'Items',
    name: 'staticItems',
    group: ['input'],
    version: 1,
    description: 'Emits fixed items',
    defaults: { name: 'Items' },
    inputs: [NodeConnectionTypes.Main],
    outputs: [NodeConnectionTypes.Main],
    properties: [{ displayName: 'Items', name: 'items', type: 'json', default: '[]' }],
  };
  async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
    const rows = this.getNodeParameter('items', 0) as IDataObject[] | string;
    const list = (typeof rows === 'string' ? JSON.parse(rows) : rows) as IDataObject[];
    return [list.map((json) => ({ json }))];
  }
}

/** Applies the credential's generic authenticate rule as n8n's CLI CredentialsHelper does. */
class TestCredentialsHelper extends ICredentialsHelper {
  constructor(private readonly data: Record<string, ICredentialDataDecryptedObject>) {
    super();
  }
  getParentTypes() {
    return [];
  }
  async authenticate(
    credentials: ICredentialDataDecryptedObject,
    typeName: string,
    requestOptions: IHttpRequestOptions,
    workflow: WorkflowType,
    node: INode,
  ) {
    if (typeName !== 'companyDataApi') return requestOptions;
    const resolve = (v: string) => {
      if (!v.startsWith('=')) return v;
      const r = workflow.expression.getSimpleParameterValue(node, v, 'internal', { $credentials: credentials }, undefined, '');
      return r ? String(r) : '';
    };
    requestOptions.headers ??= {};
    for (const [k, v] of Object.entries(new CompanyDataApi().authenticate.properties.headers ?? {}))
      requestOptions.headers[resolve(k)] = resolve(String(v));
    return requestOptions;
  }
  async preAuthentication() {
    return undefined;
  }
  async runPreAuthentication() {
    return undefined;
  }
  async getCredentials(): Promise<never> {
    throw new Error('not used');
  }
  async getDecrypted(_a: unknown, _n: unknown, type: string) {
    return this.data[type] ?? {};
  }
  async updateCredentials() {}
  async updateCredentialsOauthTokenData() {}
  getCredentialsProperties() {
    return [];
  }
}

export interface EngineRun {
  run: IRun;
  /** Output items of a node's first run, first output. */
  output(nodeName: string): INodeExecutionData[];
}

/** Runs Items → the given nodes (a chain) once, manually, and waits for the end. */
export async function runWorkflow(opts: {
  items: IDataObject[];
  chain: Array<{ name: string; type: INodeType; parameters: INode['parameters']; onError?: INode['onError'] }>;
  credentials: ICredentialDataDecryptedObject;
}): Promise<EngineRun> {
  const types: Record<string, INodeType> = { 'test.staticItems': new StaticItems() as unknown as INodeType };
  opts.chain.forEach((c, i) => (types[`test.node${i}`] = c.type));
  const nodeTypes: INodeTypes = {
    getByName: (t: string) => types[t]!,
    getByNameAndVersion: (t: string) => types[t]!,
    getKnownTypes: () => ({}),
  } as INodeTypes;

  const nodes: INode[] = [
    {
      id: 'items',
      name: 'Items',
      type: 'test.staticItems',
      typeVersion: 1,
      position: [0, 0],
      parameters: { items: JSON.stringify(opts.items) },
    },
    ...opts.chain.map((c, i) => ({
      id: `n${i}`,
      name: c.name,
      type: `test.node${i}`,
      typeVersion: 1,
      position: [200 * (i + 1), 0] as [number, number],
      parameters: c.parameters,
      credentials: { companyDataApi: { id: '1', name: 'Company Data account' } },
      ...(c.onError ? { onError: c.onError } : {}),
    })),
  ];
  const names = nodes.map((n) => n.name);
  const connections = Object.fromEntries(
    names.slice(0, -1).map((from, i) => [from, { main: [[{ node: names[i + 1]!, type: NodeConnectionTypes.Main, index: 0 }]] }]),
  );
  const workflow = new Workflow({ id: 'test', nodes, connections, active: false, nodeTypes });

  const hooks = new ExecutionLifecycleHooks('manual', '1', mock());
  const done = createDeferredPromise<IRun>();
  hooks.addHandler('workflowExecuteAfter', (fullRunData) => done.resolve(fullRunData as unknown as IRun));
  // n8n-core 1.122.10 carries its own n8n-workflow (1.120.6) next to the package's 1.120.4: the same
  // shapes under two type identities, hence the casts at this boundary.
  const additionalData = mock<Record<string, unknown>>({
    hooks,
    currentNodeParameters: undefined,
  }) as unknown as IWorkflowExecuteAdditionalData;
  additionalData.credentialsHelper = new TestCredentialsHelper({ companyDataApi: opts.credentials });

  const runExecutionData: IRunExecutionData = {
    resultData: { runData: {} },
    executionData: {
      metadata: {},
      contextData: {},
      waitingExecution: {},
      waitingExecutionSource: null,
      nodeExecutionStack: [{ node: nodes[0]!, data: { main: [[{ json: {} }]] }, source: null }],
    },
  } as unknown as IRunExecutionData;
  const execute = new WorkflowExecute(additionalData as never, 'manual', runExecutionData as never);
  await execute.processRunExecutionData(workflow as never);
  const run = await done.promise;
  return {
    run,
    output: (name) => run.data.resultData.runData[name]?.[0]?.data?.main?.[0] ?? [],
  };
}
