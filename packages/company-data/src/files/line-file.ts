import { close, closeSync, fstatSync, fsync, fsyncSync, mkdirSync, openSync, readSync, statSync, writeSync, type Stats } from 'node:fs';
import { dirname } from 'node:path';
import { writeFileAtomic } from './atomic-file';

/**
 * When appended lines are made durable:
 * - 'each': fsync after every append, before append() returns (a line guards the next step);
 * - 'background': fsync started after the append and not awaited; the file is opened for each append
 *   and closed when its fsync is done (a killed process loses nothing it wrote, a power cut the last moment);
 * - 'manual': only when sync() is called (several appends, one fsync), or never.
 */
export type LineFileSync = 'each' | 'background' | 'manual';

export interface LineFileOptions {
  /** Mode of a file this creates (also by rewrite()); an existing file keeps its own. Default: 0666 less the umask. */
  mode?: number;
  /** Mode of the folders created for the file. Default: 0777 less the umask. */
  dirMode?: number;
  /** Default 'each'. */
  sync?: LineFileSync;
}

/** Tries per append: a write that lands in a file replaced meanwhile (by another process's rewrite) is written again. */
const APPEND_TRIES = 3;

/**
 * An append-only file of JSON lines, one record per line (ledgers, journals, caches, logs):
 *
 * - append: every call is ONE write to a file opened with O_APPEND, so the lines of two processes
 *   never interleave and each write lands whole at the end. A torn last line (a writer killed
 *   mid-write) is ended first, so it cannot swallow the first line of the next write. A write that
 *   lands in a file another process has meanwhile replaced (rewrite) is written again to the new file.
 * - read: complete lines parsed in order; a line that is not JSON (only a torn last line can be) is skipped.
 * - rewrite (compaction): the whole file replaced through writeFileAtomic (temp file, fsync, rename,
 *   folder fsync), so a reader sees the old file or the new one, never half of one.
 */
export class LineFile {
  /** Bytes in the file as this object last saw it (read, appended, rewritten). */
  size = 0;
  private fd: number | undefined;
  private unsynced = false;
  private readonly sync: LineFileSync;

  constructor(
    readonly path: string,
    private readonly options: LineFileOptions = {},
  ) {
    this.sync = options.sync ?? 'each';
  }

  /** Appends one JSON line per record, all in one write. Returns the file's size after it. */
  append(...records: unknown[]): number {
    return this.appendLines(records.map((r) => JSON.stringify(r)));
  }

  /** Appends lines already serialised (one JSON text each, without the newline), all in one write. */
  appendLines(lines: readonly string[]): number {
    if (lines.length === 0) return this.size;
    return this.appendText(lines.map((l) => `${l}\n`).join(''));
  }

  /** Appends text made of whole lines (each ending in a newline) in one write. Returns the file's size after it. */
  appendText(text: string): number {
    if (text === '') return this.size;
    for (let attempt = 1; ; attempt++) {
      const fd = this.openForAppend();
      let now: Stats | undefined;
      try {
        const size = fstatSync(fd).size;
        // A line torn by a kill -9 (of this or another writer) must not swallow the first line of this write.
        const lead = size > 0 && !endsWithNewline(fd, size) ? '\n' : '';
        writeSync(fd, lead + text);
        this.unsynced = true;
        if (this.sync === 'each') this.flush(fd);
        now = statIfSame(fd, this.path);
      } finally {
        if (this.sync === 'background') this.closeInBackground(fd);
      }
      if (now) return (this.size = now.size);
      // Written to a file a rewrite has just replaced (or someone deleted): write it again to the new one.
      this.close();
      if (attempt >= APPEND_TRIES) return (this.size = statSafe(this.path)?.size ?? 0);
    }
  }

  /** Makes what was appended so far durable (for sync 'manual'; the other modes do it themselves). */
  flushAppended(): void {
    if (this.fd !== undefined) this.flush(this.fd);
  }

  /**
   * Every record in the file, in order; none when it does not exist. Lines that are not JSON are
   * skipped (a torn last line: its write never finished). Sets `size`.
   */
  read<T = unknown>(): T[] {
    const out: T[] = [];
    this.scan((line) => {
      try {
        out.push(JSON.parse(line) as T);
      } catch {
        // Only a torn last line can be incomplete; earlier lines were written whole.
      }
    });
    return out;
  }

