import { closeSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * Replaces a file so readers see either the old or the new content, never a half-written one:
 * write a temp file in the same directory (rename is atomic only within one file system), fsync, rename.
 */
export function writeFileAtomic(path: string, data: string | Uint8Array | ((write: (chunk: string) => void) => void), mode?: number): void {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  const fd = openSync(tmp, 'w', mode);
  try {
    // A producer function writes piece by piece, so a large file never exists as one string in memory.
    if (typeof data === 'function') data((chunk) => void writeSync(fd, chunk, null, 'utf8'));
    else writeSync(fd, typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    try {
      unlinkSync(tmp);
    } catch {
      /* already gone */
    }
    throw err;
  }
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
