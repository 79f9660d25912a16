// Loads the example workflows of examples/ and points them at this machine: the credential created
// here, a local files folder instead of the Docker default, a local chat receiver, a saved search.
// The JSON files stay importable by hand; these are the only values a user edits after importing.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const EXAMPLES_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../examples');
export const CREDENTIAL_NAME = 'Company Data (sandbox)';
/** The folder the examples read and write: n8n 2.x only allows files under ~/.n8n-files (/home/node in Docker). */
export const DOCKER_FILES_DIR = '/home/node/.n8n-files';
const CHAT_PLACEHOLDER = 'https://hooks.slack.com/services/REPLACE/WITH/YOURS';
const SEARCH_PLACEHOLDER = 'srch_REPLACE_WITH_YOURS';
const SPREADSHEET_PLACEHOLDER = 'REPLACE_WITH_YOUR_SPREADSHEET_ID';
/** The Google Sheets node's type and its service-account credential (issue 28). */
export const SHEETS_NODE_TYPE = 'n8n-nodes-company-data.companyDataGoogleSheets';
export const GOOGLE_CREDENTIAL_TYPE = 'companyDataGoogleServiceAccountApi';

/**
 * An n8n workflow's JSON as exported, the fields the checks touch. parameters: any, as each node type has
 * its own (the checks read and set a few by name).
 * @typedef {{ id: string, name: string, type: string, webhookId?: string, parameters?: Record<string, any>, credentials?: Record<string, { id: string, name: string }>, [field: string]: unknown }} WorkflowNode
 * @typedef {{ name?: string, nodes: WorkflowNode[], connections?: Record<string, unknown>, [field: string]: unknown }} Workflow
 */

export const exampleFiles = () =>
  fs
    .readdirSync(EXAMPLES_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort();

/**
 * @param {string} file a name from exampleFiles()
 * @returns {Workflow}
 */
export function readExample(file) {
  return JSON.parse(fs.readFileSync(path.join(EXAMPLES_DIR, file), 'utf8'));
}

/**
 * The workflow's first node that `match` picks; throws, naming `what`, when there is none.
 * @param {Workflow} workflow
 * @param {(node: WorkflowNode) => boolean} match
 * @param {string} what
 */
export function findNode(workflow, match, what) {
  const node = workflow.nodes.find(match);
  if (!node) throw new Error(`workflow "${workflow.name}" has no ${what} node`);
  return node;
}

/**
 * A copy of the example with local values filled in.
 * credential: { id, name }; filesDir: folder for the CSV; chatUrl: where "Post to chat" posts;
 * searchId: the saved search of the digest; pollTimes: overrides the poll trigger's schedule.
 * llmCredential: { id, name } of an openAiApi credential for the agent's chat model (the e2e one points
 * at a local stand-in). publicChat: makes the Chat Trigger answer on its production URL, which n8n
 * refuses (404) for a non-public chat; the editor's own chat window needs no such change.
 * googleCredential: { id, name } of a companyDataGoogleServiceAccountApi credential; spreadsheetId: put in
 * the spreadsheet's address in place of the placeholder; sheetsApiUrl: the Sheets API the Google Sheets node
 * talks to (the node's `sheetsApiUrl` option; the stand-in in the e2e).
 */
/** @typedef {{ id: string, name: string }} CredentialRef */
/**
 * @param {Workflow} workflow
 * @param {{ credential?: CredentialRef, filesDir?: string, chatUrl?: string, searchId?: string, pollTimes?: unknown, llmCredential?: CredentialRef, publicChat?: boolean, googleCredential?: CredentialRef, spreadsheetId?: string, sheetsApiUrl?: string }} [opts]
 * @returns {Workflow}
 */
export function adaptExample(
  workflow,
  { credential, filesDir, chatUrl, searchId, pollTimes, llmCredential, publicChat, googleCredential, spreadsheetId, sheetsApiUrl } = {},
) {
  const wf = structuredClone(workflow);
  for (const node of wf.nodes) {
    if (credential && node.credentials?.companyDataApi) node.credentials.companyDataApi = { id: credential.id, name: credential.name };
    if (llmCredential && node.credentials?.openAiApi) node.credentials.openAiApi = { id: llmCredential.id, name: llmCredential.name };
    if (publicChat && node.type === '@n8n/n8n-nodes-langchain.chatTrigger') node.parameters = { ...node.parameters, public: true };
    const p = node.parameters ?? {};
    if (filesDir) {
      for (const key of ['fileSelector', 'fileName']) {
        if (typeof p[key] === 'string' && p[key].startsWith(`${DOCKER_FILES_DIR}/`))
          p[key] = path.join(filesDir, p[key].slice(DOCKER_FILES_DIR.length + 1));
      }
    }
    if (chatUrl && p.url === CHAT_PLACEHOLDER) p.url = chatUrl;
    // Version 2 of the poll trigger keeps a list of saved searches; version 1 kept comma-separated text.
    if (searchId && Array.isArray(p.searchIds))
      p.searchIds = p.searchIds.map((/** @type {string} */ id) => (id === SEARCH_PLACEHOLDER ? searchId : id));
    else if (searchId && p.searchIds === SEARCH_PLACEHOLDER) p.searchIds = searchId;
    if (pollTimes && node.type.endsWith('.companyDataPollTrigger')) p.pollTimes = pollTimes;
    if (googleCredential && node.credentials?.[GOOGLE_CREDENTIAL_TYPE])
      node.credentials[GOOGLE_CREDENTIAL_TYPE] = { id: googleCredential.id, name: googleCredential.name };
    if (spreadsheetId && typeof p.spreadsheet?.value === 'string')
      p.spreadsheet = { ...p.spreadsheet, value: p.spreadsheet.value.replace(SPREADSHEET_PLACEHOLDER, spreadsheetId) };
    if (sheetsApiUrl && node.type === SHEETS_NODE_TYPE) p.options = { ...p.options, sheetsApiUrl };
  }
  return wf;
}
