import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * One writer per spreadsheet: an exclusive lock file holding the owner's pid and host. A lock left by
 * a process that is gone (same host, pid not running) is taken over; a live one is an error.
 */
export class WriterLock {
  private held = false;
  constructor(readonly path: string) {}

  acquire(what: string): void {
    mkdirSync(dirname(this.path), { recursive: true });
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const fd = openSync(this.path, 'wx', 0o600);
        writeSync(fd, JSON.stringify({ pid: process.pid, host: hostname(), since: new Date().toISOString() }));
        closeSync(fd);
        this.held = true;
        return;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
        let owner: { pid?: number; host?: string } = {};
        try {
          owner = JSON.parse(readFileSync(this.path, 'utf8')) as typeof owner;
        } catch {
          /* torn lock file: treat as stale */
        }
        const stale = !owner.pid || (owner.host === hostname() && !alive(owner.pid));
        if (!stale) throw new Error(`lock: another writer (pid ${owner.pid} on ${owner.host}) is writing to ${what}; stop it first, or remove ${this.path} if it is gone`);
        try {
          unlinkSync(this.path);
        } catch {
          /* someone else removed it first */
        }
      }
    }
    throw new Error(`lock: could not take ${this.path}`);
  }

  release(): void {
    if (!this.held) return;
    this.held = false;
    try {
      unlinkSync(this.path);
    } catch {
      /* already gone */
    }
  }
}
