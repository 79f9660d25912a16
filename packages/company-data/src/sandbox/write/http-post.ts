import http from 'node:http';
import https from 'node:https';

export type PostOutcome = { status: number } | { error: string };

/**
 * One POST, no redirects followed, a fresh connection each time (no keep-alive state shared between
 * attempts). Resolves when the status line arrives or on failure; never rejects.
 */
export function postOnce(url: string, headers: Record<string, string>, body: string, timeoutMs: number): Promise<PostOutcome> {
  return new Promise((resolve) => {
    let done = false;
    const finish = (o: PostOutcome) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(o);
    };
    const u = new URL(url);
    const lib = u.protocol === 'https:' ? https : http;
    const req = lib.request(u, {
      method: 'POST',
      headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) },
      agent: false,
    });
    const timer = setTimeout(() => {
      finish({ error: `timeout: no answer within ${timeoutMs} ms` });
      req.destroy();
    }, timeoutMs);
    req.on('response', (res) => {
      res.resume();
      finish({ status: res.statusCode ?? 0 });
    });
    req.on('error', (err: NodeJS.ErrnoException) => finish({ error: `connection error: ${err.code ?? err.message}` }));
    req.end(body);
  });
}
