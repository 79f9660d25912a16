import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../../files/atomic-file';
import { LineFile } from '../../files/line-file';

/**
 * The data dir: state.json (lists, searches, webhooks, counters; replaced atomically by writeFileAtomic, src/files/atomic-file.ts)
 * and append-only JSON-lines logs (events.jsonl, deliveries.jsonl, changes.jsonl) where each line is one
 * record and, for deliveries, the last line of an id wins (files/line-file.ts: one write per line, a torn
 * last line skipped and ended before the next append).
 */
export class DataDir {
  private readonly logs = new Map<string, LineFile>();

  constructor(readonly dir: string) {
    fs.mkdirSync(dir, { recursive: true });
  }

  private file(name: string): string {
    return path.join(this.dir, name);
  }

  readJson<T>(name: string): T | undefined {
    try {
      return JSON.parse(fs.readFileSync(this.file(name), 'utf8')) as T;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new Error(`sandbox data dir: ${name} cannot be read (${(err as Error).message})`);
    }
  }

  writeJsonAtomic(name: string, value: unknown): void {
    writeFileAtomic(this.file(name), JSON.stringify(value));
  }

  /** One line per record, one write each (not fsync'd: the sandbox's logs are test data). */
  append(name: string, record: unknown): void {
    this.log(name).append(record);
  }

  readLines<T>(name: string): T[] {
    return this.log(name).read<T>();
  }

  /** Rewrites a log with only the given records (compaction at start-up). */
  rewriteLines(name: string, records: unknown[]): void {
    this.log(name).rewrite(records);
  }

  /** Closes the logs' files (they are opened again by the next append). */
  close(): void {
    for (const log of this.logs.values()) log.close();
  }

  private log(name: string): LineFile {
    let log = this.logs.get(name);
    if (!log) {
      log = new LineFile(this.file(name), { sync: 'manual' });
      this.logs.set(name, log);
    }
    return log;
  }
}
