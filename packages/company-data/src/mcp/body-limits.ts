/**
 * How `mcp --http` reads a request body without letting one body (or ten) take the memory:
 * - its size: a Content-Length over the limit is refused before a byte is read, a body without one as soon as
 *   more has come (413);
 * - its nesting depth, counted while it is read, before anything is parsed (400): JSON.parse of
 *   `[[[[...` builds one object per bracket, so a few MB of brackets cost hundreds of MB;
 * - how many bodies are read and parsed at once: a few slots; a request waiting for one leaves its body in the
 *   socket (no memory), and one that holds a slot must deliver its body in time (408), so slow senders do
 *   not keep the slots.
 * The limits and why they are what they are: docs/assumptions.md (issue 30).
 */
import type { IncomingMessage } from 'node:http';
import { readCappedBody } from '../transport/capped-body';

export interface BodyLimits {
  /** Bytes a body may have. */
  maxBytes: number;
  /** Arrays and objects a body may nest. */
  maxDepth: number;
  /** Bodies read and parsed at once. */
  slots: number;
  /** Milliseconds a body may take to arrive once its reading starts. */
  timeoutMs: number;
}

export const DEFAULT_BODY_LIMITS: BodyLimits = {
  // The largest legitimate call is tens of KB to a few hundred KB: companies_lookup with 1,000 queries (about
  // 15 KB of registry codes, 40-100 KB of names) or monitoring_add_companies with 2,000 companies (up to ~600 KB
  // with 200-character references). 1 MiB holds either with room, and keeps a parsed body to tens of MB.
  maxBytes: 1024 * 1024,
  // A tools/call is 5-7 levels deep (message, params, arguments, a list, its objects, their lists); 64 leaves
  // room for any client's _meta and costs nothing to check.
  maxDepth: 64,
  slots: 4,
  timeoutMs: 10_000,
};

/** Why a body was refused: the HTTP status, the JSON-RPC code and a message that says what to do. */
export interface BodyRefusal {
  status: number;
  code: number;
  message: string;
}

export type BodyRead = { ok: true; value: unknown } | { ok: false; refusal: BodyRefusal };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const isOpen = (b: number) => b === 0x5b || b === 0x7b; // [ {
const isClose = (b: number) => b === 0x5d || b === 0x7d; // ] }

/**
 * The nesting depth of JSON text fed in chunks, brackets inside strings not counted. UTF-8 continuation
 * bytes are all >= 0x80, so a multi-byte character never looks like a bracket or a quote.
 */
export class JsonDepth {
  private depth = 0;
  private inString = false;
  private escaped = false;
  tooDeep = false;

  constructor(private readonly max: number) {}

  /** False once the text went deeper than max. */
  feed(chunk: Uint8Array): boolean {
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (b === BACKSLASH) this.escaped = true;
        else if (b === QUOTE) this.inString = false;
      } else if (b === QUOTE) this.inString = true;
      else if (isOpen(b)) {
        if (++this.depth > this.max) return !(this.tooDeep = true);
      } else if (isClose(b)) this.depth--;
    }
    return true;
  }
}

/** At most n holders at once; the others wait in turn. */
class Slots {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(n: number) {
    this.free = n;
  }

  async take(): Promise<() => void> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    };
  }
}

const mib = (n: number) => (n % (1024 * 1024) === 0 ? `${n / 1024 / 1024} MiB` : `${n} bytes`);

/** A reader of JSON bodies under `limits`, its slots shared by every request given to it. */
export function jsonBodyReader(limits: BodyLimits = DEFAULT_BODY_LIMITS): (req: IncomingMessage) => Promise<BodyRead> {
  const slots = new Slots(limits.slots);
  const tooLarge: BodyRead = {
    ok: false,
    refusal: {
      status: 413,
      code: -32600,
      message: `Invalid Request: the body is over ${mib(limits.maxBytes)}; send fewer items per call (a lookup takes up to 1,000 queries, far below this)`,
    },
  };

  return async (req) => {
    if (Number(req.headers['content-length']) > limits.maxBytes) return tooLarge;
    const release = await slots.take();
    const depth = new JsonDepth(limits.maxDepth);
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), limits.timeoutMs)));
      const raw = await Promise.race([readCappedBody(req, limits.maxBytes, (c) => depth.feed(c)), timedOut]);
      if (raw === 'timeout')
        return {
          ok: false,
          refusal: { status: 408, code: -32000, message: `Request timeout: the body did not arrive within ${limits.timeoutMs / 1000} s` },
        };
      if (depth.tooDeep)
        return {
          ok: false,
          refusal: { status: 400, code: -32600, message: `Invalid Request: the JSON is nested deeper than ${limits.maxDepth} levels` },
        };
      if (!raw && req.destroyed)
        return { ok: false, refusal: { status: 400, code: -32600, message: 'Invalid Request: the body was cut off' } };
      if (!raw) return tooLarge;
      try {
        return { ok: true, value: JSON.parse(raw.toString('utf8')) };
      } catch {
        return { ok: false, refusal: { status: 400, code: -32700, message: 'Parse error: the body is not JSON' } };
      }
    } finally {
      clearTimeout(timer);
      release();
    }
  };
}
