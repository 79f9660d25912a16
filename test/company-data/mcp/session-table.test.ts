/**
 * Which session the table closes to make room: the least recently used, not one answering a request (unless
 * all are), and those idle too long first. Sessions here are real SDK servers on real transports, never
 * connected to a client: what the table does to them is what it does in `mcp --http`.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { SessionTable } from '../../../packages/company-data/src/mcp/sessions';

function table(max: number, idleMs = 60_000, maxPerSubject = max) {
  let now = 1_000;
  const log: string[] = [];
  const t = new SessionTable({ max, maxPerSubject, idleMs, log: (l) => log.push(l), now: () => now });
  const closed = new Set<string>();
  const open = async (id: string, subject?: string) => {
    const server = new Server({ name: 't', version: '1' }, { capabilities: {} });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => id });
    await server.connect(transport);
    const onclose = transport.onclose;
    transport.onclose = () => {
      closed.add(id);
      onclose?.();
    };
    t.add(id, transport, server, '2025-06-18', subject);
  };
  return { t, log, closed, open, tick: (ms: number) => (now += ms) };
}

const settle = () => new Promise((r) => setTimeout(r, 0));

describe('SessionTable', () => {
  it('closes the least recently used session at the cap, and a session used since is not it', async () => {
    const { t, closed, open, tick, log } = table(3);
    for (const id of ['a', 'b', 'c']) {
      await open(id);
      tick(10);
    }
    expect(t.use('a', undefined)).toBeDefined(); // a is now the most recently used: b is the least
    tick(10);
    await open('d');
    await settle();
    expect([...closed]).toEqual(['b']);
    expect(t.size).toBe(3);
    expect(t.use('b', undefined)).toBeUndefined();
    expect(log.at(-2)).toBe('session closed to make room (3 open at most; it was the least recently used, idle 0 s) (2 open)');
    expect(log.at(-1)).toBe('session opened (3 open)');
  });

  it('skips a session answering a request, unless every session is', async () => {
    const { t, closed, open, tick } = table(2);
    await open('a');
    tick(10);
    await open('b');
    let finish!: () => void;
    const call = t.serve(t.use('a', undefined)!, () => new Promise<void>((r) => (finish = r)));
    tick(10);
    const b = t.use('b', undefined)!; // b is now more recently used than a, but a is answering
    await open('c');
    await settle();
    expect([...closed]).toEqual(['b']);
    // Now every open session (a and c) is answering: the cap wins, the least recently used (a) goes.
    void t.serve(t.use('c', undefined)!, () => new Promise<void>(() => undefined));
    await open('d');
    await settle();
    expect([...closed]).toEqual(['b', 'a']);
    finish();
    await call;
    expect(b.busy).toBe(0);
  });

  it('closes sessions idle past idleMs when the next one opens; a session ended by its client is forgotten', async () => {
    const { t, closed, open, tick, log } = table(10, 1_000);
    await open('old');
    await open('kept');
    tick(900);
    t.use('kept', undefined);
    tick(200);
    await open('new');
    await settle();
    expect([...closed]).toEqual(['old']);
    expect(log).toContain('session closed after 1 s idle (1 open)');
    t.ended('kept');
    expect(t.size).toBe(1);
    expect(log.at(-1)).toBe('session closed (1 open)');
    await t.closeAll();
    expect(t.size).toBe(0);
    expect(closed.has('new')).toBe(true);
  });

  it("a signed-in user's sessions are theirs: another user's token does not reach them, and at the user's cap their own least recently used one goes", async () => {
    const { t, closed, open, tick, log } = table(10, 60_000, 3);
    await open('alice-1', 'alice');
    tick(10);
    await open('bob-1', 'bob');
    tick(10);
    for (const id of ['alice-2', 'alice-3', 'alice-4', 'alice-5']) {
      await open(id, 'alice');
      tick(10);
    }
    await settle();
    // Alice opened five with a cap of three: her two oldest went; Bob's older session stayed.
    expect([...closed]).toEqual(['alice-1', 'alice-2']);
    expect(t.size).toBe(4);
    expect(log).toContain("session closed to make room (3 per user at most; it was the user's least recently used, idle 0 s) (3 open)");
    expect(t.use('bob-1', 'bob')).toBeDefined();
    // Another user's id, or the static token's, is as good as an unknown one (404).
    expect(t.use('bob-1', 'alice')).toBeUndefined();
    expect(t.use('bob-1', undefined)).toBeUndefined();
    expect(t.use('alice-5', 'alice')).toBeDefined();
    await t.closeAll();
  });
});