  /**
   * Calls back with every non-empty line (without its newline) and its byte offset, reading the
   * file in chunks (a large file never becomes one string). `complete` is false for a last line
   * without its newline: torn by a kill, or still being written. Nothing when the file does not
   * exist. Sets `size` to the bytes read.
   */
  scan(onLine: (line: string, offset: number, complete: boolean) => void): void {
    let fd: number;
    try {
      fd = openSync(this.path, 'r');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      this.size = 0;
      return;
    }
    try {
      this.size = scanLines(fd, 0, onLine);
    } finally {
      closeSync(fd);
    }
  }

  /** Replaces the file atomically with one JSON line per record (a compaction). Returns its size. */
  rewrite(records: Iterable<unknown>): number {
    return this.rewriteLines(mapIterable(records, (r) => JSON.stringify(r)));
  }

  /** Replaces the file atomically with these lines (serialised, without newlines); creates its folders. Returns its size. */
  rewriteLines(lines: Iterable<string>): number {
    // Appends after this go to the new file, not to the one the rename unlinks.
    this.close();
    this.makeFolder();
    let bytes = 0;
    writeFileAtomic(
      this.path,
      (write) => {
        for (const l of lines) {
          const text = `${l}\n`;
          bytes += Buffer.byteLength(text);
          write(text);
        }
      },
      this.options.mode,
    );
    return (this.size = bytes);
  }

  /** Syncs what is unsynced (sync 'each' and 'manual') and closes the file; a later append opens it again. */
  close(): void {
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    try {
      if (this.unsynced && this.sync === 'each') fsyncSync(fd);
    } finally {
      this.unsynced = false;
      closeSync(fd);
    }
  }

  private openForAppend(): number {
    if (this.fd !== undefined) return this.fd;
    this.makeFolder();
    // 'a+': O_APPEND for the writes, readable for the torn-line check.
    const fd = openSync(this.path, 'a+', this.options.mode ?? 0o666);
    if (this.sync !== 'background') this.fd = fd;
    return fd;
  }

  private makeFolder(): void {
    mkdirSync(dirname(this.path), { recursive: true, ...(this.options.dirMode !== undefined ? { mode: this.options.dirMode } : {}) });
  }

  private flush(fd: number): void {
    if (!this.unsynced) return;
    fsyncSync(fd);
    this.unsynced = false;
  }

  private closeInBackground(fd: number): void {
    this.unsynced = false;
    fsync(fd, () => close(fd, () => undefined));
  }
}

/**
 * Calls back with every non-empty line from byte `start` up to `end` and its byte offset, reading in
 * 1 MiB chunks. A last piece without its newline is passed with `complete` false. Returns the
 * position reached (the file's size when `end` is left open).
 */
export function scanLines(
  fd: number,
  start: number,
  onLine: (line: string, offset: number, complete: boolean) => void,
  end = Infinity,
): number {
  const chunk = Buffer.alloc(1 << 20);
  let carry = Buffer.alloc(0);
  let pos = start;
  let lineStart = start;
  while (pos < end) {
    const n = readSync(fd, chunk, 0, Math.min(chunk.length, end - pos), pos);
    if (n <= 0) break;
    pos += n;
    const buf = carry.length ? Buffer.concat([carry, chunk.subarray(0, n)]) : chunk.subarray(0, n);
    let from = 0;
    for (let nl = buf.indexOf(10, from); nl >= 0; nl = buf.indexOf(10, from)) {
      if (nl > from) onLine(buf.toString('utf8', from, nl), lineStart, true);
      lineStart += nl - from + 1;
      from = nl + 1;
    }
    carry = Buffer.from(buf.subarray(from));
  }
  if (carry.length) onLine(carry.toString('utf8'), lineStart, false);
  return pos;
}

function* mapIterable<A, B>(items: Iterable<A>, f: (a: A) => B): Iterable<B> {
  for (const a of items) yield f(a);
}

function endsWithNewline(fd: number, size: number): boolean {
  const b = Buffer.alloc(1);
  readSync(fd, b, 0, 1, size - 1);
  return b[0] === 10;
}

/** The file at `path` when it is still the one `fd` has open, else undefined (replaced or deleted). */
function statIfSame(fd: number, path: string): Stats | undefined {
  const now = statSafe(path);
  const mine = fstatSync(fd);
  return now && now.ino === mine.ino && now.dev === mine.dev ? now : undefined;
}

function statSafe(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}
