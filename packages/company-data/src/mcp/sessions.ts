/**
 * The open sessions of `mcp --http`, at most `max` of them, least recently used first.
 *
 * Many clients never end their session (the official SDK client's close() sends no DELETE), so a cap that
 * refused newcomers would lock everyone out once enough clients had come and gone. At the cap the least
 * recently used session is closed instead: the protocol lets a server end a session at any time, and the
 * client whose session it was gets 404 on its next request and initializes a new one. A session answering a
 * request right now is closed only when every open session is (then the cap holds anyway). Sessions idle past
 * `idleMs` are closed when the next one opens, so abandoned ones do not sit in memory until the cap is reached.
 *
 * With sign-in (--oauth-issuer) a session belongs to the user who opened it: another user's token gets 404
 * for it, and each user has at most `maxPerSubject` sessions, their own least recently used one closed for
 * a new one, so a client opening sessions in a loop closes only its own.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

export interface Session {
  readonly transport: StreamableHTTPServerTransport;
  readonly server: Server;
  /** The protocol version agreed at initialize (batches are refused from 2025-06-18 on). */
  readonly protocolVersion: string;
  /** The signed-in user who opened it (the token's "sub"); undefined with the static token. */
  readonly subject: string | undefined;
  lastUsed: number;
  /** POST requests of the session being answered now. */
  busy: number;
}

export interface SessionTableOptions {
  max: number;
  /** Sessions of one signed-in user at once (sessions of the static token have only `max`). */
  maxPerSubject: number;
  idleMs: number;
  log?: (line: string) => void;
  now?: () => number;
}

const duration = (ms: number) => (ms < 60_000 ? `${Math.round(ms / 1000)} s` : `${Math.round(ms / 60_000)} min`);

async function end(s: Session): Promise<void> {
  await s.transport.close().catch(() => undefined);
  await s.server.close().catch(() => undefined);
}

export class SessionTable {
  /** By id, in order of last use: a session used is moved to the end. */
  private readonly open = new Map<string, Session>();
  private readonly now: () => number;

  constructor(private readonly opts: SessionTableOptions) {
    this.now = opts.now ?? Date.now;
  }

  get size(): number {
    return this.open.size;
  }

  /**
   * The session of this id, now its most recently used; undefined when it ended or belongs to another
   * user (the client gets 404 either way: whether another user's session exists is not told).
   */
  use(id: string, subject: string | undefined): Session | undefined {
    const s = this.open.get(id);
    if (!s || s.subject !== subject) return undefined;
    this.open.delete(id);
    this.open.set(id, s);
    s.lastUsed = this.now();
    return s;
  }

  /**
   * A new session: sessions idle too long are closed first, then, at the user's cap, the user's least
   * recently used one, then, at the cap, the least recently used one of all.
   */
  add(id: string, transport: StreamableHTTPServerTransport, server: Server, protocolVersion: string, subject?: string): Session {
    const now = this.now();
    for (const [oldId, s] of this.open)
      if (s.busy === 0 && now - s.lastUsed > this.opts.idleMs) void this.close(oldId, `after ${duration(now - s.lastUsed)} idle`);
    const idle = (s: Session) => duration(now - s.lastUsed);
    if (subject !== undefined) {
      const own = [...this.open].filter(([, s]) => s.subject === subject);
      for (let n = own.length; n >= this.opts.maxPerSubject; n--) {
        const [oldId, s] = this.leastRecentlyUsed(own);
        own.splice(
          own.findIndex(([i]) => i === oldId),
          1,
        );
        void this.close(
          oldId,
          `to make room (${this.opts.maxPerSubject} per user at most; it was the user's least recently used, idle ${idle(s)})`,
        );
      }
    }
    while (this.open.size >= this.opts.max) {
      const [oldId, s] = this.leastRecentlyUsed(this.open);
      void this.close(oldId, `to make room (${this.opts.max} open at most; it was the least recently used, idle ${idle(s)})`);
    }
    const session: Session = { transport, server, protocolVersion, subject, lastUsed: now, busy: 0 };
    this.open.set(id, session);
    this.opts.log?.(`session opened (${this.open.size} open)`);
    return session;
  }

  /** Answers a POST of the session; meanwhile it is not the one closed to make room. */
  async serve<T>(s: Session, work: () => Promise<T>): Promise<T> {
    s.busy++;
    try {
      return await work();
    } finally {
      s.busy--;
      s.lastUsed = this.now();
    }
  }

  /** A session that ended by itself (the client's DELETE): forgotten. */
  ended(id: string): void {
    if (this.open.delete(id)) this.opts.log?.(`session closed (${this.open.size} open)`);
  }

  /** Closes a session; its client's next request gets 404. */
  close(id: string, why?: string): Promise<void> {
    const s = this.open.get(id);
    if (!s) return Promise.resolve();
    this.open.delete(id);
    this.opts.log?.(`session closed${why ? ` ${why}` : ''} (${this.open.size} open)`);
    return end(s);
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.open.keys()].map((id) => this.close(id)));
  }

  /** Of these sessions (in order of last use), the least recently used not answering a request, else the first. */
  private leastRecentlyUsed(sessions: Iterable<[string, Session]>): [string, Session] {
    let first: [string, Session] | undefined;
    for (const entry of sessions) {
      if (entry[1].busy === 0) return entry;
      first ??= entry;
    }
    return first!;
  }
}
