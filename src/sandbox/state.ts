import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface KeyUsage {
  period: string;
  requests: number;
  billed_lookup_queries: number;
}

interface Persisted {
  usage: Record<string, KeyUsage>;
  slots: Record<string, unknown>;
}

/**
 * The sandbox's mutable state. Modules (monitoring, saved searches, webhooks) keep their data in
 * named slots; everything here is plain JSON so it can be written to the data dir and read back.
 */
export class SandboxState {
  private data: Persisted = { usage: {}, slots: {} };
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly dataDir?: string) {
    const f = this.file();
    if (f && existsSync(f)) this.data = { usage: {}, slots: {}, ...(JSON.parse(readFileSync(f, 'utf8')) as Partial<Persisted>) };
  }

  /** A module's own state object, created by init on first use; mutate it, then call changed(). */
  slot<T>(name: string, init: () => T): T {
    if (!(name in this.data.slots)) this.data.slots[name] = init();
    return this.data.slots[name] as T;
  }

  usage(keyId: string, period: string): KeyUsage {
    let u = this.data.usage[keyId];
    if (!u || u.period !== period) this.data.usage[keyId] = u = { period, requests: 0, billed_lookup_queries: 0 };
    return u;
  }

  /** Schedules a write to the data dir (at most once a second). */
  changed(): void {
    if (!this.dataDir || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.save();
    }, 1000);
    this.timer.unref();
  }

  save(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const f = this.file();
    if (!f) return;
    mkdirSync(this.dataDir!, { recursive: true });
    writeFileSync(`${f}.tmp`, JSON.stringify(this.data));
    renameSync(`${f}.tmp`, f);
  }

  private file(): string | null {
    // Not state.json: that file belongs to the write side (lists, searches, webhooks) in the same data dir.
    return this.dataDir ? join(this.dataDir, 'usage.json') : null;
  }
}
