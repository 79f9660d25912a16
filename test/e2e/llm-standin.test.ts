import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

/** The scripted OpenAI stand-in of the agent e2e check (e2e/lib/llm.mjs), over real HTTP. */
interface Tool {
  name: string;
  description?: string;
  parameters?: { properties?: Record<string, unknown> };
}
interface Body {
  model?: string;
  stream?: boolean;
  messages: { role: string; content: unknown }[];
  tools?: { type: string; function: Tool }[];
}
interface StandIn {
  url: string;
  requests: Body[];
  close(): Promise<void>;
}
interface Lib {
  startLlmStandIn(o: { apiKey: string; reply: (body: Body, index: number) => unknown }): Promise<StandIn>;
  profileLookupScript(code: string): (body: Body, index: number) => unknown;
  mcpLookupScript(code: string, toolName?: string): (body: Body, index: number) => unknown;
  mcpItems(value: unknown): { name?: string; registry_code?: string }[] | undefined;
}
const load = async (): Promise<Lib> => import(path.resolve('e2e/lib/llm.mjs'));

const KEY = 'sk-test-standin';
const tools = [
  { type: 'function', function: { name: 'Search_companies', parameters: { type: 'object', properties: { q: { type: 'string' } } } } },
  {
    type: 'function',
    function: { name: 'Company_profile', parameters: { type: 'object', properties: { registry_code: { type: 'string' } } } },
  },
];
const question = { role: 'user', content: 'Who is 13545698?' };

let standIn: StandIn | undefined;
afterEach(async () => {
  await standIn?.close();
  standIn = undefined;
});

