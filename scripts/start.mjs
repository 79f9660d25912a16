#!/usr/bin/env node
// `npm start`: the demo. Builds the package, starts the offline sandbox with a demo key and a real
// n8n with the package, credential and example workflows ready, and says what to click.
// `npm start -- --no-n8n`: only the sandbox, for the command-line tool.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildIfStale } from '../e2e/lib/build.mjs';
import { startSandboxCli } from '../e2e/lib/sandbox.mjs';
import { startChatReceiver } from '../e2e/lib/chat.mjs';
import { chatRegistryCodeScript, startLlmStandIn } from '../e2e/lib/llm.mjs';
import { adaptExample, CREDENTIAL_NAME, exampleFiles, readExample } from '../e2e/lib/examples.mjs';

const repoDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const withN8n = !args.includes('--no-n8n');
if (args.includes('--help') || args.includes('-h')) {
  process.stdout.write(
    'npm start [-- --no-n8n]\n  Starts the sandbox on 127.0.0.1:4010 and n8n with this package on 127.0.0.1:5678.\n  --no-n8n   only the sandbox (for the company-data command-line tool)\n',
  );
  process.exit(0);
}

// On a fresh clone `npm start` alone is enough: install the (dev) dependencies the build needs first, with
// npm ci where the lockfile is, as npm test does (it never rewrites package-lock.json).
if (!fs.existsSync(path.join(repoDir, 'node_modules', '.package-lock.json'))) {
  const install = fs.existsSync(path.join(repoDir, 'package-lock.json')) ? 'ci' : 'install';
  process.stdout.write(`▸ Installing dependencies (npm ${install}), once...\n`);
  const { spawnSync } = await import('node:child_process');
  const r = spawnSync('npm', [install, '--no-audit', '--no-fund'], { cwd: repoDir, stdio: 'inherit' });
  if (r.status !== 0) {
    process.stderr.write(`npm ${install} failed; see the messages above (this lockfile needs npm 11 or newer).\n`);
    process.exit(1);
  }
}

const HOST = '127.0.0.1';
const PORTS = { sandbox: 4010, chat: 4011, llm: 4012, n8n: 5678 };
// A key for the local sandbox only (it accepts any key it is started with); never a real service key.
const DEMO_KEY = 'sk_api_demo_local_sandbox_only';
const OWNER = { email: 'demo@company-data.local', password: 'CompanyData-demo1', firstName: 'Demo', lastName: 'User' };
const WATCHED = ['13545698', '10022830', '14453248'];
// Where the command-line hint writes, the same file as the README's quick path: out/ is in the repository
// but ignored (out/.gitignore), so a run leaves no untracked files.
const ENRICHED_CSV = 'out/companies-enriched.csv';
// Credential types the demo makes itself; an example whose nodes need any other type needs the user's own
// account, and the hints say so instead of letting Execute fail on a missing credential.
const PROVIDED_CREDENTIALS = new Set(['companyDataApi', 'openAiApi']);
// What to do for each credential type the demo cannot provide (a type not listed gets a generic line).
/** @type {Record<string, string[]>} */
const OWN_ACCOUNT_STEPS = {
  companyDataGoogleServiceAccountApi: [
    'needs a Google credential, which this demo cannot provide: until then "Execute workflow" stops with a',
    'missing-credential error. Its sticky note says what to fill in: in "Enrich rows" create a Google Service',
    "Account credential (paste the key file's JSON), share your sheet with the key's client_email as an Editor",
    '(or switch Authentication to OAuth2), replace REPLACE_WITH_YOUR_SPREADSHEET_ID with your sheet and pick the tab.',
    'Example 1 does the same on a CSV file and needs no account.',
  ],
};
/** Where an example needs other steps than its credential type's: by example file. @type {Record<string, string[]>} */
const OWN_ACCOUNT_STEPS_BY_EXAMPLE = {
  'keep-sheet-current.json': [
    'needs a Google credential, which this demo cannot provide. Its sticky note says what to fill in: in "Keep list',
    'current" and "Write changes to rows" a Google Service Account credential (share your sheet with its',
    'client_email as an Editor), your sheet instead of REPLACE_WITH_YOUR_SPREADSHEET_ID and the tab, the chat URL;',
    'run "Every morning" once, then publish. (Publishing moves the sandbox webhook from example 2 to this one.)',
  ],
};
// n8n's sqlite3 is compiled on the first start (no usable prebuilt binary): these must be installed.
const BUILD_TOOLS = ['python3', 'make', 'g++'];

