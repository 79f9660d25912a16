import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Static checks of e2e/workflows/ai-agent-mcp.json (the real-n8n run is `npm run e2e`): the MCP Client Tool
 * settings n8n 2.41.1 needs for `company-data mcp --http`, and what the e2e changes when it imports the file.
 */
interface WfNode {
  name: string;
  type: string;
  typeVersion: number;
  parameters: Record<string, unknown>;
  credentials?: Record<string, { id: string; name: string }>;
}
interface Wf {
  name: string;
  nodes: WfNode[];
  connections: Record<string, Record<string, { node: string; type: string }[][]>>;
}
interface Lib {
  MCP_WORKFLOW_FILE: string;
  MCP_NODE_TYPE: string;
  MCP_ENDPOINT_PLACEHOLDER: string;
  readMcpWorkflow(): Wf;
  adaptMcpWorkflow(
    wf: Wf,
    o: {
      mcpUrl?: string;
      bearerCredential?: { id: string; name: string };
      llmCredential?: { id: string; name: string };
      publicChat?: boolean;
    },
  ): Wf;
  mcpToolName(nodeName: string, toolName: string): string;
}
const load = async (): Promise<Lib> => import(path.resolve('e2e/lib/mcp-workflow.mjs'));

describe('MCP agent workflow (e2e/workflows/ai-agent-mcp.json)', () => {
  it('Chat Trigger → AI Agent with the OpenAI model and an MCP Client Tool on Streamable HTTP with a bearer credential', async () => {
    const lib = await load();
    const wf = lib.readMcpWorkflow();
    const byType = (t: string) => wf.nodes.filter((n) => n.type === t);
    const [mcp] = byType(lib.MCP_NODE_TYPE);
    expect(mcp).toBeDefined();
    // 1.4: the current version in n8n 2.41.1 (1.2 and later have endpointUrl + serverTransport and the bearerAuth option).
    expect(mcp!.typeVersion).toBe(1.4);
    expect(mcp!.parameters).toEqual({
      endpointUrl: lib.MCP_ENDPOINT_PLACEHOLDER,
      serverTransport: 'httpStreamable',
      authentication: 'bearerAuth',
      include: 'all',
      options: {},
    });
    expect(lib.MCP_ENDPOINT_PLACEHOLDER).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(mcp!.credentials).toEqual({ httpBearerAuth: { id: 'company-data-mcp-token', name: 'Company Data MCP token' } });
    expect(byType('@n8n/n8n-nodes-langchain.lmChatOpenAi')[0]?.credentials?.openAiApi?.name).toBe('OpenAI account');
    expect(byType('@n8n/n8n-nodes-langchain.chatTrigger')[0]?.parameters.public ?? false).toBe(false);
    expect(wf.connections[mcp!.name]).toEqual({ ai_tool: [[{ node: 'AI Agent', type: 'ai_tool', index: 0 }]] });
    const names = new Set(wf.nodes.map((n) => n.name));
    for (const [from, outputs] of Object.entries(wf.connections)) {
      expect(names).toContain(from);
      for (const t of Object.values(outputs).flat(2)) expect(names).toContain(t.node);
    }
    // The sticky note says what to start and where the token goes.
    const note = String(byType('n8n-nodes-base.stickyNote')[0]?.parameters.content ?? '');
    expect(note).toContain('company-data mcp --http');
    expect(note).toContain('COMPANY_DATA_MCP_TOKEN');
    expect(note).toContain('Company Data MCP token');
  });

  it('the e2e adaptation changes the endpoint and the three credentials and makes the chat public, nothing else', async () => {
    const lib = await load();
    const wf = lib.readMcpWorkflow();
    const out = lib.adaptMcpWorkflow(wf, {
      mcpUrl: 'http://127.0.0.1:45678/mcp',
      bearerCredential: { id: 'b1', name: 'Bearer' },
      llmCredential: { id: 'o1', name: 'OpenAI stand-in' },
      publicChat: true,
    });
    const mcp = out.nodes.find((n) => n.type === lib.MCP_NODE_TYPE)!;
    expect(mcp.parameters.endpointUrl).toBe('http://127.0.0.1:45678/mcp');
    expect(mcp.credentials).toEqual({ httpBearerAuth: { id: 'b1', name: 'Bearer' } });
    expect(out.nodes.find((n) => n.credentials?.openAiApi)?.credentials?.openAiApi).toEqual({ id: 'o1', name: 'OpenAI stand-in' });
    expect(out.nodes.find((n) => n.type === '@n8n/n8n-nodes-langchain.chatTrigger')?.parameters.public).toBe(true);
    // The rest is untouched, and the file's object is not changed.
    const strip = (w: Wf) =>
      w.nodes.map((n) => ({ ...n, parameters: { ...n.parameters, endpointUrl: undefined, public: undefined }, credentials: undefined }));
    expect(strip(out)).toEqual(strip(wf));
    expect(wf).toEqual(lib.readMcpWorkflow());
  });

  it('mcpToolName names tools as n8n 2.41.1 offers them to the model', async () => {
    const { mcpToolName } = await load();
    expect(mcpToolName('Company Data MCP', 'companies_get')).toBe('Company_Data_MCP_companies_get');
    // Past 64 characters the prefix is cut, the tool's own name kept.
    const long = mcpToolName('An MCP client node with a very long descriptive name', 'monitoring_remove_company');
    expect(long).toHaveLength(64);
    expect(long.endsWith('_monitoring_remove_company')).toBe(true);
  });
});
