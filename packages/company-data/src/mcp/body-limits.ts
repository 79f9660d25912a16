/**
 * How `mcp --http` reads a request body without letting one body (or ten) take the memory:
 * - its size: a Content-Length over the limit is refused before a byte is read, a body without one as soon as
 *   more has come (413);
 * - its nesting depth, counted while it is read, before anything is parsed (400): JSON.parse of
 *   `[[[[...` builds one object per bracket, so a few MB of brackets cost hundreds of MB;
 * - the bodies in memory at once: parsed JSON takes up to ~22 times its size (a body of `{},{},...`), and
 *   a parsed body lives until its answer is sent, so the bytes of the bodies being read, parsed or answered
 *   share one budget (a few bodies of the largest size; thousands of ordinary calls of a few hundred bytes).
 *   A request waiting for room leaves its body in the socket (no memory); one that is being read must
 *   deliver its body in time (408), so a slow sender does not keep the room.
 * The limits and why they are what they are: docs/decisions/mcp.md, "HTTP: guards, sessions and bodies".
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readCappedBody } from '../transport/capped-body';

export interface BodyLimits {
  /** Bytes a body may have. */
  maxBytes: number;
  /** Arrays and objects a body may nest. */
  maxDepth: number;
  /** Bytes of the bodies being read, parsed or answered at once. */
  budgetBytes: number;
  /** Milliseconds a body may take to arrive once its reading starts. */
  timeoutMs: number;
}

export const DEFAULT_BODY_LIMITS: BodyLimits = {
  // The largest call an assistant makes is a lookup of 1,000 queries: 11 KB of registry codes, 27-36 KB of
  // company names, 203 KB even for 1,000 names of 100 non-ASCII characters. 256 KiB holds all of those and
  // 2,000 companies added to a monitoring list with references of up to ~80 characters; parsed, it is at most
  // ~6 MB (22 times its size, for a body of `{},{},...`).
  maxBytes: 256 * 1024,
  // A tools/call is 5-7 levels deep (message, params, arguments, a list, its objects, their lists); 64 leaves
  // room for any client's _meta and costs nothing to check.
  maxDepth: 64,
  // Four bodies of the largest size: ~25 MB parsed at the worst, however many arrive at once.
  budgetBytes: 1024 * 1024,
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
      } else if (isClose(b) && this.depth > 0) this.depth--;
    }
    return true;
  }
}

/** Room held in a budget: kept down to what is needed, then given back (once). */
interface Hold {
  keep(n: number): void;
  release(): void;
}

/**
 * Bytes shared by all requests; a request waits until its share is free. The smallest waiting request goes
 * first, so an ordinary call of a few hundred bytes does not wait behind large ones.
 */
export class ByteBudget {
  private free: number;
  private readonly waiting: { n: number; go: () => void }[] = [];

  constructor(private readonly total: number) {
    this.free = total;
  }

  async take(wanted: number): Promise<Hold> {
    const n = Math.min(wanted, this.total);
    if (n <= this.free) this.free -= n;
    else await new Promise<void>((go) => this.waiting.push({ n, go }));
    let held = n;
    return {
      keep: (k) => {
        if (k >= held) return;
        this.give(held - k);
        held = k;
      },
      release: () => {
        this.give(held);
        held = 0;
      },
    };
  }

  private give(n: number): void {
    this.free += n;
    for (;;) {
      let next = -1;
      for (let i = 0; i < this.waiting.length; i++)
        if (this.waiting[i]!.n <= this.free && (next < 0 || this.waiting[i]!.n < this.waiting[next]!.n)) next = i;
      if (next < 0) return;
      const [w] = this.waiting.splice(next, 1);
      this.free -= w!.n;
      w!.go();
    }
  }
}

const sizeText = (n: number) => (n % 1024 ** 2 === 0 ? `${n / 1024 ** 2} MiB` : n % 1024 === 0 ? `${n / 1024} KiB` : `${n} bytes`);

/**
 * A reader of JSON bodies under `limits`, its budget shared by every request given to it. A body read whole
 * keeps its bytes in the budget until `res` is done (answered, or its connection gone).
 */
export function jsonBodyReader(limits: BodyLimits = DEFAULT_BODY_LIMITS): (req: IncomingMessage, res: ServerResponse) => Promise<BodyRead> {
  const budget = new ByteBudget(limits.budgetBytes);
  const tooLarge: BodyRead = {
    ok: false,
    refusal: {
      status: 413,
      code: -32600,
      message: `Invalid Request: the body is over ${sizeText(limits.maxBytes)}; send fewer items per call (a lookup of 1,000 company names is about 40 KB)`,
    },
  };

  return async (req, res) => {
    const declared = Number(req.headers['content-length'] ?? NaN);
    if (declared > limits.maxBytes) return tooLarge;
    // Without a Content-Length (chunked), room for the largest body until it has come.
    const hold = await budget.take(Number.isInteger(declared) && declared >= 0 ? declared : limits.maxBytes);
    const depth = new JsonDepth(limits.maxDepth);
    let timer: ReturnType<typeof setTimeout> | undefined;
    let answering = false;
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
      let value: unknown;
      try {
        value = JSON.parse(raw.toString('utf8'));
      } catch {
        return { ok: false, refusal: { status: 400, code: -32700, message: 'Parse error: the body is not JSON' } };
      }
      hold.keep(raw.length);
      answering = true;
      if (res.destroyed) hold.release();
      else res.once('close', () => hold.release());
      return { ok: true, value };
    } finally {
      clearTimeout(timer);
      if (!answering) hold.release();
    }
  };
}
