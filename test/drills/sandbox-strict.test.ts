/**
 * Drill: the sandbox as its own process (company-data sandbox), probed as a careless or hostile client:
 * a body over the limit gets the 413 it has a code for (not a reset), a wrong method on a known path
 * 405 with Allow, and control inputs past their maxima a 400 while the server keeps answering.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnCli } from './support/cli';

const KEY = 'sk_drill_strict_0000000000000001';
let child: ReturnType<typeof spawnCli>;
let url: string;

beforeAll(async () => {
  child = spawnCli(['sandbox', '--port', '0', '--key', KEY, '--companies', '1500']);
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  for (let i = 0; i < 1200 && !/Sandbox on (\S+)/.test(out); i++) await new Promise((r) => setTimeout(r, 50));
  url = /Sandbox on (\S+)/.exec(out)![1]!;
}, 90_000);
afterAll(async () => {
  child.kill('SIGTERM');
  await child.output;
});

const call = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(url + path, {
    method,
    headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return {
    status: res.status,
    headers: res.headers,
    body: (await res.json()) as { success: boolean; error?: { code: string; message: string; param?: string } },
  };
};

/** Raw HTTP: sends `size` bytes of body and returns the status line the server answered, if any. */
function oversized(size: number): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const sock = connect(Number(port), hostname, () => {
      sock.write(
        `POST /companies/lookup HTTP/1.1\r\nHost: x\r\nX-API-Key: ${KEY}\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`,
      );
      const chunk = Buffer.alloc(256 * 1024, 0x20);
      let sent = 0;
      const pump = () => {
        while (sent < size) {
          sent += chunk.length;
          if (!sock.write(chunk)) return void sock.once('drain', pump);
        }
      };
      pump();
    });
    let got = '';
    let error = '';
    sock.on('data', (d) => (got += d));
    sock.on('error', (e) => (error = (e as NodeJS.ErrnoException).code ?? 'error'));
    sock.on('close', () => resolve(/^HTTP\/1\.1 \d+[^\r]*/.exec(got)?.[0] ?? `no answer (${error || 'closed'})`));
  });
}

describe('sandbox strictness over HTTP', () => {
  it('a body over 2 MB gets 413 body_too_large, not a reset', async () => {
    expect(await oversized(8 * 1024 * 1024)).toMatch(/^HTTP\/1\.1 413/);
    expect((await call('GET', '/monitoring/lists')).status).toBe(200);
  }, 60_000);

  it('a wrong method on a known path is 405 with Allow; an unknown path stays 404', async () => {
    const r = await call('POST', '/monitoring/events');
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('GET');
    expect(r.body.error?.code).toBe('method_not_allowed');
    const lists = await call('PATCH', '/monitoring/lists');
    expect(lists.status).toBe(405);
    expect(lists.headers.get('allow')).toBe('GET, POST');
    const clock = await call('DELETE', '/sandbox/clock');
    expect(clock.status).toBe(405);
    expect(clock.headers.get('allow')).toBe('GET, POST');
    expect((await call('GET', '/no/such/path')).status).toBe(404);
  });

  it('clock controls past their maxima are 400 and do not hang the server; a year ahead is fine', async () => {
    const t0 = Date.now();
    const huge = await call('POST', '/sandbox/clock', { advance_seconds: 1e12 });
    expect(huge.status).toBe(400);
    expect(huge.body.error).toMatchObject({ code: 'invalid_parameter', param: 'advance_seconds' });
    expect(huge.body.error!.message).toContain('at most 31622400');
    const fast = await call('POST', '/sandbox/clock', { time_scale: 1e9 });
    expect(fast.status).toBe(400);
    expect(fast.body.error!.param).toBe('time_scale');
    const far = await call('POST', '/sandbox/clock', { to: '9999-01-01T00:00:00Z' });
    expect(far.status).toBe(400);
    expect(far.body.error!.param).toBe('to');
    expect(Date.now() - t0).toBeLessThan(10_000);
    // Something to carry out on the way: a monitored list makes each daily run do work.
    const list = await call('POST', '/monitoring/lists', { name: 'Year' });
    expect(list.status).toBe(201);
    const year = await call('POST', '/sandbox/clock', { advance_seconds: 366 * 86_400 });
    expect(year.status).toBe(200);
    expect((await call('GET', '/sandbox/clock')).status).toBe(200);
  }, 120_000);
});
