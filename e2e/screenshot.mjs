#!/usr/bin/env node
// Captures a workflow canvas of a running n8n (e.g. `npm start`) with headless Chromium through the
// DevTools protocol, so no browser-automation package is needed. Needs Node 22+ (global WebSocket):
// run it with the e2e runtime's Node 24.
// Usage: node e2e/screenshot.mjs --url http://127.0.0.1:5678 --email E --password P --workflow "Name" --out docs/img/x.png
//   --workflow-file F  import this workflow first (its Company Data credential becomes the first one n8n has)
//   --node "Name"      open that node's panel (NDV) instead of showing the canvas
//   --click SEL        click the element matching the CSS selector (repeatable, in order), e.g. to open a picker
//   --type TEXT        type into whatever has focus after the clicks (a picker's search box)
// The images of docs/img and the commands that make them: docs/e2e.md, "Screenshots".
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The value after `--name` on the command line, else `fallback`.
 * @template {string | undefined} [F=undefined]
 * @param {string} name
 * @param {F} [fallback]
 * @returns {string | F}
 */
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : /** @type {F} */ (fallback);
};
const base = arg('url', 'http://127.0.0.1:5678');
const email = arg('email', 'demo@company-data.local');
const password = arg('password', 'CompanyData-demo1');
const workflowName = arg('workflow', 'Enrich companies (CSV file)');
const out = arg('out', 'docs/img/enrich-workflow.png');
const chromium = arg('chromium', 'chromium');
const [width, height] = arg('size', '1400x700').split('x').map(Number);
const workflowFile = arg('workflow-file');
const nodeName = arg('node');
const typed = arg('type');
const clicks = process.argv.flatMap((a, i) => (a === '--click' ? [process.argv[i + 1]] : []));
const sleep = (/** @type {number} */ ms) => new Promise((r) => setTimeout(r, ms));

const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'chromium-shot-'));
const browser = spawn(
  chromium,
  [
    '--headless=new',
    '--no-sandbox',
    '--disable-gpu',
    '--hide-scrollbars',
    `--window-size=${width},${height}`,
    `--user-data-dir=${profile}`,
    '--remote-debugging-port=0',
    'about:blank',
  ],
  { stdio: ['ignore', 'ignore', 'pipe'] },
);
const cleanup = () => {
  browser.kill('SIGKILL');
  fs.rmSync(profile, { recursive: true, force: true });
};
process.on('exit', cleanup);

