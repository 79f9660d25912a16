// The MCP agent workflow of e2e/workflows/ and how the e2e points it at this machine: the MCP server
// started for the run, its bearer-token credential, and (through adaptExample) the stand-in chat model.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { adaptExample } from './examples.mjs';

export const MCP_WORKFLOW_FILE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../workflows/ai-agent-mcp.json');
export const MCP_NODE_TYPE = '@n8n/n8n-nodes-langchain.mcpClientTool';
/** The endpoint the file ships with: `company-data mcp --http` on its default port. */
export const MCP_ENDPOINT_PLACEHOLDER = 'http://127.0.0.1:3333/mcp';

/** @typedef {import('./examples.mjs').Workflow} Workflow */

/** @returns {Workflow} */
export const readMcpWorkflow = () => JSON.parse(fs.readFileSync(MCP_WORKFLOW_FILE, 'utf8'));

/**
 * A copy with local values: mcpUrl replaces the shipped endpoint, bearerCredential ({ id, name } of an
 * httpBearerAuth credential) the token credential; llmCredential and publicChat as in adaptExample.
 */
/**
 * @param {Workflow} workflow
 * @param {{ mcpUrl?: string, bearerCredential?: import('./examples.mjs').CredentialRef, llmCredential?: import('./examples.mjs').CredentialRef, publicChat?: boolean }} [opts]
 */
export function adaptMcpWorkflow(workflow, { mcpUrl, bearerCredential, llmCredential, publicChat } = {}) {
  const wf = adaptExample(workflow, { llmCredential, publicChat });
  for (const node of wf.nodes.filter((n) => n.type === MCP_NODE_TYPE)) {
    if (mcpUrl && node.parameters?.endpointUrl === MCP_ENDPOINT_PLACEHOLDER) node.parameters.endpointUrl = mcpUrl;
    if (bearerCredential && node.credentials?.httpBearerAuth)
      node.credentials.httpBearerAuth = { id: bearerCredential.id, name: bearerCredential.name };
  }
  return wf;
}

/**
 * The name n8n 2.41.1 gives an MCP tool when it offers it to the model: the MCP Client node's name with
 * every character other than [a-zA-Z0-9] made "_", then "_" and the tool's name, the prefix cut so the
 * whole stays within 64 characters (buildMcpToolName in @n8n/n8n-nodes-langchain, McpClientTool/utils.js).
 * @param {string} nodeName
 * @param {string} toolName
 */
export function mcpToolName(nodeName, toolName) {
  const prefix = nodeName.replace(/[^a-zA-Z0-9]/g, '_');
  const full = `${prefix}_${toolName}`;
  if (full.length <= 64) return full;
  const room = 64 - toolName.length - 1;
  return room > 0 ? `${prefix.slice(0, room)}_${toolName}` : toolName;
}
