import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDirs } from '../support/temp-dirs';

// Plain ESM helpers of the e2e runtime (no build step, no types).
type Release = () => void;
type Lib = {
  acquireLock: (dir: string, log?: (m: string) => void, o?: { waitMs?: number; pollMs?: number }) => Promise<Release>;
};
const load = async (): Promise<Lib> => import(path.resolve('e2e/lib/runtime.mjs'));
const loadN8n = async (): Promise<{ parseTrailingJson: (s: string) => unknown; freePort: () => Promise<number> }> =>
  import(path.resolve('e2e/lib/n8n.mjs'));

const tempDir = tempDirs();
const tmp = () => tempDir('e2e-lock-');

describe('install lock', () => {
  it('makes a second holder wait until the first releases', async () => {
    const { acquireLock } = await load();
    const lock = path.join(tmp(), 'k.lock');
    const order: string[] = [];
    const release1 = await acquireLock(lock);
    const second = acquireLock(lock, () => {}, { pollMs: 20 }).then((release) => {
      order.push('second acquired');
      release();
    });
    second.catch(() => undefined); // handled during the wait; `await second` below still throws its error
    await new Promise((r) => setTimeout(r, 150));
    order.push('first releases');
    release1();
    await second;
    expect(order).toEqual(['first releases', 'second acquired']);
    expect(fs.existsSync(lock)).toBe(false);
  });

  it('takes over a lock whose holder process is gone', async () => {
    const { acquireLock } = await load();
    const lock = path.join(tmp(), 'k.lock');
    // A pid that surely exited: a finished child's.
    const deadPid = Number(execFileSync(process.execPath, ['-p', 'process.pid'], { encoding: 'utf8' }).trim());
    fs.mkdirSync(lock);
    fs.writeFileSync(path.join(lock, 'owner.json'), JSON.stringify({ pid: deadPid, host: os.hostname() }));
    const messages: string[] = [];
    const release = await acquireLock(lock, (m) => messages.push(m), { waitMs: 2000, pollMs: 20 });
    expect(JSON.parse(fs.readFileSync(path.join(lock, 'owner.json'), 'utf8')).pid).toBe(process.pid);
    expect(messages).toContain('removed a stale install lock');
    release();
  });

  it('gives up after the wait limit while a live holder keeps the lock', async () => {
    const { acquireLock } = await load();
    const lock = path.join(tmp(), 'k.lock');
    const release = await acquireLock(lock);
    await expect(acquireLock(lock, () => {}, { waitMs: 100, pollMs: 20 })).rejects.toThrow(/timed out waiting for the install lock/);
    release();
  });
});

describe('n8n execute output', () => {
  it('finds the JSON result after log lines that also start with a bracket', async () => {
    const { parseTrailingJson } = await loadN8n();
    const out = [
      'n8n Task Broker ready on 127.0.0.1, port 40000',
      '[license SDK] Skipping renewal on init: license cert is not initialized',
      '{',
      '  "data": { "resultData": { "runData": { "Echo": [] } } }',
      '}',
      '',
    ].join('\n');
    expect(parseTrailingJson(out)).toEqual({ data: { resultData: { runData: { Echo: [] } } } });
    expect(parseTrailingJson('[license SDK] only logs\n')).toBeUndefined();
  });

  it('hands out a port that can be listened on', async () => {
    const { freePort } = await loadN8n();
    const port = await freePort();
    const net = await import('node:net');
    const srv = net.createServer();
    await new Promise<void>((resolve, reject) => {
      srv.once('error', reject);
      srv.listen(port, '127.0.0.1', () => resolve());
    });
    expect((srv.address() as { port: number }).port).toBe(port);
    await new Promise((r) => srv.close(r));
  });
});
