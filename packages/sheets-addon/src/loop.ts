/**
 * Apps Script has no event loop for timers and no parallel I/O but UrlFetchApp.fetchAll. The core's engine
 * is asynchronous (waits on a clock, requests through a transport), so the add-on runs it on a loop of its
 * own: the clock's waits and the transport's requests are registered here, and `run` lets the engine's
 * promise chains go (microtasks) until they stand still, then sends every request waiting in one fetchAll,
 * or, with none, blocks until the earliest wait is due (Utilities.sleep) and ends it. Nothing ever waits on
 * a timer that does not exist.
 */

/** A wait the engine's clock started. */
interface Wait {
  due: number;
  done: () => void;
}

/** One request waiting to go out, with what its promise is told. */
export interface Queued<Req, Res> {
  request: Req;
  resolve: (res: Res) => void;
  reject: (err: unknown) => void;
}

export interface LoopIo<Req, Res> {
  now(): number;
  /** Blocks the execution for ms (Utilities.sleep). */
  block(ms: number): void;
  /** Sends a batch together (fetchAll); settles each request's promise. */
  send(batch: Queued<Req, Res>[]): void;
  /** Called once per round, before anything is sent or a wait ended (the run's time budget). */
  onRound?(): void;
}

/** Microtask turns the engine gets between two looks at whether it still moves. */
const TURNS = 64;
/** Rounds in a row with nothing to send, nothing to wait for and no progress before the run counts as stuck. */
const STUCK_ROUNDS = 1_000;
/** Utilities.sleep's maximum (Google: 300,000 ms). */
const MAX_BLOCK_MS = 300_000;

export class Loop<Req, Res> {
  private waits: Wait[] = [];
  private queue: Queued<Req, Res>[] = [];
  /** Bumped by every wait and request registered: the engine is moving. */
  private moves = 0;

  constructor(private readonly io: LoopIo<Req, Res>) {}

  /** The clock's sleep: resolves when due or when the signal aborts, never rejects. */
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.moves++;
    if (ms <= 0 || signal?.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const wait: Wait = {
        due: this.io.now() + ms,
        done: () => {
          this.waits = this.waits.filter((w) => w !== wait);
          signal?.removeEventListener('abort', wait.done);
          resolve();
        },
      };
      this.waits.push(wait);
      signal?.addEventListener('abort', wait.done, { once: true });
    });
  }

  /** The transport's request: queued until the engine stands still, then sent with the others waiting. */
  request(request: Req): Promise<Res> {
    this.moves++;
    return new Promise<Res>((resolve, reject) => this.queue.push({ request, resolve, reject }));
  }

  /** Runs `main` to its end: its value, or its error. */
  async run<T>(main: () => Promise<T>): Promise<T> {
    let over = false;
    const result = main().finally(() => (over = true));
    // Handled here so a failure is not unhandled while the loop turns; `result` is returned below.
    result.catch(() => undefined);
    let still = 0;
    while (!over) {
      const before = this.moves;
      for (let i = 0; i < TURNS && !over; i++) await undefined;
      if (over) break;
      if (this.moves !== before) {
        still = 0;
        continue;
      }
      this.io.onRound?.();
      if (this.queue.length) {
        const batch = this.queue;
        this.queue = [];
        this.io.send(batch);
        still = 0;
      } else if (this.waits.length) {
        const next = this.waits.reduce((a, b) => (b.due < a.due ? b : a));
        const ms = next.due - this.io.now();
        if (ms > 0) this.io.block(Math.min(ms, MAX_BLOCK_MS));
        if (next.due <= this.io.now()) next.done();
        still = 0;
      } else if (++still > STUCK_ROUNDS) {
        throw new Error('The add-on stopped making progress (nothing to send or wait for). Run it again: what was paid for is kept.');
      }
    }
    return result;
  }
}
