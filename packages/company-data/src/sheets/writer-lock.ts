import { createHash } from 'node:crypto';
import { chmodSync, closeSync, mkdirSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { withSheetLease } from '@company-data/core/sheets/lease/lease-locks';
import type { WriterLocks } from '@company-data/core/sheets/ports';
import { checkWritableTarget, pidAlive, removeStaleTemps, resolveTarget } from '../files/atomic-file';
import { systemClock } from '../transport/clock';

/**
 * Where locks live: one folder per machine, never the state folder. Two writers given different
 * state folders (or none) must still meet at the same lock. COMPANY_DATA_LOCK_DIR moves it (tests,
 * or a machine whose temp folder is private per session).
 */
export function lockDir(): string {
  return process.env.COMPANY_DATA_LOCK_DIR || join(tmpdir(), 'company-data-locks');
}

interface Owner {
  pid?: number;
  host?: string;
  since?: string;
  sheet?: string;
}

const sleepSync = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** A live owner, or undefined when the lock file is stale (its process gone from this host, or torn). */
function liveOwner(path: string): Owner | undefined {
  let owner: Owner = {};
  try {
    owner = JSON.parse(readFileSync(path, 'utf8')) as Owner;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    // Written in one call right after creation: a torn file is young. Give its writer a moment.
    try {
      if (Date.now() - statSync(path).mtimeMs < 2_000) return { sheet: 'unknown' };
    } catch {
      return undefined;
    }
  }
  if (!owner.pid) return undefined;
  // Another host's pid cannot be checked from here: it counts as live.
  return owner.host !== hostname() || pidAlive(owner.pid) ? owner : undefined;
}

function describe(owner: Owner): string {
  if (!owner.pid) return 'another company-data process (starting up)';
  return `another company-data process (pid ${owner.pid} on ${owner.host ?? 'an unknown host'}, since ${owner.since ?? 'an unknown time'})`;
}

/**
 * One exclusive lock file (no waiting): taken, or refused because a live process holds it. A lock
 * whose process is gone from this host is taken over.
 */
export class LockFile {
  constructor(readonly path: string) {}

  private create(what: string): boolean {
    try {
      // Readable by all: it names a pid and a host, nothing secret, and another user's writer must be able to say who holds it.
      const fd = openSync(this.path, 'wx', 0o644);
      writeSync(fd, JSON.stringify({ pid: process.pid, host: hostname(), since: new Date().toISOString(), sheet: what }));
      closeSync(fd);
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      return false;
    }
  }

  /** Takes the lock, or throws an error naming the process that holds it. */
  acquire(what: string): void {
    const owner = this.take(what);
    if (owner)
      throw new Error(`lock: ${what} is being written by ${describe(owner)}; stop it first (or, if it is gone, remove ${this.path})`);
  }

  /** Takes the lock; false when a live process holds it. */
  tryAcquire(what: string): boolean {
    return this.take(what) === undefined;
  }

  /** Undefined when taken; else the live owner. */
  private take(what: string): Owner | undefined {
    for (let attempt = 0; attempt < 50; attempt++) {
      if (this.create(what)) return undefined;
      const owner = liveOwner(this.path);
      if (owner) return owner;
      // Stale. Only the holder of the takeover file may remove it: without that, two newcomers could
      // both see the stale lock, and the second would delete the lock the first had just made.
      const takeover = new LockFile(`${this.path}.takeover`);
      if (takeover.create(what)) {
        try {
          if (!liveOwner(this.path)) unlinkSync(this.path);
        } catch {
          /* removed meanwhile */
        } finally {
          takeover.release();
        }
      } else if (!liveOwner(takeover.path)) {
        takeover.release(); // a takeover that crashed half way
      } else sleepSync(20);
    }
    throw new Error(`lock: could not take ${this.path}`);
  }

  release(): void {
    try {
      unlinkSync(this.path);
    } catch {
      /* already gone */
    }
  }
}

/** What a sheet is, however it is reached: the keys of its locks. */
export interface SheetIdentity {
  label: string;
  /** The file written, for file sheets (the target of any symlink). */
  file?: string;
  keys: string[];
}

/**
 * A file sheet is its resolved path (symlinks followed, so a link and its target are one sheet) and,
 * once it exists, its device and inode (so a second path to the same file, a hard link or another
 * mount, is one sheet too). A Google sheet is its spreadsheet id and sheet name (the table id).
 */
export function sheetIdentity(table: { label: string; id: string; file?: string }): SheetIdentity {
  if (!table.file) return { label: table.label, keys: [table.id] };
  const file = resolveTarget(table.file);
  const keys = [`path:${file}`];
  try {
    const st = statSync(file);
    keys.push(`inode:${st.dev}:${st.ino}`);
  } catch {
    /* not created yet: the path is its identity */
  }
  return { label: table.label, file, keys };
}

/**
 * One writer per sheet, whoever starts it: events-to-sheet, enrich, or either twice. A lock of a
 * process that is gone from this host is taken over; a live one is an error naming it.
 */
export class WriterLock {
  private readonly files: LockFile[];
  private held: LockFile[] = [];

  constructor(readonly identity: SheetIdentity) {
    const dir = lockDir();
    this.files = [...new Set(identity.keys)]
      .sort()
      .map((k) => new LockFile(join(dir, `${createHash('sha256').update(k).digest('hex').slice(0, 32)}.lock`)));
  }

  acquire(): void {
    const dir = lockDir();
    try {
      mkdirSync(dir);
      // Shared by every user of the machine, like /tmp itself: anyone may add, only the owner removes.
      chmodSync(dir, 0o1777);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    try {
      for (const f of this.files) {
        f.acquire(this.identity.label);
        this.held.push(f);
      }
    } catch (e) {
      this.release();
      throw e;
    }
  }

  release(): void {
    for (const f of this.held.splice(0)) f.release();
  }
}

/**
 * Takes the writer lock of a table about to be written (and of files that go with it, such as a
 * ledger), after checking that the file can be written
 * at all (so nothing is billed for a file that cannot take the answers) and clearing temp files that
 * a killed writer left beside it and beside each guarded file.
 */
export function lockSheet(table: { label: string; id: string; file?: string }, alsoGuards: readonly string[] = []): WriterLock {
  const identity = sheetIdentity(table);
  const guarded = alsoGuards.map(resolveTarget);
  identity.keys.push(...guarded.map((f) => `path:${f}`));
  if (identity.file) checkWritableTarget(identity.file);
  const lock = new WriterLock(identity);
  lock.acquire();
  // Temps of a save or compaction that crashed before its rename: the file itself was never touched.
  for (const f of [identity.file, ...guarded]) if (f) removeStaleTemps(f);
  return lock;
}

/** The writer-lock port (packages/core/sheets/ports.ts WriterLocks) with lock files: what the CLI gives the engine. */
export const fileLocks: WriterLocks = { acquire: (table, alsoGuards) => lockSheet(table, alsoGuards) };

/**
 * What the CLI gives the engine: lock files on this machine first (no request), then, for a Google sheet,
 * the lease the spreadsheet itself holds, which every door and machine sees (core sheets/lease).
 */
export const sheetLocks: WriterLocks = withSheetLease(fileLocks, {
  clock: systemClock,
  who: `company-data (pid ${process.pid} on ${hostname()})`,
  // A lease of a process of this host that has ended (killed) is free at once, as its lock file is.
  origin: `${hostname()}#${process.pid}`,
  gone: (origin) => {
    const at = origin.lastIndexOf('#');
    const pid = Number(origin.slice(at + 1));
    return at > 0 && origin.slice(0, at) === hostname() && Number.isInteger(pid) && pid > 0 && !pidAlive(pid);
  },
});
