import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import type { Lang } from '@company-data/core/schemas/common';
import type { LookupResult } from '@company-data/core/schemas/company';
import { LineFile, scanLines } from '../files/line-file';
import { LockFile } from './writer-lock';
import { safeJson } from './lookup-journal';

export const DEFAULT_MAX_AGE_DAYS = 30;
/** The cache file of one (limit, lang) is compacted when it grows past this. */
export const DEFAULT_MAX_CACHE_BYTES = 128 * 1024 * 1024;
const DAY_MS = 86_400_000;

export interface AnswerCacheOptions {
  /** The state folder; the cache lives in its answers/ sub-folder. */
  stateDir: string;
  /** Which service answered (its base URL): answers of different services are never mixed. */
  service: string;
  /** Matches per query and language the answers were asked with: answers of other options are never mixed in. */
  limit: number;
  lang?: Lang;
  /** Answers older than this many days are not reused (default 30). 0: nothing is reused; paid answers are still kept. */
  maxAgeDays?: number;
  /** Compaction threshold of the file, bytes (default 128 MiB). */
  maxBytes?: number;
  now?: () => number;
}

/** Where one line of the file sits. */
interface Entry {
  at: number;
  offset: number;
  length: number;
}

/** `{"k":<key>,"t":<ms>,"r":` — the key and time are read without parsing the answer. */
const LINE_HEAD = /^\{"k":("(?:[^"\\]|\\.)*"),"t":(\d+),"r":/;

/**
 * Every lookup answer paid for, kept in the state folder so a later run (another --out, another
 * sheet with the same companies) reuses it instead of paying again.
 *
 * One file per (service, limit, lang): JSON lines {"k": dedupe key, "t": ms when answered, "r": answer},
 * appended with O_APPEND in one write per request and fsync'd, like the resume journal, so a kill -9
 * loses at most the request in flight and a torn last line is ignored. Two processes append to the
 * same file safely: each write lands whole at the end. Reading keeps only the position of the newest
 * line of each key asked for, and reads the answer itself when it is used, so memory stays small.
 *
 * Bounded on disk: past maxBytes the file is compacted (newest answer per key, oldest dropped until
 * half the bound) under a lock file, written to a temp file and renamed over. An append that raced
 * the compaction is not lost: the compactor copies what was appended to the old file after it read
 * it, and a writer that finds the file renamed under it writes its lines again to the new one.
 */
export class AnswerCache {
  readonly path: string;
  /** Appends (fsync in the background) and compactions of the file. */
  private readonly file: LineFile;
  private readonly maxAgeMs: number;
  private readonly maxBytes: number;
  private readonly now: () => number;
  private readonly index = new Map<string, Entry>();
  /** The file the index points into (kept open: a compaction renames a new file over it). */
  private readFd: number | undefined;

  constructor(private readonly o: AnswerCacheOptions) {
    const days = o.maxAgeDays ?? DEFAULT_MAX_AGE_DAYS;
    if (!(days >= 0)) throw new Error('max-age: must be 0 or more days');
    this.maxAgeMs = days * DAY_MS;
    this.maxBytes = o.maxBytes ?? DEFAULT_MAX_CACHE_BYTES;
    this.now = o.now ?? Date.now;
    const service = createHash('sha256').update(o.service).digest('hex').slice(0, 12);
    this.path = join(o.stateDir, 'answers', `${service}-limit${o.limit}-${o.lang ?? 'default'}.jsonl`);
    this.file = new LineFile(this.path, { mode: 0o600, dirMode: 0o700, sync: 'background' });
  }

  /** Indexes the newest answer of each wanted key that is young enough to be reused. */
  load(wanted: ReadonlySet<string>): void {
    if (this.maxAgeMs === 0 || wanted.size === 0) return;
    let fd: number;
    try {
      fd = openSync(this.path, 'r');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw e;
    }
    // Loaded again for more keys (enrich sends while it reads): one descriptor reads every offset.
    if (this.readFd !== undefined) closeSync(this.readFd);
    this.readFd = fd;
    const oldest = this.now() - this.maxAgeMs;
    scanLines(fd, 0, (line, offset, complete) => {
      // A line without its newline yet (being written, or torn by a kill) is left out.
      if (!complete) return;
      const m = LINE_HEAD.exec(line);
      if (!m) return;
      const key = safeJson(m[1]!) as string | undefined;
      const at = Number(m[2]);
      if (typeof key !== 'string' || !wanted.has(key) || at < oldest) return;
      const seen = this.index.get(key);
      if (!seen || seen.at <= at) this.index.set(key, { at, offset, length: Buffer.byteLength(line) });
    });
  }

