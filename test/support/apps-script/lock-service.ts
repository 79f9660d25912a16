/**
 * LockService over every running execution of the world. A document lock is one per document, a script
 * lock one for the script, a user lock one per user. A lock is the execution's (asking again while
 * holding it succeeds) and is released when the execution ends. Waiting costs the waiter virtual time:
 * it gets the lock at the holder's time of release, or gives up at its own deadline once the world's
 * clock has passed it (or when every running execution is waiting, so that time can only move there).
 */
import { MESSAGES, ScriptException } from './errors';
import type { Exec, LockTableLike } from './execution-context';
import { Facade } from './facade';

interface Waiter {
  scope: string;
  exec: Exec;
  deadline: number;
  resolve(ok: boolean): void;
}

export class LockTable implements LockTableLike {
  private holders = new Map<string, Exec>();
  private waiters: Waiter[] = [];
  constructor(
    private running: () => Iterable<Exec>,
    private clockNow: () => number,
    private setClock: (t: number) => void,
  ) {}

  holds(scope: string, exec: Exec): boolean {
    return this.holders.get(scope) === exec;
  }

  acquire(scope: string, exec: Exec, timeoutMs: number): Promise<boolean> {
    const holder = this.holders.get(scope);
    if (!holder || holder === exec) {
      this.holders.set(scope, exec);
      return Promise.resolve(true);
    }
    return new Promise<boolean>((resolve) => {
      this.waiters.push({ scope, exec, deadline: exec.now() + Math.max(0, timeoutMs), resolve });
      this.expire();
    });
  }

  release(scope: string, exec: Exec): void {
    if (this.holders.get(scope) !== exec) return;
    this.holders.delete(scope);
    const at = exec.now();
    for (;;) {
      const i = this.waiters.findIndex((w) => w.scope === scope);
      if (i < 0) return;
      const w = this.waiters.splice(i, 1)[0] as Waiter;
      if (Math.max(at, w.exec.now()) > w.deadline) {
        w.exec.reach(w.deadline);
        w.resolve(false);
        continue;
      }
      w.exec.reach(at);
      this.holders.set(scope, w.exec);
      w.resolve(true);
      return;
    }
  }

  /** An execution ended: its locks go to the next in line, its own waits end. */
  releaseAll(exec: Exec): void {
    for (const w of this.waiters.filter((x) => x.exec === exec)) {
      this.waiters.splice(this.waiters.indexOf(w), 1);
      w.resolve(false);
    }
    for (const [scope, h] of [...this.holders]) if (h === exec) this.release(scope, exec);
    this.expire();
  }

  /** Ends the waits whose deadline the world's clock has passed; when only waiters are left, moves the clock to the first deadline. */
  expire(): void {
    const running = [...this.running()];
    if (this.waiters.length && running.every((e) => this.waiters.some((w) => w.exec === e))) {
      const first = Math.min(...this.waiters.map((w) => w.deadline));
      if (first > this.clockNow()) this.setClock(first);
    }
    const now = this.clockNow();
    for (const w of this.waiters.filter((x) => x.deadline <= now)) {
      this.waiters.splice(this.waiters.indexOf(w), 1);
      w.exec.reach(w.deadline);
      w.resolve(false);
    }
  }
}

export class LockFacade extends Facade {
  readonly _type = 'Lock';
  constructor(
    private x: Exec,
    private scope: string,
  ) {
    super();
  }
  tryLock(timeoutInMillis: number): Promise<boolean> {
    if (typeof timeoutInMillis !== 'number') throw new ScriptException(MESSAGES.signature('Lock', 'tryLock', [timeoutInMillis]));
    return this.x.world.locks.acquire(this.scope, this.x, timeoutInMillis);
  }
  async waitLock(timeoutInMillis: number): Promise<void> {
    if (typeof timeoutInMillis !== 'number') throw new ScriptException(MESSAGES.signature('Lock', 'waitLock', [timeoutInMillis]));
    if (!(await this.x.world.locks.acquire(this.scope, this.x, timeoutInMillis))) throw new ScriptException(MESSAGES.lockTimeout);
  }
  releaseLock(): void {
    this.x.world.locks.release(this.scope, this.x);
  }
  hasLock(): boolean {
    return this.x.world.locks.holds(this.scope, this.x);
  }
}

export class LockServiceFacade extends Facade {
  readonly _type = 'LockService';
  constructor(private x: Exec) {
    super();
  }
  getDocumentLock(): LockFacade {
    return new LockFacade(this.x, 'document');
  }
  getScriptLock(): LockFacade {
    return new LockFacade(this.x, 'script');
  }
  getUserLock(): LockFacade {
    return new LockFacade(this.x, `user:${this.x.user}`);
  }
}