try {
  /** @type {string} */
  const wsUrl = await new Promise((resolve, reject) => {
    let err = '';
    const timer = setTimeout(() => reject(new Error(`chromium gave no DevTools address:\n${err}`)), 30_000);
    browser.stderr.on('data', (b) => {
      err += b;
      const m = /DevTools listening on (ws:\/\/\S+)/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
  });
  const port = new URL(wsUrl).port;
  const targets = /** @type {{ type: string, webSocketDebuggerUrl: string }[]} */ (
    await (await fetch(`http://127.0.0.1:${port}/json`)).json()
  );
  const page = targets.find((t) => t.type === 'page');
  if (!page) throw new Error('chromium has no page target');
  const ws = new WebSocket(page.webSocketDebuggerUrl);
  await new Promise((r) => ws.addEventListener('open', r, { once: true }));
  let seq = 0;
  /** @type {Map<number, { resolve: (result: unknown) => void, reject: (err: Error) => void }>} */
  const pending = new Map();
  ws.addEventListener('message', (ev) => {
    const msg = JSON.parse(ev.data);
    const waiting = msg.id ? pending.get(msg.id) : undefined;
    if (waiting) {
      pending.delete(msg.id);
      if (msg.error) waiting.reject(new Error(JSON.stringify(msg.error)));
      else waiting.resolve(msg.result);
    }
  });
  /**
   * One DevTools command.
   * @param {string} method
   * @param {object} [params]
   * @returns {Promise<any>} its result (any: each command answers in its own shape)
   */
  const send = (method, params = {}) =>
    new Promise((resolve, reject) => {
      const id = ++seq;
      pending.set(id, { resolve, reject });
      ws.send(JSON.stringify({ id, method, params }));
    });
  /**
   * @param {string} expression evaluated in the page
   * @returns {Promise<any>} its value (any: whatever the expression gives)
   */
  const evaluate = async (expression) =>
    (await send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true })).result.value;

  await send('Page.enable');
  await send('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: 1, mobile: false });
  await send('Page.navigate', { url: `${base}/signin` });
  await sleep(4000);
  // Log in from the page itself, so the session carries the browser id the editor sends.
  const login = await evaluate(
    `fetch('/rest/login', { method: 'POST', headers: { 'content-type': 'application/json', 'browser-id': localStorage.getItem('n8n-browserId') || '' }, body: JSON.stringify(${JSON.stringify({ emailOrLdapLoginId: email, password })}) }).then((r) => r.status)`,
  );
  if (login !== 200) throw new Error(`login answered ${login}`);
  /**
   * n8n's REST API from inside the page (its session); the answer without its { data } envelope.
   * @param {string} p
   * @param {{ method?: string, body?: unknown }} [init]
   */
  const rest = (p, init = {}) =>
    evaluate(
      `fetch(${JSON.stringify(`/rest${p}`)}, { method: ${JSON.stringify(init.method ?? 'GET')}, headers: { 'content-type': 'application/json', 'browser-id': localStorage.getItem('n8n-browserId') || '' }${init.body ? `, body: ${JSON.stringify(JSON.stringify(init.body))}` : ''} }).then((r) => r.json()).then((b) => b.data ?? b)`,
    );
  /** @type {{ id: string, name: string } | undefined} */
  let wf;
  if (workflowFile) {
    const json = JSON.parse(fs.readFileSync(workflowFile, 'utf8'));
    const credential = (await rest('/credentials')).find(
      (/** @type {{ id: string, name: string, type: string }} */ c) => c.type === 'companyDataApi',
    );
    if (!credential) throw new Error('n8n has no Company Data credential (start n8n with npm start)');
    for (const nd of json.nodes)
      if (nd.credentials?.companyDataApi) nd.credentials.companyDataApi = { id: credential.id, name: credential.name };
    wf = await rest('/workflows', {
      method: 'POST',
      body: { name: json.name, nodes: json.nodes, connections: json.connections ?? {}, settings: {} },
    });
    if (!wf?.id) throw new Error(`importing ${workflowFile}: ${JSON.stringify(wf).slice(0, 300)}`);
  } else {
    wf = (await rest('/workflows')).find((/** @type {{ id: string, name: string }} */ w) => w.name === workflowName);
    if (!wf) throw new Error(`no workflow named "${workflowName}"`);
  }
  await send('Page.navigate', { url: `${base}/workflow/${wf.id}` });
  await sleep(8000);
  // Close pop-ups and toasts that cover the canvas.
  await evaluate(
    `document.querySelectorAll('.el-message-box__headerbtn, .el-notification__closeBtn, [data-test-id="close-button"]').forEach((b) => b.click())`,
  );
  await sleep(1000);
  // A real mouse click at the element's centre: n8n's dropdowns open on pointer events, not on element.click().
  const clickOn = async (/** @type {string} */ selector, count = 1) => {
    const at = await evaluate(
      `(() => { const el = document.querySelector(${JSON.stringify(selector)}); if (!el) return null; el.scrollIntoView({ block: 'center' }); const r = el.getBoundingClientRect(); return { x: r.x + r.width / 2, y: r.y + r.height / 2 }; })()`,
    );
    if (!at) throw new Error(`nothing on the page matches ${selector}`);
    await send('Input.dispatchMouseEvent', { type: 'mouseMoved', x: at.x, y: at.y });
    for (let n = 1; n <= count; n++) {
      for (const type of ['mousePressed', 'mouseReleased'])
        await send('Input.dispatchMouseEvent', { type, x: at.x, y: at.y, button: 'left', clickCount: n });
    }
  };
  if (nodeName) {
    const nodeSelector = `[data-test-id="canvas-node"][data-node-name=${JSON.stringify(nodeName)}]`;
    // A double click opens the node's panel.
    await clickOn(nodeSelector, 2);
    await sleep(3000);
  }
  for (const selector of clicks) {
    await clickOn(selector);
    await sleep(2500);
  }
  if (typed) {
    await send('Input.insertText', { text: typed });
    await sleep(3000);
  }
  const shot = await send('Page.captureScreenshot', { format: 'png' });
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, Buffer.from(shot.data, 'base64'));
  console.log(`wrote ${out}`);
  ws.close();
} finally {
  cleanup();
}