async function post(body: unknown, key = KEY) {
  const res = await fetch(`${standIn!.url}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
}

describe('OpenAI stand-in (e2e/lib/llm.mjs)', () => {
  it('first answer calls the tool with a registry_code parameter, second quotes the name in the tool result', async () => {
    const lib = await load();
    standIn = await lib.startLlmStandIn({ apiKey: KEY, reply: lib.profileLookupScript('13545698') });
    expect(standIn.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);

    const first = await post({ model: 'gpt-4o-mini', messages: [question], tools });
    expect(first.status).toBe(200);
    const msg1 = JSON.parse(first.text).choices[0];
    expect(msg1.finish_reason).toBe('tool_calls');
    expect(msg1.message.tool_calls[0].function.name).toBe('Company_profile');
    expect(JSON.parse(msg1.message.tool_calls[0].function.arguments)).toEqual({ registry_code: '13545698' });

    const toolMessage = {
      role: 'tool',
      tool_call_id: msg1.message.tool_calls[0].id,
      content: JSON.stringify([{ registry_code: '13545698', name: 'Lõunaranna Tarkvara OÜ' }]),
    };
    const second = await post({ model: 'gpt-4o-mini', messages: [question, msg1.message, toolMessage], tools });
    const msg2 = JSON.parse(second.text).choices[0];
    expect(msg2.finish_reason).toBe('stop');
    expect(msg2.message.content).toBe('Registry code 13545698 belongs to Lõunaranna Tarkvara OÜ.');
    expect(standIn.requests).toHaveLength(2);
  });

  it('says which tools it got when none takes a registry_code', async () => {
    const lib = await load();
    standIn = await lib.startLlmStandIn({ apiKey: KEY, reply: lib.profileLookupScript('13545698') });
    const res = await post({ messages: [question], tools: [tools[0]] });
    expect(JSON.parse(res.text).choices[0].message.content).toBe(
      'No tool with a registry_code parameter was offered (tools: Search_companies).',
    );
  });

  it('streams the tool call as server-sent events when asked', async () => {
    const lib = await load();
    standIn = await lib.startLlmStandIn({ apiKey: KEY, reply: lib.profileLookupScript('13545698') });
    const res = await post({ messages: [question], tools, stream: true, stream_options: { include_usage: true } });
    const events = res.text
      .split('\n\n')
      .filter(Boolean)
      .map((e) => e.replace(/^data: /, ''));
    expect(events.at(-1)).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e));
    expect(chunks[0].choices[0].delta.tool_calls[0]).toMatchObject({ index: 0, function: { name: 'Company_profile' } });
    expect(chunks[1].choices[0].finish_reason).toBe('tool_calls');
    expect(chunks[2].usage.total_tokens).toBe(20);
  });

  it('refuses a wrong key (401) and answers the credential test (GET /models)', async () => {
    const lib = await load();
    standIn = await lib.startLlmStandIn({ apiKey: KEY, reply: () => ({ text: 'x' }) });
    expect((await post({ messages: [question] }, 'sk-wrong')).status).toBe(401);
    expect(standIn.requests).toHaveLength(0);
    const models = await fetch(`${standIn.url}/models`, { headers: { authorization: `Bearer ${KEY}` } });
    expect(((await models.json()) as { data: { id: string }[] }).data[0]!.id).toBe('gpt-4o-mini');
  });

  // n8n 2.41.1 offers each MCP tool as its own function, prefixed with the MCP Client node's name; several take a registry_code.
  const mcpTools = ['companies_search', 'people_companies_get', 'companies_get', 'risk_credit_score'].map((n) => ({
    type: 'function',
    function: {
      name: `Company_Data_MCP_${n}`,
      parameters: {
        type: 'object',
        properties: n === 'companies_search' ? { q: { type: 'string' } } : { registry_code: { type: 'string' } },
      },
    },
  }));
  const company = { registry_code: '13545698', name: 'Lõunaranna Tarkvara OÜ', status: 'R' };

  it('MCP script: calls companies_get by name (not the first registry_code tool), then quotes the name in the tool result', async () => {
    const lib = await load();
    standIn = await lib.startLlmStandIn({ apiKey: KEY, reply: lib.mcpLookupScript('13545698') });
    const first = JSON.parse((await post({ messages: [question], tools: mcpTools })).text).choices[0];
    expect(first.message.tool_calls[0].function.name).toBe('Company_Data_MCP_companies_get');
    expect(JSON.parse(first.message.tool_calls[0].function.arguments)).toEqual({ registry_code: '13545698' });
    // The structured content ({ items }) as n8n hands it back.
    const toolMessage = {
      role: 'tool',
      tool_call_id: first.message.tool_calls[0].id,
      content: JSON.stringify({ items: [company], total: 1 }),
    };
    const second = JSON.parse((await post({ messages: [question, first.message, toolMessage], tools: mcpTools })).text).choices[0];
    expect(second.message.content).toBe('Registry code 13545698 belongs to Lõunaranna Tarkvara OÜ.');
  });

  it('MCP script: an exact tool name wins; without the tool it says which tools came', async () => {
    const lib = await load();
    const script = lib.mcpLookupScript('13545698');
    const exact = [...mcpTools, { type: 'function', function: { name: 'companies_get', parameters: { type: 'object', properties: {} } } }];
    expect(script({ messages: [question], tools: exact }, 0)).toEqual({
      toolCalls: [{ name: 'companies_get', arguments: { registry_code: '13545698' } }],
    });
    expect(script({ messages: [question], tools: [mcpTools[0]!] }, 0)).toEqual({
      text: 'No MCP tool companies_get was offered (tools: Company_Data_MCP_companies_search).',
    });
  });

  it('mcpItems reads the items from structured content, from text content blocks, and finds none in other text', async () => {
    const lib = await load();
    const blocks = [{ type: 'text', text: JSON.stringify({ items: [company] }) }];
    expect(lib.mcpItems(JSON.stringify({ items: [company] }))?.[0]?.name).toBe(company.name);
    expect(lib.mcpItems(JSON.stringify(blocks))?.[0]?.name).toBe(company.name);
    expect(lib.mcpItems({ content: blocks, structuredContent: { items: [company] } })?.[0]?.registry_code).toBe('13545698');
    expect(lib.mcpItems('Failed to execute tool "companies_get"')).toBeUndefined();
    expect(lib.mcpItems(JSON.stringify([{ type: 'text', text: 'registry_code: must be 8 digits' }]))).toBeUndefined();
  });
});
