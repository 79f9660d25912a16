#!/usr/bin/env node
// End-to-end checks in a real n8n 2.41.1: our built package loaded as a community package, the
// sandbox started through the CLI, the example workflows of examples/ imported and run.
// Usage: node e2e/run.mjs [--keep]   (--keep leaves the n8n user folder for inspection)
// Prints "N passed, N failed" and exits 1 when a check failed.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ensureRuntime } from './lib/runtime.mjs';
import {
  api,
  rest,
  callWebhook,
  createCredential,
  createWorkflow,
  getExecution,
  listExecutions,
  loadOptionsResults,
  nodeTypeNames,
  publishWorkflow,
  resourceLocatorResults,
  runManual,
  sleep,
  startN8n,
} from './lib/n8n.mjs';
import { startSandboxCli } from './lib/sandbox.mjs';
import { startChatReceiver } from './lib/chat.mjs';
import { mcpItems, mcpLookupScript, offeredTools, profileLookupScript, startLlmStandIn, toolResults } from './lib/llm.mjs';
import { startMcpServer } from './lib/mcp-server.mjs';
import { adaptMcpWorkflow, MCP_NODE_TYPE, mcpToolName, readMcpWorkflow } from './lib/mcp-workflow.mjs';
import { adaptExample, CREDENTIAL_NAME, exampleFiles, findNode, readExample } from './lib/examples.mjs';
import { buildIfStale } from './lib/build.mjs';
import { assert, assertEqual, checkRun, waitFor } from './lib/checks.mjs';
import { expectedEnrichment } from './expected.mjs';

/** @typedef {import('./lib/examples.mjs').Workflow} Workflow */
/** @typedef {import('./lib/examples.mjs').CredentialRef} CredentialRef */
/** @typedef {import('./lib/n8n.mjs').Stored} Stored */
/** @typedef {import('./lib/sandbox.mjs').SandboxDelivery} SandboxDelivery */
/** @typedef {import('./lib/sandbox.mjs').SandboxEvent} SandboxEvent */

const repoDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const keep = process.argv.includes('--keep');
const { secs, log, check, cleanups, finish } = checkRun({ traceLines: 6 });

/**
 * Every node the package registers (package.json's n8n.nodes, dist/nodes/<Name>/<Name>.node.js), as n8n names
 * it: the package, then the node's name with its first letter lower-cased. Read from the manifest, so a new node
 * is checked without a list here to keep up.
 */
const NODE_TYPES = /** @type {string[]} */ (JSON.parse(fs.readFileSync(path.join(repoDir, 'package.json'), 'utf8')).n8n.nodes).map(
  (file) => {
    const name = path.basename(file, '.node.js');
    return `n8n-nodes-company-data.${name[0].toLowerCase()}${name.slice(1)}`;
  },
);