  /** Whether load() found a young enough answer for the key (read with get()). */
  has(key: string): boolean {
    return this.index.has(key);
  }

  /** The cached answer and when it was given, or undefined (also for a line damaged on disk). */
  get(key: string): { answer: LookupResult; at: number } | undefined {
    const e = this.index.get(key);
    if (!e || this.readFd === undefined) return undefined;
    const buf = Buffer.alloc(e.length);
    readSync(this.readFd, buf, 0, e.length, e.offset);
    const line = safeJson(buf.toString('utf8')) as { k?: string; r?: LookupResult } | undefined;
    return line?.k === key && line.r && typeof line.r === 'object' ? { answer: line.r, at: e.at } : undefined;
  }

  /** The lines add() writes for these answers, given now (the resume journal reads the same lines). */
  lines(entries: ReadonlyArray<{ key: string; answer: LookupResult }>): string {
    const t = this.now();
    return entries.map((e) => `${JSON.stringify({ k: e.key, t, r: e.answer })}\n`).join('');
  }

  /**
   * Keeps answers just paid for: one append for all of them (`text` from lines(), when already made).
   * The fsync runs in the background: a killed process loses nothing it wrote, only a power cut could.
   */
  add(entries: ReadonlyArray<{ key: string; answer: LookupResult }>, text = this.lines(entries)): void {
    if (!entries.length) return;
    // One O_APPEND write; a torn last line is ended first, a file a compaction replaced meanwhile is written again.
    const size = this.file.appendText(text);
    if (size > this.maxBytes) this.compact();
  }

  close(): void {
    if (this.readFd !== undefined) closeSync(this.readFd);
    this.readFd = undefined;
    this.index.clear();
  }

  /** Newest answer per key; oldest dropped until the file is at most half the bound. Skipped when another process compacts. */
  compact(): void {
    // A lock left by a process that died while compacting is taken over (its pid is gone).
    const lock = new LockFile(`${this.path}.compact.lock`);
    if (!lock.tryAcquire(`the answer cache ${this.path}`)) return;
    try {
      const fd = openSync(this.path, 'r');
      try {
        const size = fstatSync(fd).size;
        const newest = new Map<string, { at: number; line: string }>();
        scanLines(
          fd,
          0,
          (line, _offset, complete) => {
            if (!complete) return;
            const m = LINE_HEAD.exec(line);
            const key = m && (safeJson(m[1]!) as string | undefined);
            if (!m || typeof key !== 'string' || safeJson(line) === undefined) return;
            const at = Number(m[2]);
            const seen = newest.get(key);
            if (!seen || seen.at <= at) newest.set(key, { at, line });
          },
          size,
        );
        const kept = [...newest.values()].sort((a, b) => b.at - a.at);
        let bytes = 0;
        const lines: string[] = [];
        for (const e of kept) {
          bytes += Buffer.byteLength(e.line) + 1;
          if (bytes > this.maxBytes / 2) break;
          lines.push(e.line);
        }
        this.file.rewriteLines(lines.reverse());
        // Lines appended to the old file after it was read above: copied to the new one, fsync'd at once.
        const late: string[] = [];
        scanLines(fd, size, (line, _offset, complete) => void (complete && LINE_HEAD.test(line) && late.push(line)));
        if (late.length) {
          const again = new LineFile(this.path, { mode: 0o600, dirMode: 0o700, sync: 'each' });
          try {
            again.appendLines(late);
          } finally {
            again.close();
          }
        }
      } finally {
        closeSync(fd);
      }
    } finally {
      lock.release();
    }
  }
}
