// A local stand-in for the OpenAI Chat Completions API, so the AI-agent example runs offline. It is
// scripted, not smart: `reply(request, index)` decides each answer from what n8n sent (the messages
// and the `tools` n8n offers). Every request is recorded for the checks; the API key is compared, never kept.
import http from 'node:http';

/**
 * The parts of a Chat Completions request the stand-in and the scripts read.
 * @typedef {{ name: string, description?: string, parameters?: { properties?: Record<string, unknown> } }} FunctionTool
 * @typedef {{ type: string, function: FunctionTool }} OfferedTool
 * @typedef {{ role: string, content?: string | { text?: string }[] | null, tool_calls?: ToolCall[] }} RequestMessage
 * @typedef {{ model?: string, stream?: boolean, stream_options?: { include_usage?: boolean }, tools?: OfferedTool[], messages?: RequestMessage[] }} ChatRequest
 */
/**
 * What a script answers: tool calls, or else a text.
 * @typedef {{ toolCalls?: { name: string, arguments: unknown }[], text?: string }} Answer
 * @typedef {(body: ChatRequest, index: number) => Answer} Reply
 */
/** @typedef {{ id: string, type: 'function', function: { name: string, arguments: string } }} ToolCall */
/** @typedef {{ role: 'assistant', content: string | null, tool_calls?: ToolCall[] }} AssistantMessage */

/**
 * Starts the stand-in on 127.0.0.1. apiKey: the bearer key n8n must send (from its openAiApi credential).
 * reply(body, index) returns { toolCalls: [{ name, arguments }] } or { text }.
 * Returns { url (the credential's Base URL, ending in /v1), requests, close() }.
 * @param {{ apiKey: string, reply: Reply, host?: string, port?: number }} opts
 */
export async function startLlmStandIn({ apiKey, reply, host = '127.0.0.1', port = 0 }) {
  /** @type {ChatRequest[]} */
  const requests = [];
  let calls = 0;
  const server = http.createServer((req, res) => {
    /** @type {Buffer[]} */
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      /**
       * @param {number} status
       * @param {unknown} body
       */
      const send = (status, body) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (req.headers.authorization !== `Bearer ${apiKey}`) {
        return send(401, { error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' } });
      }
      // The credential's "Test" button lists models.
      if (req.method === 'GET' && req.url === '/v1/models') {
        return send(200, { object: 'list', data: [{ id: 'gpt-4o-mini', object: 'model', owned_by: 'stand-in' }] });
      }
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        return send(404, {
          error: {
            message: `The stand-in only answers POST /v1/chat/completions, not ${req.method} ${req.url}`,
            type: 'invalid_request_error',
          },
        });
      }
      /** @type {ChatRequest} */
      let body;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return send(400, { error: { message: 'body is not JSON', type: 'invalid_request_error' } });
      }
      requests.push(body);
      let answer;
      try {
        answer = reply(body, calls++);
      } catch (err) {
        answer = { text: `stand-in script failed: ${errorMessage(err)}` };
      }
      const message = toMessage(answer);
      const id = `chatcmpl-standin-${calls}`;
      const finish = message.tool_calls ? 'tool_calls' : 'stop';
      const usage = { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 };
      if (body.stream)
        return streamAnswer(res, { id, model: body.model, message, finish, usage: body.stream_options?.include_usage ? usage : undefined });
      send(200, {
        id,
        object: 'chat.completion',
        created: now(),
        model: body.model,
        choices: [{ index: 0, message, logprobs: null, finish_reason: finish }],
        usage,
      });
    });
  });
  await new Promise((resolve) => server.listen(port, host, () => resolve(undefined)));
  return {
    url: `http://${host}:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}/v1`,
    requests,
    close: () => /** @type {Promise<void>} */ (new Promise((resolve) => server.close(() => resolve()))),
  };
}

const now = () => Math.floor(Date.now() / 1000);

/**
 * What a thrown value says (a script may throw anything).
 * @param {unknown} err
 */
const errorMessage = (err) => (err instanceof Error ? err.message : String(err));

/**
 * @param {Answer} answer
 * @returns {AssistantMessage}
 */
function toMessage(answer) {
  if (answer.toolCalls?.length) {
    return {
      role: 'assistant',
      content: null,
      tool_calls: answer.toolCalls.map((c, i) => ({
        id: `call_standin_${i + 1}`,
        type: 'function',
        function: { name: c.name, arguments: JSON.stringify(c.arguments) },
      })),
    };
  }
  return { role: 'assistant', content: String(answer.text ?? '') };
}

/**
 * Server-sent events, for a client that asks for `stream: true` (n8n's agent does when the chat streams).
 * @param {http.ServerResponse} res
 * @param {{ id: string, model: string | undefined, message: AssistantMessage, finish: string, usage: object | undefined }} answer
 */
function streamAnswer(res, { id, model, message, finish, usage }) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  /**
   * @param {object} delta
   * @param {string | null} [finishReason]
   */
  const chunk = (delta, finishReason = null, extra = {}) =>
    res.write(
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: now(), model, choices: [{ index: 0, delta, finish_reason: finishReason }], ...extra })}\n\n`,
    );
  const delta = message.tool_calls
    ? { role: 'assistant', content: null, tool_calls: message.tool_calls.map((c, index) => ({ index, ...c })) }
    : { role: 'assistant', content: message.content };
  chunk(delta);
  chunk({}, finish);
  if (usage) res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: now(), model, choices: [], usage })}\n\n`);
  res.end('data: [DONE]\n\n');
}

/**
 * The function tools offered in a request: [{ name, description, parameters }].
 * @param {ChatRequest} body
 */
