// A loopback gateway that adds `Authorization: Bearer <token>` to every request and passes it on, for a
// client that cannot send headers (the MCP conformance suite) to reach `company-data mcp --http`, which
// requires the token. Bodies and answers are streamed both ways (SSE included). Host and Origin are passed
// as the client sent them, except that the gateway's own loopback origin is mapped to the server's, so the
// server's DNS-rebinding guard judges what the client sent: a foreign Origin or Host is still refused.
import http from 'node:http';

/**
 * @param {{ target: string, token: string }} opts target: the server's /mcp address
 * @returns {Promise<{ url: string, close: () => Promise<void> }>} url: the gateway's /mcp address
 */
export async function startBearerProxy({ target, token }) {
  const to = new URL(target);
  /** @type {string} */
  let own = '';
  const server = http.createServer((req, res) => {
    const headers = { ...req.headers, authorization: `Bearer ${token}` };
    if (req.headers.origin) {
      try {
        const o = new URL(req.headers.origin);
        if (o.port === own) headers.origin = `${o.protocol}//${o.hostname}:${to.port}`;
      } catch {
        // Not a URL: passed on as it is, for the server to refuse.
      }
    }
    if (req.headers.host) headers.host = req.headers.host.replace(new RegExp(`:${own}$`), `:${to.port}`);
    const up = http.request({ host: to.hostname, port: to.port, path: req.url, method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    up.on('error', (err) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`gateway: ${err.message}`);
    });
    res.on('close', () => up.destroy());
    req.pipe(up);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const address = server.address();
  own = String(typeof address === 'object' && address ? address.port : '');
  return {
    url: `http://127.0.0.1:${own}${to.pathname}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve(undefined));
      }),
  };
}
