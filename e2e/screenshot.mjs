#!/usr/bin/env node
// Captures a workflow canvas of a running n8n (e.g. `npm start`) with headless Chromium through the
// DevTools protocol, so no browser-automation package is needed. Needs Node 22+ (global WebSocket):
// run it with the e2e runtime's Node 24.
// Usage: node e2e/screenshot.mjs --url http://127.0.0.1:5678 --email E --password P --workflow "Name" --out docs/img/x.png
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const base = arg('url', 'http://127.0.0.1:5678');
const email = arg('email', 'demo@company-data.local');
const password = arg('password', 'CompanyData-demo1');
const workflowName = arg('workflow', 'Enrich companies (CSV file)');
const out = arg('out', 'docs/img/enrich-workflow.png');
const chromium = arg('chromium', 'chromium');
const [width, height] = arg('size', '1400x700').split('x').map(Number);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'chromium-shot-'));
const browser = spawn(chromium, ['--headless=new', '--no-sandbox', '--disable-gpu', '--hide-scrollbars', `--window-size=${width},${height}`, `--user-data-dir=${profile}`, '--remote-debugging-port=0', 'about:blank'], { stdio: ['ignore', 'ignore', 'pipe'] });
const cleanup = () => {
  browser.kill('SIGKILL');
  fs.rmSync(profile, { recursive: true, force: true });
};
process.on('exit', cleanup);

try {
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
  const targets = await (await fetch(`http://127.0.0.1:${port}/json`)).json();
  const page = targets.find((t) => t.type === 'page');
  const ws = new WebSocket(page.webSocketDebuggerUrl);
  await new Promise((r) => ws.addEventListener('open', r, { once: true }));
  let seq = 0;
  const pending = new Map();
  ws.addEventListener('message', (ev) => {
    const msg = JSON.parse(ev.data);
    if (msg.id && pending.has(msg.id)) {
      const { resolve, reject } = pending.get(msg.id);
      pending.delete(msg.id);
      if (msg.error) reject(new Error(JSON.stringify(msg.error)));
      else resolve(msg.result);
    }
  });
  const send = (method, params = {}) =>
    new Promise((resolve, reject) => {
      const id = ++seq;
      pending.set(id, { resolve, reject });
      ws.send(JSON.stringify({ id, method, params }));
    });
  const evaluate = async (expression) => (await send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true })).result.value;

  await send('Page.enable');
  await send('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: 1, mobile: false });
  await send('Page.navigate', { url: `${base}/signin` });
  await sleep(4000);
  // Log in from the page itself, so the session carries the browser id the editor sends.
  const login = await evaluate(`fetch('/rest/login', { method: 'POST', headers: { 'content-type': 'application/json', 'browser-id': localStorage.getItem('n8n-browserId') || '' }, body: JSON.stringify(${JSON.stringify({ emailOrLdapLoginId: email, password })}) }).then((r) => r.status)`);
  if (login !== 200) throw new Error(`login answered ${login}`);
  const list = await evaluate(`fetch('/rest/workflows', { headers: { 'browser-id': localStorage.getItem('n8n-browserId') || '' } }).then((r) => r.json())`);
  const wf = (list.data ?? list).find((w) => w.name === workflowName);
  if (!wf) throw new Error(`no workflow named "${workflowName}"`);
  await send('Page.navigate', { url: `${base}/workflow/${wf.id}` });
  await sleep(8000);
  // Close pop-ups and toasts that cover the canvas.
  await evaluate(`document.querySelectorAll('.el-message-box__headerbtn, .el-notification__closeBtn, [data-test-id="close-button"]').forEach((b) => b.click())`);
  await sleep(1000);
  const shot = await send('Page.captureScreenshot', { format: 'png' });
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, Buffer.from(shot.data, 'base64'));
  console.log(`wrote ${out}`);
  ws.close();
} finally {
  cleanup();
}