export const offeredTools = (body) => (body.tools ?? []).filter((t) => t.type === 'function').map((t) => t.function);

/**
 * Messages with role "tool" (results n8n sends back after running a tool call).
 * @param {ChatRequest} body
 */
export const toolResults = (body) => (body.messages ?? []).filter((m) => m.role === 'tool');

/** @param {RequestMessage['content']} content */
const textOf = (content) => (Array.isArray(content) ? content.map((p) => p.text ?? '').join('') : String(content ?? ''));

/**
 * The script of the company-research check: first answer, a call of the offered tool that takes a
 * `registry_code`; once the tool result is in the messages, a final text quoting the company name it holds.
 * @param {string} registryCode
 * @returns {Reply}
 */
export function profileLookupScript(registryCode) {
  return (body) => {
    const results = toolResults(body);
    if (results.length === 0) {
      const tool = offeredTools(body).find((t) => t.parameters?.properties?.registry_code);
      if (!tool)
        return {
          text: `No tool with a registry_code parameter was offered (tools: ${
            offeredTools(body)
              .map((t) => t.name)
              .join(', ') || 'none'
          }).`,
        };
      return { toolCalls: [{ name: tool.name, arguments: { registry_code: registryCode } }] };
    }
    const content = textOf(results[results.length - 1].content);
    const name = companyNameIn(content);
    return {
      text: name ? `Registry code ${registryCode} belongs to ${name}.` : `The tool result named no company: ${content.slice(0, 200)}`,
    };
  };
}

/**
 * The offline demo's script (npm start): looks up the 8-digit registry code written in the user's last
 * chat message, or says what to write. Not a model: it only shows the tool wiring working.
 * @returns {Reply}
 */
export function chatRegistryCodeScript() {
  return (body, index) => {
    const user = (body.messages ?? []).filter((m) => m.role === 'user').at(-1);
    const code = /\b\d{8}\b/.exec(textOf(user?.content))?.[0];
    if (!code)
      return {
        text: 'I am the offline stand-in model of this demo: write an 8-digit registry code (e.g. 13545698) and I will look it up with the Company Data tool.',
      };
    return profileLookupScript(code)(body, index);
  };
}

/**
 * n8n hands a tool's output items to the model as JSON text (an array of items or one object).
 * @param {string} content
 * @returns {string | undefined}
 */
function companyNameIn(content) {
  let parsed;
  try {
    parsed = JSON.parse(content);
  } catch {
    return /"name"\s*:\s*"([^"]+)"/.exec(content)?.[1];
  }
  const first = Array.isArray(parsed) ? parsed[0] : parsed;
  const item = first?.json ?? first;
  return typeof item?.name === 'string' ? item.name : undefined;
}

/**
 * The script of the MCP agent check: first answer, a call of the MCP tool `toolName` (default companies_get)
 * with the registry code; once the tool result is in the messages, a final text quoting the company name it
 * holds. MCP tools arrive as separate function tools, many taking a registry_code, so the tool is chosen by
 * name. n8n 2.41.1 prefixes each with its MCP Client node's name ("Company Data MCP" → "Company_Data_MCP_companies_get"),
 * so a name ending in "_<toolName>" counts too; of several, the shortest, since other tools may end the same way
 * ("x_companies_get") while the prefix is the same for all tools of one node.
 * @param {string} registryCode
 * @returns {Reply}
 */
export function mcpLookupScript(registryCode, toolName = 'companies_get') {
  return (body) => {
    const results = toolResults(body);
    if (results.length === 0) {
      const tool = findMcpTool(offeredTools(body), toolName);
      if (!tool)
        return {
          text: `No MCP tool ${toolName} was offered (tools: ${
            offeredTools(body)
              .map((t) => t.name)
              .join(', ') || 'none'
          }).`,
        };
      return { toolCalls: [{ name: tool.name, arguments: { registry_code: registryCode } }] };
    }
    const content = textOf(results[results.length - 1].content);
    const name = mcpItems(content)?.[0]?.name;
    return {
      text:
        typeof name === 'string'
          ? `Registry code ${registryCode} belongs to ${name}.`
          : `The MCP tool result named no company: ${content.slice(0, 200)}`,
    };
  };
}

/**
 * The offered function tool for MCP tool `toolName`: exact name, else the shortest ending in "_<toolName>".
 * @param {FunctionTool[]} tools
 * @param {string} toolName
 * @returns {FunctionTool | undefined}
 */
export function findMcpTool(tools, toolName) {
  return tools.filter((t) => t.name === toolName || t.name.endsWith(`_${toolName}`)).sort((a, b) => a.name.length - b.name.length)[0];
}

/**
 * The `items` of an MCP tool result as it reaches the model: the structured content ({ items, ... }) as JSON,
 * or the content blocks ([{ type: 'text', text: '<JSON>' }]) as JSON, or the text itself; undefined when none
 * holds items.
 * @param {unknown} value
 * @returns {Record<string, unknown>[] | undefined}
 */
export function mcpItems(value) {
  if (typeof value === 'string') {
    try {
      return mcpItems(JSON.parse(value));
    } catch {
      return undefined;
    }
  }
  if (Array.isArray(value)) {
    for (const block of value) {
      const items = block?.type === 'text' ? mcpItems(block.text) : undefined;
      if (items) return items;
    }
    return undefined;
  }
  if (value && typeof value === 'object') {
    const result = /** @type {{ items?: unknown, structuredContent?: unknown, content?: unknown }} */ (value);
    if (Array.isArray(result.items)) return result.items;
    return mcpItems(result.structuredContent) ?? mcpItems(result.content);
  }
  return undefined;
}
