import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { writeFileAtomic } from '../files/atomic-file';
import { join } from 'node:path';

export interface KeyUsage {
  period: string;
  requests: number;
  billed_lookup_queries: number;
}

interface Persisted {
  usage: Record<string, KeyUsage>;
}

/**
 * Usage per key (requests and billed lookup queries of the month), written to the data dir's usage.json.
 * The write side (lists, searches, webhooks) keeps its own state.json.
 */
export class SandboxState {
  private data: Persisted = { usage: {} };
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly dataDir?: string) {
    const f = this.file();
    if (f && existsSync(f)) this.data = { usage: {}, ...(JSON.parse(readFileSync(f, 'utf8')) as Partial<Persisted>) };
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
    writeFileAtomic(f, JSON.stringify(this.data));
  }

  private file(): string | null {
    // Not state.json: that file belongs to the write side (lists, searches, webhooks) in the same data dir.
    return this.dataDir ? join(this.dataDir, 'usage.json') : null;
  }
}