const say = (m = '') => process.stdout.write(`${m}\n`);
const step = (/** @type {string} */ m) => say(`▸ ${m}`);

/** @type {(() => Promise<unknown>)[]} */
const stops = [];
/** @type {Promise<void> | undefined} */
let stopping;
const stopAll = () =>
  (stopping ??= (async () => {
    for (const stop of stops.reverse()) await stop().catch((e) => say(`  (while stopping: ${e.message})`));
  })());
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    if (stopping) {
      say('Stopping now.');
      process.exit(130);
    }
    say('\nStopping (Ctrl-C again to force)...');
    stopAll().finally(() => {
      say('Stopped.');
      process.exit(0);
    });
  });
}

/** @param {string} command */
function onPath(command) {
  return (process.env.PATH ?? '').split(path.delimiter).some((dir) => {
    try {
      fs.accessSync(path.join(dir, command), fs.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/**
 * The imported examples with nodes that need a credential type the demo does not create.
 * @param {Record<string, unknown>} created by example file
 */
function examplesNeedingOwnAccount(created) {
  return Object.entries(created)
    .map(([file]) => {
      const types = new Set(readExample(file).nodes.flatMap((node) => Object.keys(node.credentials ?? {})));
      return { file, types: [...types].filter((t) => !PROVIDED_CREDENTIALS.has(t)) };
    })
    .filter((e) => e.types.length > 0);
}

/**
 * @param {number} port
 * @returns {Promise<boolean>}
 */
function portFree(port) {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, HOST, () => srv.close(() => resolve(true)));
  });
}

async function main() {
  /** @type {[string, number][]} */
  const wanted = withN8n ? Object.entries(PORTS) : [['sandbox', PORTS.sandbox]];
  for (const [what, port] of wanted) {
    if (!(await portFree(port)))
      throw new Error(`port ${port} (${what}) is in use on ${HOST}: stop what runs there, or an earlier npm start`);
  }

  step('Building the package');
  await buildIfStale(repoDir, (m) => say(`  ${m}`));

  step('Starting the sandbox (offline, synthetic data)');
  const sandbox = await startSandboxCli({ repoDir, port: PORTS.sandbox, apiKey: DEMO_KEY, companies: 20_000 });
  stops.push(() => sandbox.stop());
  // Something to watch, so a change made with curl reaches the alert workflow.
  const list = await sandbox.call('POST', '/monitoring/lists', { name: 'Demo watch list' });
  await sandbox.call('POST', `/monitoring/lists/${list.id}/companies`, { add: WATCHED.map((registry_code) => ({ registry_code })) });
  say(`  ${sandbox.url}  key ${DEMO_KEY}  (fixtures: ${sandbox.url}/sandbox/fixtures)`);

  if (!withN8n) {
    say('');
    say('Sandbox ready. Enrich the example CSV with the command-line tool:');
    say(`  COMPANY_DATA_BASE_URL=${sandbox.url} COMPANY_DATA_API_KEY=${DEMO_KEY} \\`);
    say(`    node packages/company-data/dist/cli/main.js enrich examples/companies.csv --out ${ENRICHED_CSV}`);
    say('(Without the two variables the tool starts its own sandbox in-process.)');
    say('Ctrl-C stops the sandbox.');
    return;
  }

  const chat = await startChatReceiver({ host: HOST, port: PORTS.chat });
  stops.push(() => chat.close());
  const messagesShown = new Set();
  setInterval(() => {
    for (const m of chat.messages) {
      if (messagesShown.has(m)) continue;
      messagesShown.add(m);
      say(`\n💬 chat ${m.path}: ${m.body.text ?? JSON.stringify(m.body)}`);
    }
  }, 300).unref();

  step('Preparing n8n 2.41.1 on Node 24');
  const { runtimePaths, ensureRuntime } = await import('../e2e/lib/runtime.mjs');
  let ticker;
  if (!fs.existsSync(runtimePaths().stamp)) {
    const missing = BUILD_TOOLS.filter((tool) => !onPath(tool));
    if (missing.length) {
      throw new Error(
        `the first start compiles n8n's sqlite3 and needs ${BUILD_TOOLS.join(', ')}; not found on PATH: ${missing.join(', ')}` +
          ' (Debian/Ubuntu: sudo apt-get install python3 make g++)',
      );
    }
    say(`  First run: downloading Node 24 and installing n8n (about 2.8 GB in ${path.dirname(runtimePaths().dir)}),`);
    say("  then compiling n8n's sqlite3 with g++. About 5 minutes; later starts take about 20 seconds.");
    const t0 = Date.now();
    ticker = setInterval(() => say(`  ... still installing (${Math.round((Date.now() - t0) / 1000)} s)`), 20_000);
  }
  let runtime;
  try {
    runtime = await ensureRuntime({ log: (m) => say(`  ${m}`) });
  } finally {
    clearInterval(ticker);
  }

  const { startN8n, createCredential, createWorkflow, publishWorkflow } = await import('../e2e/lib/n8n.mjs');
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'company-data-demo-'));
  stops.push(async () => fs.rmSync(work, { recursive: true, force: true }));
  const filesDir = path.join(work, 'files');
  fs.mkdirSync(filesDir);
  fs.copyFileSync(path.join(repoDir, 'examples', 'companies.csv'), path.join(filesDir, 'companies.csv'));

  step(`Starting n8n on http://${HOST}:${PORTS.n8n}`);
  const n8n = await startN8n({
    runtime,
    packageDir: repoDir,
    userFolder: path.join(work, 'n8n'),
    port: PORTS.n8n,
    owner: OWNER,
    env: { N8N_RESTRICT_FILE_ACCESS_TO: filesDir, N8N_LOG_LEVEL: 'warn' },
    log: (m) => say(`  ${m}`),
  });
  stops.push(() => n8n.stop({ keepUserFolder: true }));

  step('Importing the credential and the example workflows');
  const credential = await createCredential(n8n, {
    name: CREDENTIAL_NAME,
    type: 'companyDataApi',
    data: { apiKey: DEMO_KEY, baseUrl: sandbox.url, authStyle: 'xApiKey', webhookSigningSecret: '' },
  });
  // The agent example needs a chat model; offline, a scripted stand-in speaks the OpenAI API on loopback.
  const llmKey = 'sk-demo-local-stand-in';
  const llm = await startLlmStandIn({ apiKey: llmKey, reply: chatRegistryCodeScript(), host: HOST, port: PORTS.llm });
  stops.push(() => llm.close());
  const llmCredential = await createCredential(n8n, {
    name: 'OpenAI (offline stand-in)',
    type: 'openAiApi',
    data: { apiKey: llmKey, url: llm.url, organizationId: '', header: false },
  });
  const search = await sandbox.call('POST', '/searches', {
    name: 'New in Tartu',
    filters: { county: ['Tartu'], registered_within_days: 30 },
  });
  /** @type {Record<string, import('../e2e/lib/n8n.mjs').Stored>} */
  const created = {};
  for (const file of exampleFiles()) {
    const wf = adaptExample(readExample(file), {
      credential,
      filesDir,
      chatUrl: `${chat.url}/${file.replace(/\.json$/, '')}`,
      searchId: search.id,
      llmCredential,
    });
    try {
      created[file] = await createWorkflow(n8n, wf);
      say(`  ${wf.name}`);
    } catch (e) {
      say(`  ${wf.name}: not imported (${(e instanceof Error ? e.message : String(e)).slice(0, 160)})`);
    }
  }
  const alert = created['alert-to-chat.json'];
  if (alert) await publishWorkflow(n8n, alert.id);

  const editor = n8n.baseUrl;
  const wfUrl = (/** @type {string} */ file) => (created[file] ? `${editor}/workflow/${created[file].id}` : '(not imported)');
  // The workflow's name as imported (from examples/<file>), so the hints match what the editor lists.
  const wfTitle = (/** @type {string} */ file) => (created[file] ? `"${created[file].name}"` : file);
  say('');
  say('Ready.');
  say(`  n8n editor   ${editor}`);
  say(`  login        ${OWNER.email} / ${OWNER.password}`);
  say(`  sandbox      ${sandbox.url}  (API key ${DEMO_KEY})`);
  say('');
  say('Try:');
  say(`  1. ${wfTitle('enrich-csv.json')}: ${wfUrl('enrich-csv.json')}`);
  say('     Click "Execute workflow". It looks up the 30 rows of examples/companies.csv and writes');
  say(`     ${path.join(filesDir, 'companies-enriched.csv')}`);
  say(`  2. ${wfTitle('alert-to-chat.json')} (published): ${wfUrl('alert-to-chat.json')}`);
  say('     Make a change to a watched company; the chat message shows up here:');
  say(`     curl -X POST ${sandbox.url}/sandbox/changes -H 'x-api-key: ${DEMO_KEY}' -H 'content-type: application/json' \\`);
  say(`       -d '{"registry_code":"${WATCHED[0]}","category":"registry","kind":"name_changed"}'`);
  say(`  3. ${wfTitle('saved-search-digest.json')}: ${wfUrl('saved-search-digest.json')}`);
  say('     Register companies in Tartu and run the morning search, then click "Execute workflow":');
  say(
    `     curl -X POST ${sandbox.url}/sandbox/companies -H 'x-api-key: ${DEMO_KEY}' -H 'content-type: application/json' -d '{"count":3,"template":{"county":"Tartu maakond"}}'`,
  );
  say(
    `     curl -X POST ${sandbox.url}/sandbox/runs -H 'x-api-key: ${DEMO_KEY}' -H 'content-type: application/json' -d '{"kind":"searches"}'`,
  );
  say(`  4. ${wfTitle('ai-agent-company-research.json')}: ${wfUrl('ai-agent-company-research.json')}`);
  say('     Open the chat, write e.g. "Who is 14453248?". An offline stand-in plays the model and calls the');
  say('     Company Data tool; with a real OpenAI credential the agent answers any question.');
  const needAccount = examplesNeedingOwnAccount(created);
  if (needAccount.length) {
    say('');
    say('Needs your own account (imported, but cannot run as they are):');
    for (const { file, types } of needAccount) {
      say(`  - ${wfTitle(file)}: ${wfUrl(file)}`);
      const steps =
        OWN_ACCOUNT_STEPS_BY_EXAMPLE[file] ??
        types.flatMap(
          (type) =>
            OWN_ACCOUNT_STEPS[type] ?? [`needs a ${type} credential of your own: create one in n8n and select it in the workflow's nodes.`],
        );
      for (const line of steps) say(`     ${line}`);
    }
  }
  say('');
  say('Everything is synthetic and starts fresh each time. Ctrl-C stops n8n and the sandbox.');
  await n8n.exited.then((r) => {
    if (!stopping) {
      say(`n8n stopped by itself (${r.signal ?? `exit ${r.code}`}); see ${path.join(work, 'n8n', 'n8n.log')}`);
      return stopAll().then(() => process.exit(1));
    }
  });
}

main().catch(async (err) => {
  say(`\nnpm start failed: ${err.message}`);
  await stopAll();
  process.exit(1);
});
