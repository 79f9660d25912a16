// A local stand-in for a Slack-compatible incoming webhook: records every POSTed JSON body.
import http from 'node:http';

/** @typedef {{ at: number, path: string | undefined, body: any }} ChatMessage body: the posted JSON (any: whatever the workflow sent) */

/** @typedef {Awaited<ReturnType<typeof startChatReceiver>>} ChatReceiver */

/** @param {{ host?: string, port?: number }} [opts] */
export async function startChatReceiver({ host = '127.0.0.1', port = 0 } = {}) {
  /** @type {ChatMessage[]} */
  const messages = [];
  // A slow chat (setDelay): each answer waits this long, as a busy chat service would.
  let delayMs = 0;
  const server = http.createServer((req, res) => {
    /** @type {Buffer[]} */
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body;
      try {
        body = JSON.parse(raw);
      } catch {
        body = { raw };
      }
      messages.push({ at: Date.now(), path: req.url, body });
      // Slack answers a plain "ok".
      const answer = () => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      if (delayMs > 0) setTimeout(answer, delayMs);
      else answer();
    });
  });
  await new Promise((resolve) => server.listen(port, host, () => resolve(undefined)));
  const url = `http://${host}:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}`;
  return {
    url,
    messages,
    /**
     * Messages posted to one path (each workflow gets its own).
     * @param {string} p
     */
    at: (p) => messages.filter((m) => m.path === p),
    /** @param {number} ms */
    setDelay: (ms) => {
      delayMs = ms;
    },
    close: () => /** @type {Promise<void>} */ (new Promise((resolve) => server.close(() => resolve()))),
  };
}
