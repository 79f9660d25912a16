import {
  accessSync,
  closeSync,
  constants,
  fchmodSync,
  fchownSync,
  fsyncSync,
  lstatSync,
  openSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
  type Stats,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { Readable } from 'node:stream';

/**
 * The file a write to `path` lands in: symlinks followed to their target (even a target not created
 * yet), the folder resolved. Writing the link itself would replace the user's link with a plain file.
 */
export function resolveTarget(path: string): string {
  let p = resolve(path);
  for (let hops = 0; hops < 40; hops++) {
    let st: Stats;
    try {
      st = lstatSync(p);
    } catch {
      break; // not there (yet): resolve its folder below
    }
    if (!st.isSymbolicLink()) break;
    p = resolve(dirname(p), readlinkSync(p));
  }
  try {
    return join(realpathSync(dirname(p)), basename(p));
  } catch {
    return p;
  }
}

/**
 * Refuses a target that cannot be written before anything is paid for: a missing folder, a folder
 * without write permission (the temp file goes there), or a read-only file. A read-only file is
 * a user's "do not change": replacing it would succeed (rename needs the folder only), so it is checked.
 */
export function checkWritableTarget(path: string): void {
  const file = resolveTarget(path);
  const dir = dirname(file);
  let dirStat: Stats;
  try {
    dirStat = statSync(dir);
  } catch {
    throw new Error(`file: the folder ${dir} does not exist; create it first`);
  }
  if (!dirStat.isDirectory()) throw new Error(`file: ${dir} is not a folder`);
  try {
    accessSync(dir, constants.W_OK);
  } catch {
    throw new Error(`file: the folder ${dir} is not writable, so ${basename(file)} cannot be saved there`);
  }
  let readOnly = false;
  try {
    accessSync(file, constants.W_OK);
    // root may write anything: a file with no write bit at all was still marked read-only by someone.
    readOnly = (statSync(file).mode & 0o222) === 0;
  } catch (e) {
    readOnly = (e as NodeJS.ErrnoException).code !== 'ENOENT';
  }
  if (readOnly) throw new Error(`file: ${file} is read-only; make it writable, or write elsewhere with --out`);
}

const tempPrefix = (path: string) => `.${basename(path)}.`;
const tempPathFor = (path: string) => join(dirname(path), `${tempPrefix(path)}${process.pid}.tmp`);

/** Temp files being written right now, removed if the process exits half way (an uncaught error, process.exit). */
const active = new Set<string>();
let exitHookSet = false;
function track(tmp: string): void {
  if (!exitHookSet) {
    exitHookSet = true;
    process.on('exit', () => {
      for (const t of active) {
        try {
          unlinkSync(t);
        } catch {
          /* already gone */
        }
      }
    });
  }
  active.add(tmp);
}

/** Whether a process of this host is running (EPERM: running, as another user). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the temp files a killed writer left beside `path` (named by its pid; a live process's are
 * left alone). Call with the writer lock held. Returns how many were removed.
 */
export function removeStaleTemps(path: string): number {
  const dir = dirname(path);
  const prefix = tempPrefix(path);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    const m = name.startsWith(prefix) ? /^(\d+)\.tmp$/.exec(name.slice(prefix.length)) : null;
    if (!m) continue;
    const tmp = join(dir, name);
    if (active.has(tmp) || (Number(m[1]) !== process.pid && pidAlive(Number(m[1])))) continue;
    try {
      unlinkSync(tmp);
      removed++;
    } catch {
      /* already gone */
    }
  }
  return removed;
}

/**
 * Opens the temp file for `target` with the target's mode and owner, so a 0600 file stays 0600 (the
 * umask would make it 0644) and a file of another owner keeps its owner where we are allowed to.
 */
