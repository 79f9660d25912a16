import type { HeldLock } from '../ports';

/** The table methods that change the sheet: each waits for the lock's check first. */
const WRITES = new Set(['write', 'flush', 'append', 'create', 'rewrite']);

/**
 * The table as the writer holding `lock` sees it: every write first checks the lock is still held (a
 * lease renews when due, and throws once lost), so a writer whose lease was taken over stops before it
 * writes. A lock without a check (a file, a process) gives the table itself.
 */
export function guardedTable<T extends object>(table: T, lock: HeldLock | undefined): T {
  const check = lock?.check?.bind(lock);
  if (!check) return table;
  return new Proxy(table, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      const fn = value as (...args: unknown[]) => unknown;
      if (typeof prop === 'string' && WRITES.has(prop))
        return async (...args: unknown[]) => {
          await check();
          return await fn.apply(target, args);
        };
      return fn.bind(target);
    },
  });
}
