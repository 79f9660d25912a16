import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** Which TCP connection carried it (1, 2, ...): shows keep-alive reuse. */
  connection: number;
}

export type Handler = (req: IncomingMessage, res: ServerResponse, body: string, rec: RecordedRequest) => unknown;

export interface TestServer {
  url: string;
  port: number;
  requests: RecordedRequest[];
  /** TCP connections accepted so far. */
  readonly connections: number;
  setHandler(h: Handler): void;
  close(): Promise<void>;
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** A request's whole body, for the servers tests run (stand-ins, receivers, proxies). */
export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** A real node:http server on a loopback port whose answers each test scripts. */
export async function startTestServer(handler: Handler = (_q, res) => json(res, 404, {})): Promise<TestServer> {
  let current = handler;
  let connections = 0;
  const sockets = new Set<Socket>();
  const ids = new WeakMap<Socket, number>();
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rec: RecordedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        connection: ids.get(req.socket) ?? 0,
      };
      requests.push(rec);
      Promise.resolve(current(req, res, rec.body, rec)).catch((e) => {
        res.writeHead(500);
        res.end(String(e));
      });
    });
  });
  server.keepAliveTimeout = 10_000;
  server.on('connection', (s: Socket) => {
    connections++;
    ids.set(s, connections);
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    get connections() {
      return connections;
    },
    setHandler(h) {
      current = h;
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
