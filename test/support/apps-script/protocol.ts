/** Messages between an execution's worker (worker.ts) and the test's thread (execution.ts). */

export interface WorkerInput {
  /** Int32Array(1) over it: 0 while a call waits, 1 when its answer is on `port`. */
  signal: SharedArrayBuffer;
  port: unknown;
  files: { name: string; code: string }[];
  fn: string;
  /** Encoded (see encode in worker.ts): the arguments, and the global services by name. */
  args: string;
  globals: string;
  now: number;
}

export interface CallMessage {
  kind: 'call';
  /** The call's number in its execution; the answer repeats it. */
  seq: number;
  /** A handle id, or a global service's name. */
  h: number | string;
  m: string;
  a: string;
}

export interface DoneMessage {
  kind: 'done';
  ok: boolean;
  v?: string;
  e?: string;
}

/** The answer to a call: the encoded value or the error message, and the execution's virtual time. */
export interface Reply {
  seq: number;
  now: number;
  v?: string;
  e?: string;
}
