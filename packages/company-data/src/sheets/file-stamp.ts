import { statSync } from 'node:fs';

/**
 * What a file is now, cheaply: inode, size and modification time. A save refuses a file whose stamp
 * differs from the one taken when it was read: someone (Excel, a colleague, another program) changed it
 * while a run was working on it, and writing over it would lose their change or put answers on rows
 * that moved. 'none' when the file does not exist.
 */
export function fileStamp(path: string): string {
  try {
    const st = statSync(path);
    return `${st.ino}:${st.size}:${st.mtimeMs}`;
  } catch {
    return 'none';
  }
}

/** Throws when the file is no longer what `stamp` recorded. */
export function assertUnchanged(path: string, stamp: string | undefined): void {
  if (stamp !== undefined && fileStamp(path) !== stamp) {
    throw new Error(
      `file: ${path} was changed on disk while enrich ran; it was not overwritten (the answers paid for are kept: run again, they are free then)`,
    );
  }
}
