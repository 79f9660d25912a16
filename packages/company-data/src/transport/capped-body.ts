import type { IncomingMessage } from 'node:http';

/**
 * A request body read up to `max` bytes: the body, or undefined once more came, or once `accept` refused
 * a chunk (what came is dropped, the rest left unread), or when the request was torn down before its end.
 * The connection is not torn down here: the 413 still has to go out on it (see lingerThenClose).
 */
export function readCappedBody(req: IncomingMessage, max: number, accept?: (chunk: Buffer) => boolean): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (c: Buffer) => {
      size += c.length;
      if (size <= max && (!accept || accept(c))) return void chunks.push(c);
      req.off('data', onData);
      chunks.length = 0;
      resolve(undefined);
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
    req.once('close', () => resolve(undefined));
  });
}

/**
 * After an early answer (413, 405, 401 before the body) the client may still be sending: the rest is
 * read and dropped for up to 2 s (memory stays flat) so it reads the answer rather than a reset, then
 * the connection is closed.
 */
export function lingerThenClose(req: IncomingMessage): void {
  const t = setTimeout(() => req.destroy(), 2_000).unref();
  req.once('end', () => clearTimeout(t));
  req.resume();
}
