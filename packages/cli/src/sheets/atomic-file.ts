import { closeSync, createWriteStream, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { basename, dirname, join } from 'node:path';

function tempPathFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
}

/** Gives up a temp file that could not be written in full. */
function abandon(tmp: string, fd: number): void {
  closeSync(fd);
  try {
    unlinkSync(tmp);
  } catch {
    /* already gone */
  }
}

/** Makes a fully written temp file the new content of `path`. */
function commit(tmp: string, fd: number, path: string): void {
  fsyncSync(fd);
  closeSync(fd);
  renameSync(tmp, path);
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
 */
export function writeFileAtomic(path: string, data: string | Uint8Array | ((write: (chunk: string) => void) => void), mode?: number): void {
  const tmp = tempPathFor(path);
  const fd = openSync(tmp, 'w', mode);
  try {
    // A producer function writes piece by piece, so a large file never exists as one string in memory.
    if (typeof data === 'function') data((chunk) => void writeSync(fd, chunk, null, 'utf8'));
    else writeSync(fd, typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
  } catch (err) {
    abandon(tmp, fd);
    throw err;
  }
  commit(tmp, fd, path);
}

/** writeFileAtomic for content that arrives as a stream. */
export async function writeStreamAtomic(path: string, source: NodeJS.ReadableStream): Promise<void> {
  const tmp = tempPathFor(path);
  const fd = openSync(tmp, 'w');
  try {
    await pipeline(source, createWriteStream('', { fd, autoClose: false }));
  } catch (err) {
    abandon(tmp, fd);
    throw err;
  }
  commit(tmp, fd, path);
}