function openTemp(target: string, mode: number | undefined): { tmp: string; fd: number } {
  const tmp = tempPathFor(target);
  let existing: Stats | undefined;
  try {
    existing = statSync(target);
  } catch {
    /* a new file */
  }
  // A mode asked for is the most the file may allow: an existing file keeps its own mode within it, so a
  // private file (a key, a token) is never left readable by others because an older copy was.
  const perm = existing ? existing.mode & 0o7777 & (mode ?? 0o7777) : (mode ?? 0o666);
  const fd = openSync(tmp, 'w', perm);
  track(tmp);
  try {
    if (existing) {
      fchmodSync(fd, perm);
      try {
        if (existing.uid !== process.getuid?.() || existing.gid !== process.getgid?.()) fchownSync(fd, existing.uid, existing.gid);
      } catch {
        /* only root may give a file away; the group may still be kept by the folder's setgid */
      }
    } else if (mode !== undefined) fchmodSync(fd, mode);
  } catch (e) {
    abandon(tmp, fd);
    throw e;
  }
  return { tmp, fd };
}

/** Gives up a temp file that could not be written in full. */
function abandon(tmp: string, fd: number): void {
  closeSync(fd);
  active.delete(tmp);
  try {
    unlinkSync(tmp);
  } catch {
    /* already gone */
  }
}

/** Makes a fully written temp file the new content of `path`. */
function commit(tmp: string, fd: number, path: string): void {
  try {
    fsyncSync(fd);
    closeSync(fd);
    renameSync(tmp, path);
  } catch (e) {
    active.delete(tmp);
    try {
      unlinkSync(tmp);
    } catch {
      /* already gone */
    }
    throw e;
  }
  active.delete(tmp);
  try {
    // The rename itself is durable only once the directory entry is synced.
    const dfd = openSync(dirname(path), 'r');
    fsyncSync(dfd);
    closeSync(dfd);
  } catch {
    /* some platforms cannot open directories; the rename is still atomic */
  }
}

/**
 * Replaces a file so readers see either the old or the new content, never a half-written one:
 * write a temp file in the same directory (rename is atomic only within one file system), fsync, rename.
 * A symlink is followed (its target is replaced, the link stays); mode and owner are kept, the mode
 * within `mode` when one is given (a new file gets `mode`).
 */
export function writeFileAtomic(
  path: string,
  data: string | Uint8Array | ((write: (chunk: string | Uint8Array) => void) => void),
  mode?: number,
): void {
  const target = resolveTarget(path);
  const { tmp, fd } = openTemp(target, mode);
  try {
    // A producer function writes piece by piece, so a large file never exists as one string in memory.
    if (typeof data === 'function')
      data((chunk) => void (typeof chunk === 'string' ? writeSync(fd, chunk, null, 'utf8') : writeSync(fd, chunk)));
    else writeSync(fd, typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
  } catch (err) {
    abandon(tmp, fd);
    throw err;
  }
  commit(tmp, fd, target);
}

/**
 * writeFileAtomic for content that arrives as a stream. beforeCommit runs once the temp file is
 * complete and before it replaces the target; what it throws abandons the temp file (the target is
 * left as it was): the place to refuse when the file changed on disk meanwhile.
 */
export async function writeStreamAtomic(path: string, source: NodeJS.ReadableStream, beforeCommit?: () => void): Promise<void> {
  const target = resolveTarget(path);
  const { tmp, fd } = openTemp(target, undefined);
  try {
    // Written with writeSync, not a WriteStream: a stream destroyed by a failing source closes the fd
    // itself (autoClose or not), and abandon() closing it again could close a descriptor reused meanwhile.
    // An old-style stream (the zip writer's) is wrapped to be read the same way.
    const chunks = (Symbol.asyncIterator in source ? source : new Readable().wrap(source)) as AsyncIterable<string | Uint8Array>;
    for await (const chunk of chunks) writeSync(fd, typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk);
    beforeCommit?.();
  } catch (err) {
    abandon(tmp, fd);
    throw err;
  }
  commit(tmp, fd, target);
}