async function main() {
  log('Real-n8n end-to-end checks');
  const runtime = await ensureRuntime({ log: (m) => log(`[runtime] ${m}`) });
  log(`[time] runtime ready ${secs()}`);
  await buildIfStale(repoDir, (m) => log(`[build] ${m}`));

  const apiKey = `sk_api_${randomBytes(20).toString('hex')}`;
  const sandbox = await startSandboxCli({ repoDir, apiKey, companies: 2000 });
  cleanups.push(() => sandbox.stop());
  log(`[sandbox] ${sandbox.url} (company-data sandbox, child pid ${sandbox.pid})`);
  // Every delivery is sent three times (the original and two copies); no random detections.
  await sandbox.call('PUT', '/sandbox/settings', { duplicate_rate: 1, duplicate_copies: 2, detection_rate: 0 });

  const chat = await startChatReceiver();
  cleanups.push(() => chat.close());
  // The agent example's chat model talks to this instead of api.openai.com.
  const agentCode = '13545698';
  const llmKey = `sk-standin-${randomBytes(16).toString('hex')}`;
  const llm = await startLlmStandIn({ apiKey: llmKey, reply: profileLookupScript(agentCode) });
  cleanups.push(() => llm.close());

  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'company-data-e2e-'));
  cleanups.push(async () => {
    if (!keep) fs.rmSync(work, { recursive: true, force: true });
  });
  const filesDir = path.join(work, 'files');
  const userFolder = path.join(work, 'n8n');
  fs.mkdirSync(filesDir);
  fs.copyFileSync(path.join(repoDir, 'examples', 'companies.csv'), path.join(filesDir, 'companies.csv'));
  const n8nEnv = { N8N_RESTRICT_FILE_ACCESS_TO: filesDir };

  let t = Date.now();
  let n8n = await startN8n({ runtime, packageDir: repoDir, userFolder, env: n8nEnv, log: (m) => log(`[n8n] ${m}`) });
  cleanups.push(() => n8n.stop({ keepUserFolder: true }));
  log(`[time] n8n started in ${secs(t)}`);

  // Set by the first checks; a later check that needs one fails on its own when they failed.
  /** @type {CredentialRef} */
  let credential;
  /** @type {CredentialRef} */
  let llmCredential;
  /** @type {Record<string, { json: Workflow, created: Stored }>} */
  const wf = {};

  await check(`n8n loads all ${NODE_TYPES.length} node types of the package`, async () => {
    const names = await nodeTypeNames(n8n);
    const missing = NODE_TYPES.filter((n) => !names.includes(n));
    assertEqual(missing, [], 'missing node types');
  });

  await check('credential pointing at the sandbox is created and passes its test', async () => {
    credential = await createCredential(n8n, {
      name: CREDENTIAL_NAME,
      type: 'companyDataApi',
      data: { apiKey, baseUrl: sandbox.url, authStyle: 'xApiKey', webhookSigningSecret: '' },
    });
    assert(credential?.id, 'no credential id');
    // What the editor's "Test" button does: n8n calls GET /usage on the sandbox with the key.
    const test = await rest(n8n, 'POST', '/credentials/test', {
      credentials: {
        id: credential.id,
        name: CREDENTIAL_NAME,
        type: 'companyDataApi',
        data: { apiKey, baseUrl: sandbox.url, authStyle: 'xApiKey', webhookSigningSecret: '' },
      },
    });
    const result = test?.data ?? test;
    assertEqual(result?.status, 'OK', `credential test (${result?.message})`);
  });

  await check('OpenAI credential pointing at the local stand-in LLM is created and passes its test', async () => {
    // Only the Base URL differs from a real OpenAI credential.
    const data = { apiKey: llmKey, url: llm.url, organizationId: '', header: false };
    llmCredential = await createCredential(n8n, { name: 'OpenAI (local stand-in)', type: 'openAiApi', data });
    assert(llmCredential?.id, 'no credential id');
    const test = await rest(n8n, 'POST', '/credentials/test', {
      credentials: { id: llmCredential.id, name: llmCredential.name, type: 'openAiApi', data },
    });
    const result = test?.data ?? test;
    assertEqual(result?.status, 'OK', `credential test (${result?.message})`);
  });

  /** @type {{ alert: string, digest: string }} */
  const chatPath = { alert: '/alert', digest: '/digest' };
  // Objects the examples refer to exist before the import: the watch list and the saved search.
  const monitored = ['13545698', '14453248', '12623091'];
  const watch = await sandbox.call('POST', '/monitoring/lists', { name: 'E2E watch' });
  await sandbox.call('POST', `/monitoring/lists/${watch.id}/companies`, { add: monitored.map((registry_code) => ({ registry_code })) });
  const search = await sandbox.call('POST', '/searches', {
    name: 'New in Tartu',
    filters: { county: ['Tartu'], registered_within_days: 30 },
  });
  await check('every example workflow imports with node types n8n knows', async () => {
    const names = new Set(await nodeTypeNames(n8n));
    for (const file of exampleFiles()) {
      const raw = readExample(file);
      const unknown = raw.nodes.map((nd) => nd.type).filter((ty) => !names.has(ty));
      assertEqual(unknown, [], `${file}: unknown node types`);
      const key = file.replace(/\.json$/, '');
      const adapted = adaptExample(raw, {
        credential,
        filesDir,
        chatUrl: `${chat.url}${chatPath[key === 'alert-to-chat' ? 'alert' : 'digest']}`,
        searchId: search.id,
        // Polls once a minute in the test instead of every morning.
        pollTimes: { item: [{ mode: 'everyMinute' }] },
        llmCredential,
        publicChat: true,
      });
      wf[key] = { json: adapted, created: await createWorkflow(n8n, adapted) };
      assert(wf[key].created.id, `${file}: no workflow id`);
    }
    assert(wf['enrich-csv'] && wf['alert-to-chat'] && wf['saved-search-digest'], 'an example the checks need is missing');
  });

  // What the editor asks n8n when a picker opens, its search box changes, or an option list loads.
  /**
   * @param {string} nodeName
   * @param {number} version
   * @param {Record<string, unknown>} parameters
   * @param {string} path
   * @param {string} methodName
   * @param {{ filter?: string, paginationToken?: string }} [more]
   */
  const pick = (nodeName, version, parameters, path, methodName, more = {}) =>
    resourceLocatorResults(n8n, {
      node: { type: `n8n-nodes-company-data.${nodeName}`, version, parameters },
      credentialType: 'companyDataApi',
      credential,
      path,
      methodName,
      ...more,
    });
  await check("editor: the company picker lists, searches and pages through n8n's resource-locator endpoint", async () => {
    const params = { operation: 'get', registryCode: { __rl: true, mode: 'list', value: '' } };
    const first = await pick('companyDataCompanies', 2, params, 'registryCode', 'searchCompanies');
    assertEqual(first.results.length, 50, 'companies on the first page');
    assertEqual(first.paginationToken, '2', 'pagination token');
    const next = await pick('companyDataCompanies', 2, params, 'registryCode', 'searchCompanies', {
      paginationToken: first.paginationToken,
    });
    assert(next.results.length > 0 && next.results[0].value !== first.results[0].value, 'the second page differs from the first');
    const byName = await pick('companyDataCompanies', 2, params, 'registryCode', 'searchCompanies', { filter: agentCode });
    assertEqual(
      byName.results.map((r) => r.value),
      [agentCode],
      'search by registry code',
    );
    assert(/^https?:\/\//.test(byName.results[0].url ?? ''), `a result links to the company page: ${JSON.stringify(byName.results[0])}`);
    log(`        "${agentCode}" → ${byName.results[0].name}`);
  });

  await check('editor: the triggers load monitoring lists and saved searches from the account (options endpoint)', async () => {
    const node = (/** @type {string} */ nodeName) => ({
      type: `n8n-nodes-company-data.${nodeName}`,
      version: 2,
      parameters: { events: ['monitoring.change', 'search.matches'] },
    });
    const lists = await loadOptionsResults(n8n, {
      node: node('companyDataTrigger'),
      credentialType: 'companyDataApi',
      credential,
      path: 'filters.listIds',
      methodName: 'getMonitoringLists',
    });
    assert(
      lists.some((o) => o.value === watch.id && o.name === 'E2E watch'),
      `monitoring lists: ${JSON.stringify(lists)}`,
    );
    const searches = await loadOptionsResults(n8n, {
      node: node('companyDataPollTrigger'),
      credentialType: 'companyDataApi',
      credential,
      path: 'searchIds',
      methodName: 'getSavedSearches',
    });
    assert(
      searches.some((o) => o.value === search.id && o.name === 'New in Tartu'),
      `saved searches: ${JSON.stringify(searches)}`,
    );
    const listPicker = await pick(
      'companyDataMonitoring',
      2,
      { resource: 'monitoring', operation: 'getList' },
      'listId',
      'searchMonitoringLists',
      { filter: 'e2e' },
    );
    assertEqual(
      listPicker.results.map((r) => r.value),
      [watch.id],
      'the list picker filtered by name',
    );
  });

  await check('versions: a version-1 workflow (code typed) and a version-2 workflow (company picked by URL) both run', async () => {
    const profile = await sandbox.call('GET', `/companies/${agentCode}`);
    /**
     * @param {number} version
     * @param {unknown} registryCode
     */
    const workflow = (version, registryCode) => ({
      name: `E2E Companies v${version}`,
      nodes: [
        { id: `m${version}`, name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
        {
          id: `c${version}`,
          name: 'Profile',
          type: 'n8n-nodes-company-data.companyDataCompanies',
          typeVersion: version,
          position: [220, 0],
          parameters: { operation: 'get', registryCode },
          credentials: { companyDataApi: { id: credential.id, name: credential.name } },
        },
      ],
      connections: { Start: { main: [[{ node: 'Profile', type: 'main', index: 0 }]] } },
    });
    for (const [version, value] of /** @type {[number, unknown][]} */ ([
      [1, agentCode],
      [2, { __rl: true, mode: 'url', value: profile.url }],
    ])) {
      const created = await createWorkflow(n8n, workflow(version, value));
      const ex = await runManual(n8n, created.id, { timeoutMs: 60_000 });
      const err = ex.data?.resultData?.error;
      assertEqual(ex.status, 'success', `version ${version} execution${err ? ` (${err.message})` : ''}`);
      const out = ex.data.resultData.runData.Profile[0].data.main[0].map((/** @type {{ json: Record<string, unknown> }} */ i) => i.json);
      assertEqual(out.length, 1, `version ${version} items`);
      assertEqual([out[0].registry_code, out[0].name], [agentCode, profile.name], `version ${version} company`);
    }
  });

  await check('enrichment: companies.csv → Companies: Lookup → companies-enriched.csv, exact rows', async () => {
    const ex = await runManual(n8n, wf['enrich-csv'].created.id, { timeoutMs: 120_000 });
    const err = ex.data?.resultData?.error;
    assertEqual(ex.status, 'success', `execution status${err ? ` (${err.message})` : ''}`);
    const lookupItems = ex.data.resultData.runData['Look up companies'][0].data.main[0];
    assertEqual(lookupItems.length, 30, 'items out of the lookup node');
    // n8n's Convert to File starts the CSV with a byte-order mark (for spreadsheet apps).
    const out = /** @type {Record<string, string>[]} */ (
      parse(fs.readFileSync(path.join(filesDir, 'companies-enriched.csv'), 'utf8'), { columns: true, bom: true })
    );
    fs.writeFileSync(path.join(work, 'enriched-rows.json'), JSON.stringify(out, null, 1));
    const input = /** @type {Record<string, string>[]} */ (
      parse(fs.readFileSync(path.join(repoDir, 'examples', 'companies.csv'), 'utf8'), { columns: true })
    );
    assertEqual(out.length, input.length, 'rows written back');
    assertEqual(
      Object.keys(out[0]),
      [
        'company',
        'owner',
        'note',
        ...[
          'company_data_status',
          'company_data_match_registry_code',
          'company_data_match_name',
          'company_data_match_legal_form',
          'company_data_match_status_label',
          'company_data_match_vat_number',
          'company_data_match_address',
          'company_data_reason',
        ],
      ],
      'columns',
    );
    /** @type {string[]} */
    const bad = [];
    out.forEach((row, i) => {
      const want = expectedEnrichment[i];
      if (row.company !== input[i].company || row.owner !== input[i].owner || row.note !== input[i].note)
        bad.push(`row ${i + 2}: input columns changed`);
      for (const [k, v] of Object.entries(want))
        if (row[k] !== v) bad.push(`row ${i + 2} (${input[i].company}): ${k} = ${JSON.stringify(row[k])}, expected ${JSON.stringify(v)}`);
    });
    assertEqual(bad, [], 'enriched rows');
    const usage = await sandbox.call('GET', '/usage');
    // 30 rows: 3 never sent (bad check digits, too short), duplicates sent once.
    log(`        lookup billed ${usage.billed_lookup_queries} queries for ${input.length} rows`);
  });

  await check(
    'agent: a chat message makes the AI agent call our Companies tool against the sandbox and answer with the company name',
    async () => {
      const agent = wf['ai-agent-company-research'];
      assert(agent, 'the agent example was not imported');
      const profile = await sandbox.call('GET', `/companies/${agentCode}`);
      const name = profile?.name;
      assert(name, `sandbox has no name for ${agentCode}`);
      await publishWorkflow(n8n, agent.created.id);
      const usageBefore = await sandbox.call('GET', '/usage');
      const trigger = findNode(agent.json, (nd) => nd.type === '@n8n/n8n-nodes-langchain.chatTrigger', 'Chat Trigger');
      const answer = await callWebhook(n8n, `${trigger.webhookId}/chat`, {
        body: { action: 'sendMessage', sessionId: `e2e-${Date.now()}`, chatInput: `Who is behind registry code ${agentCode}?` },
        timeoutMs: 60_000,
      });
      const usageAfter = await sandbox.call('GET', '/usage');
      assertEqual(answer.status, 200, `chat webhook status (${answer.text.slice(0, 300)})`);
      assertEqual(llm.requests.length, 2, 'requests to the stand-in LLM');
      fs.writeFileSync(path.join(work, 'agent-llm-requests.json'), JSON.stringify(llm.requests, null, 1));
      const [first, second] = llm.requests;
      const tools = offeredTools(first);
      const ours = tools.filter((t) => t.parameters?.properties?.registry_code || t.parameters?.properties?.q);
      assertEqual(
        ours.map((t) => t.name).sort(),
        ['Company_profile', 'Search_companies'],
        `tools offered to the LLM (${JSON.stringify(tools.map((t) => t.name))})`,
      );
      const result = toolResults(second)
        .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
        .join('\n');
      assert(
        result.includes(name) && result.includes(agentCode),
        `the tool result sent back to the LLM should hold ${name}: ${result.slice(0, 300)}`,
      );
      // The sandbox counts a request before answering it: the difference is our tool's one request plus the second /usage read.
      assertEqual(
        usageAfter.requests - usageBefore.requests,
        2,
        "sandbox requests between the two /usage reads (the tool's and the read itself)",
      );
      const output = answer.json?.output;
      assert(typeof output === 'string' && output.includes(name), `chat answer should quote ${name}: ${answer.text.slice(0, 300)}`);
      const [ex] = await listExecutions(n8n, { workflowId: agent.created.id });
      const full = await getExecution(n8n, ex.id);
      assertEqual(full.status, 'success', 'agent execution status');
      assert(
        full.data.resultData.runData['Company profile'],
        `the "Company profile" tool node should have run (ran: ${Object.keys(full.data.resultData.runData)})`,
      );
      log(`        tools offered: ${tools.map((t) => t.name).join(', ')}; answer: ${JSON.stringify(output)}`);
    },
  );

  // The agent again, its tools this time from our MCP server (`company-data mcp --http`, serving the run's
  // sandbox) through n8n's own MCP Client Tool, answering from a second stand-in model.
  /** @type {Awaited<ReturnType<typeof startMcpServer>> | undefined} */
  let mcp;
  /** @type {string[] | undefined} */
  let mcpToolNames;
  /** @type {Record<string, unknown> | undefined} */
  let mcpResultItem;
  await check(
    'mcp: `company-data mcp --http` refuses requests without the token or with a wrong one (401) and from a foreign Origin (403)',
    async () => {
      const server = await startMcpServer({ repoDir, baseUrl: sandbox.url, apiKey });
      mcp = server;
      cleanups.push(() => server.close());
      log(`        ${server.url} (child pid ${server.pid})`);
      const initialize = {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'e2e', version: '1' } },
      };
      const post = async (/** @type {Record<string, string>} */ headers) => {
        const res = await fetch(server.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
          body: JSON.stringify(initialize),
        });
        await res.arrayBuffer();
        return res.status;
      };
      assertEqual(await post({}), 401, 'initialize without Authorization');
      assertEqual(
        await post({ authorization: `Bearer ${server.token.replace(/.$/, (c) => (c === 'a' ? 'b' : 'a'))}` }),
        401,
        'initialize with a wrong token',
      );
      assertEqual(
        await post({ authorization: `Bearer ${server.token}`, origin: 'https://attacker.example' }),
        403,
        'initialize from a foreign Origin, with the token',
      );
      // With the token the same server answers, through the MCP SDK's own client: the refusals were the guards.
      const client = new McpClient({ name: 'company-data-e2e', version: '1' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { authorization: `Bearer ${server.token}` } } }),
      );
      try {
        const tools = [];
        for (let cursor; ; ) {
          const page = await client.listTools(cursor ? { cursor } : {});
          tools.push(...page.tools);
          if (!(cursor = page.nextCursor)) break;
        }
        mcpToolNames = tools.map((t) => t.name);
      } finally {
        await client.close();
      }
      assert(mcpToolNames.includes('companies_get'), `tools/list should hold companies_get: ${mcpToolNames.join(', ')}`);
      log(`        ${mcpToolNames.length} tools listed with the token`);
    },
  );

  await check(
    "mcp: a chat message makes the AI agent call companies_get through n8n's MCP Client Tool and answer with the company name; no secret in n8n's data",
    async () => {
      assert(mcp && mcpToolNames, 'the MCP server did not start (previous check)');
      const server = mcp;
      const toolNames = mcpToolNames;
      const profile = await sandbox.call('GET', `/companies/${agentCode}`);
      const name = profile?.name;
      assert(name, `sandbox has no name for ${agentCode}`);
      const mcpLlmKey = `sk-standin-${randomBytes(16).toString('hex')}`;
      const mcpLlm = await startLlmStandIn({ apiKey: mcpLlmKey, reply: mcpLookupScript(agentCode) });
      cleanups.push(() => mcpLlm.close());
      const llmCred = await createCredential(n8n, {
        name: 'OpenAI (MCP stand-in)',
        type: 'openAiApi',
        data: { apiKey: mcpLlmKey, url: mcpLlm.url, organizationId: '', header: false },
      });
      // The credential the MCP Client Tool asks for with Authentication "Bearer Auth".
      const bearer = await createCredential(n8n, { name: 'Company Data MCP token', type: 'httpBearerAuth', data: { token: server.token } });
      assert(llmCred?.id && bearer?.id, 'credentials were not created');
      const json = adaptMcpWorkflow(readMcpWorkflow(), {
        mcpUrl: server.url,
        bearerCredential: bearer,
        llmCredential: llmCred,
        publicChat: true,
      });
      const names = new Set(await nodeTypeNames(n8n));
      assertEqual(
        json.nodes.map((nd) => nd.type).filter((ty) => !names.has(ty)),
        [],
        'node types of the MCP workflow n8n does not know',
      );
      const created = await createWorkflow(n8n, json);
      await publishWorkflow(n8n, created.id);

      const usageBefore = await sandbox.call('GET', '/usage');
      const trigger = findNode(json, (nd) => nd.type === '@n8n/n8n-nodes-langchain.chatTrigger', 'Chat Trigger');
      const answer = await callWebhook(n8n, `${trigger.webhookId}/chat`, {
        body: { action: 'sendMessage', sessionId: `e2e-mcp-${Date.now()}`, chatInput: `Who is ${agentCode}?` },
        timeoutMs: 60_000,
      });
      const usageAfter = await sandbox.call('GET', '/usage');
      fs.writeFileSync(path.join(work, 'mcp-llm-requests.json'), JSON.stringify(mcpLlm.requests, null, 1));
      assertEqual(answer.status, 200, `chat webhook status (${answer.text.slice(0, 300)})`);
      assertEqual(mcpLlm.requests.length, 2, 'requests to the stand-in LLM');
      const [first, second] = mcpLlm.requests;

      const mcpNode = findNode(json, (nd) => nd.type === MCP_NODE_TYPE, 'MCP Client Tool');
      const getTool = mcpToolName(mcpNode.name, 'companies_get');
      const offered = offeredTools(first).map((t) => t.name);
      assertEqual(
        [...offered].sort(),
        toolNames.map((t) => mcpToolName(mcpNode.name, t)).sort(),
        'tools offered to the model (every tool of the MCP server, named by n8n)',
      );
      const getSchema = offeredTools(first).find((t) => t.name === getTool)?.parameters;
      assert(getSchema?.properties?.registry_code, `${getTool} should take registry_code: ${JSON.stringify(getSchema)}`);
      const call = (second.messages ?? []).find((m) => m.role === 'assistant' && m.tool_calls?.length)?.tool_calls?.[0];
      assertEqual(
        [call?.function?.name, JSON.parse(call?.function?.arguments ?? 'null')],
        [getTool, { registry_code: agentCode }],
        'the tool call in the conversation',
      );
      const result = toolResults(second)
        .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
        .join('\n');
      const item = mcpItems(result)?.[0];
      assertEqual(
        [item?.registry_code, item?.name],
        [agentCode, name],
        `the company in the MCP tool result sent back to the model (${result.slice(0, 300)})`,
      );
      mcpResultItem = item;
      // The sandbox counts a request before answering it: the MCP server's one for companies_get plus the second /usage read.
      assertEqual(
        usageAfter.requests - usageBefore.requests,
        2,
        "sandbox requests between the two /usage reads (the MCP server's and the read itself)",
      );
      const output = answer.json?.output;
      assert(typeof output === 'string' && output.includes(name), `chat answer should quote ${name}: ${answer.text.slice(0, 300)}`);

      const [ex] = await listExecutions(n8n, { workflowId: created.id });
      const full = await getExecution(n8n, ex.id);
      assertEqual(
        full.status,
        'success',
        `MCP agent execution status${full.data?.resultData?.error ? ` (${full.data.resultData.error.message})` : ''}`,
      );
      assert(
        full.data.resultData.runData[mcpNode.name],
        `the "${mcpNode.name}" node should have run (ran: ${Object.keys(full.data.resultData.runData)})`,
      );
      // The token lives in the encrypted credential only: not in the execution, the stored workflow, what the
      // model saw, or n8n's log. Nor does the API key the MCP server holds.
      const stored = await api(n8n, 'GET', `/workflows/${created.id}`);
      const n8nLog = fs.readFileSync(path.join(userFolder, 'n8n.log'), 'utf8');
      const places = {
        'execution data': JSON.stringify(full),
        'stored workflow': JSON.stringify(stored),
        'model requests': JSON.stringify(mcpLlm.requests),
        'n8n log': n8nLog,
      };
      const leaks = Object.entries(places).flatMap(([where, text]) =>
        [
          ['MCP token', server.token],
          ['API key', apiKey],
        ]
          .filter(([, secret]) => text.includes(secret))
          .map(([what]) => `${what} in ${where}`),
      );
      assertEqual(leaks, [], 'secrets found');
      log(`        ${offered.length} MCP tools offered; called ${call?.function.name}; answer: ${JSON.stringify(output)}`);
    },
  );

  await check(
    "mcp: labels in the tool result n8n got are in the server's language (English unless --lang or a call says otherwise)",
    async () => {
      assert(mcpResultItem, 'no MCP tool result (previous check)');
      // The service's own default is Estonian; the server was started without --lang, so it must ask for English.
      const en = await sandbox.call('GET', `/companies/${agentCode}?lang=en`);
      assertEqual(
        [mcpResultItem.legal_form, mcpResultItem.status_label],
        [en.legal_form?.label, en.status?.label],
        'legal form and status labels',
      );
    },
  );

  // Alert to chat: the trigger registers the webhook at publish; each event reaches the chat once.
  const hookUrl = () => `${n8n.baseUrl}/webhook/${wf['alert-to-chat'].json.nodes[0].webhookId}/webhook`;
  /** @type {string[]} event ids */
  const changes = [];
  await check('alert: publishing registers the sandbox webhook to n8n', async () => {
    await publishWorkflow(n8n, wf['alert-to-chat'].created.id);
    await waitFor('GET /webhook to point at n8n', async () => {
      const hook = await sandbox.call('GET', '/webhook').catch(() => undefined);
      return hook?.url === hookUrl() && hook.enabled === true;
    });
  });

  const alertExecutions = () => listExecutions(n8n, { workflowId: wf['alert-to-chat'].created.id });
  await check(
    'alert: each event posts exactly one chat message although the sandbox delivers it 3 times and once more on retry',
    async () => {
      for (const [registry_code, category, kind] of [
        [monitored[0], 'registry', 'name_changed'],
        [monitored[2], 'registry', 'address_changed'],
      ]) {
        const res = await sandbox.call('POST', '/sandbox/changes', { registry_code, category, kind });
        assertEqual(res.events.length, 1, `events for ${registry_code}`);
        changes.push(res.events[0]);
      }
      /** @returns {Promise<SandboxDelivery[]>} */
      const deliveries = async () => (await sandbox.call('GET', '/webhook/deliveries?limit=100')) ?? [];
      await waitFor('every copy of both events to be delivered', async () => {
        const ds = (await deliveries()).filter((d) => changes.includes(d.event_id));
        return (
          ds.length === 2 &&
          ds.every((d) => d.status === 'delivered' && d.log.filter((a) => a.duplicate && a.status_code === 200).length === 2)
        );
      });
      // A manual redelivery of the first event: a new delivery of the same event id.
      const first = (await deliveries()).find((d) => d.event_id === changes[0]);
      assert(first, 'no delivery of the first event');
      await sandbox.call('POST', `/webhook/deliveries/${first.id}/retry`);
      await waitFor('the redelivery', async () => (await deliveries()).some((d) => d.retry_of === first.id && d.status === 'delivered'));
      await waitFor('two chat messages', () => chat.at(chatPath.alert).length >= 2, { timeoutMs: 20_000 }).catch(async (e) => {
        const runs = await Promise.all((await alertExecutions()).map((ex) => getExecution(n8n, ex.id)));
        const why = runs.map((ex) => `${ex.id}:${ex.status}${ex.data?.resultData?.error ? ` (${ex.data.resultData.error.message})` : ''}`);
        throw new Error(`${e.message}; alert executions: ${why.join(', ') || 'none'}`);
      });
      await sleep(2000); // room for a wrong extra message to arrive
      const texts = chat.at(chatPath.alert).map((m) => m.body.text);
      assertEqual(texts.length, 2, `chat messages (${JSON.stringify(texts)})`);
      const events = await sandbox.call('GET', '/monitoring/events?limit=100');
      /** @type {Record<string, SandboxEvent>} */
      const byId = Object.fromEntries(events.map((/** @type {SandboxEvent} */ e) => [e.id, e]));
      // The two events are delivered concurrently, so their messages may arrive in either order:
      // each event must be named by exactly one message.
      changes.forEach((id) => {
        const name = byId[id]?.data?.company?.name;
        const naming = texts.filter((t) => name && t.includes(name));
        assert(naming.length === 1, `exactly one message should name ${name}: ${JSON.stringify(texts)}`);
      });
      assert(
        texts.filter((t) => /Name/.test(t)).length === 1 && texts.filter((t) => /Address/.test(t)).length === 1,
        `one message should report the name change and one the address change: ${JSON.stringify(texts)}`,
      );
      // Both first events reach n8n's processed-data store at once, before its row exists: no execution may fail on that.
      const failed = (await alertExecutions()).filter((ex) => ex.status !== 'success');
      assertEqual(
        failed.map((ex) => `${ex.id}:${ex.status}`),
        [],
        'alert executions that did not succeed',
      );
    },
  );

  await check('alert: a forged delivery gets 401 and starts no execution', async () => {
    const before = (await alertExecutions()).length;
    const body = JSON.stringify({ id: 'evt_forged_1', type: 'monitoring.change', created_at: new Date().toISOString(), data: {} });
    const forged = await fetch(hookUrl(), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-service-event-id': 'evt_forged_1',
        'x-service-timestamp': String(Math.floor(Date.now() / 1000)),
        'x-service-signature': `v1=${randomBytes(32).toString('hex')}`,
      },
      body,
    });
    assertEqual(forged.status, 401, 'status of a forged delivery');
    const unsigned = await fetch(hookUrl(), { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    assertEqual(unsigned.status, 401, 'status of an unsigned delivery');
    await sleep(1500);
    assertEqual((await alertExecutions()).length, before, 'executions after forged deliveries');
    assertEqual(chat.at(chatPath.alert).length, 2, 'chat messages after forged deliveries');
  });

  // Saved-search digest through the poll trigger, across an n8n restart.
  const digestMessages = () => chat.at(chatPath.digest);
  /**
   * @param {number} n
   * @returns {Promise<string[]>} their registry codes
   */
  const registerMatching = async (n) =>
    (await sandbox.call('POST', '/sandbox/companies', { count: n, template: { county: 'Tartu maakond' } })).registry_codes;
  /** @type {string[]} */
  let firstBatch = [];
  await check('digest: a morning run with new matches gives one chat message listing them', async () => {
    // Activation polls once: with "Start From: Now" that only marks where to start. n8n 2.41 activates
    // through an outbox a moment after the publish call answers, so wait for that first poll (the
    // trigger's state names the source once it has read it); a match made before it would count as history.
    await publishWorkflow(n8n, wf['saved-search-digest'].created.id);
    await waitFor('the activation poll', async () => {
      const state = (await api(n8n, 'GET', `/workflows/${wf['saved-search-digest'].created.id}`)).staticData;
      return Object.values(state ?? {}).some((/** @type {{ started?: string[] } | null} */ node) =>
        node?.started?.includes(`search:${search.id}`),
      );
    });
    firstBatch = await registerMatching(3);
    const run = await sandbox.call('POST', '/sandbox/runs', { kind: 'searches' });
    assert(run.search_events >= 1, `search events of the run: ${JSON.stringify(run)}`);
    await waitFor('the digest message (polls once a minute)', () => digestMessages().length >= 1, {
      timeoutMs: 75_000,
      everyMs: 500,
    }).catch(async (e) => {
      throw new Error(
        `${e.message}; trigger state ${JSON.stringify((await api(n8n, 'GET', `/workflows/${wf['saved-search-digest'].created.id}`)).staticData)}`,
      );
    });
    await sleep(1500);
    assertEqual(digestMessages().length, 1, 'digest messages');
    const text = digestMessages()[0].body.text;
    assert(/^Saved-search digest \d{4}-\d{2}-\d{2}\n/.test(text), `digest heading: ${JSON.stringify(text)}`);
    for (const code of firstBatch) assert(text.includes(code), `digest should list ${code}: ${JSON.stringify(text)}`);
  });

  await check('restart: polling resumes after n8n restarts (the event made while it was down once, nothing again)', async () => {
    const port = n8n.port;
    t = Date.now();
    await n8n.stop({ keepUserFolder: true });
    // While n8n is down: a new match and a change of a watched company.
    const downBatch = await registerMatching(2);
    const run = await sandbox.call('POST', '/sandbox/runs', { kind: 'searches' });
    assert(run.search_events >= 1, `search events of the run while down: ${JSON.stringify(run)}`);
    n8n = await startN8n({ runtime, packageDir: repoDir, userFolder, port, env: n8nEnv, log: (m) => log(`[n8n] ${m}`) });
    log(`        restarted in ${secs(t)}`);
    await waitFor('the digest of the event made while n8n was down', () => digestMessages().length >= 2, {
      timeoutMs: 75_000,
      everyMs: 500,
    });
    const text = digestMessages()[1].body.text;
    for (const code of downBatch) assert(text.includes(code), `second digest should list ${code}: ${JSON.stringify(text)}`);
    for (const code of firstBatch) assert(!text.includes(code), `second digest repeats ${code} from the first`);
    // One more match after the restart: the next regular poll brings only it.
    const afterBatch = await registerMatching(1);
    await sandbox.call('POST', '/sandbox/runs', { kind: 'searches' });
    await waitFor('the digest after the restart', () => digestMessages().length >= 3, { timeoutMs: 75_000, everyMs: 500 });
    await sleep(1500);
    assertEqual(digestMessages().length, 3, 'digest messages in all');
    const third = digestMessages()[2].body.text;
    assert(third.includes(afterBatch[0]), `third digest should list ${afterBatch[0]}`);
    for (const code of [...firstBatch, ...downBatch]) assert(!third.includes(code), `third digest repeats ${code}`);
  });

  await check('restart: the alert webhook still verifies with the kept secret (one message for a new change)', async () => {
    const res = await sandbox.call('POST', '/sandbox/changes', { registry_code: monitored[1], category: 'registry', kind: 'name_changed' });
    await waitFor('a third alert message', () => chat.at(chatPath.alert).length >= 3, { timeoutMs: 30_000 });
    await sleep(2000);
    assertEqual(chat.at(chatPath.alert).length, 3, 'alert messages after the restart');
    const events = await sandbox.call('GET', '/monitoring/events?limit=100');
    const name = events.find((/** @type {SandboxEvent} */ e) => e.id === res.events[0])?.data?.company?.name;
    assert(name && chat.at(chatPath.alert)[2].body.text.includes(name), 'third alert should name the changed company');
  });

  // n8n's processed-data store has no lock: executions checking it at once used to fail on its unique key or
  // overwrite each other's ids. A restart empties webhook()'s memory, so only the store can stop the redeliveries.
  await check(
    'burst: six changes at once give six messages, no execution fails; redelivered after a restart, none gives a message',
    async () => {
      const before = chat.at(chatPath.alert).length;
      const made = await Promise.all(
        [0, 1, 2, 0, 1, 2].map((k, j) =>
          sandbox.call('POST', '/sandbox/changes', {
            registry_code: monitored[k],
            category: 'registry',
            kind: j < 3 ? 'address_changed' : 'name_changed',
          }),
        ),
      );
      /** @type {string[]} */
      const ids = made.map((r) => r.events[0]);
      /** @returns {Promise<SandboxDelivery[]>} */
      const deliveries = async () =>
        ((await sandbox.call('GET', '/webhook/deliveries?limit=100')) ?? []).filter((/** @type {SandboxDelivery} */ d) =>
          ids.includes(d.event_id),
        );
      await waitFor('six more chat messages', () => chat.at(chatPath.alert).length >= before + 6, { timeoutMs: 30_000 });
      await waitFor('every copy of the six events to be delivered', async () => {
        const ds = await deliveries();
        return ds.length === 6 && ds.every((d) => d.status === 'delivered');
      });
      await sleep(2000);
      assertEqual(chat.at(chatPath.alert).length, before + 6, 'chat messages for the burst');
      const failed = (await alertExecutions()).filter((ex) => ex.status !== 'success');
      assertEqual(
        failed.map((ex) => `${ex.id}:${ex.status}`),
        [],
        'alert executions that did not succeed',
      );

      const port = n8n.port;
      await n8n.stop({ keepUserFolder: true });
      n8n = await startN8n({ runtime, packageDir: repoDir, userFolder, port, env: n8nEnv, log: (m) => log(`[n8n] ${m}`) });
      const runsBefore = (await alertExecutions()).length;
      for (const d of await deliveries()) await sandbox.call('POST', `/webhook/deliveries/${d.id}/retry`);
      await waitFor('the six redeliveries', async () => {
        const all = (await sandbox.call('GET', '/webhook/deliveries?limit=100')) ?? [];
        return (
          all.filter((/** @type {SandboxDelivery} */ d) => ids.includes(d.event_id) && d.retry_of && d.status === 'delivered').length === 6
        );
      });
      await waitFor('an execution per redelivery', async () => (await alertExecutions()).length >= runsBefore + 6, { timeoutMs: 20_000 });
      await sleep(2000);
      assertEqual(chat.at(chatPath.alert).length, before + 6, 'chat messages after redelivering all six');
      log(
        `        6 events, 18 deliveries, 6 messages; after the restart 6 redeliveries started ${(await alertExecutions()).length - runsBefore} executions that posted nothing`,
      );
    },
  );
}

await finish(main);
