import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../../files/atomic-file';

/**
 * The data dir: state.json (lists, searches, webhooks, counters; replaced atomically by writeFileAtomic, src/files/atomic-file.ts)
 * and append-only JSON-lines logs (events.jsonl, deliveries.jsonl, changes.jsonl) where each line is one
 * record and, for deliveries, the last line of an id wins. A torn last line (crash mid-write) is skipped.
 */
export class DataDir {
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

  append(name: string, record: unknown): void {
    fs.appendFileSync(this.file(name), `${JSON.stringify(record)}\n`);
  }

  readLines<T>(name: string): T[] {
    let text: string;
    try {
      text = fs.readFileSync(this.file(name), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const out: T[] = [];
    for (const line of text.split('\n')) {
      if (!line) continue;
      try {
        out.push(JSON.parse(line) as T);
      } catch {
        // Only a torn last line can be incomplete; earlier lines were written whole.
      }
    }
    return out;
  }

  /** Rewrites a log with only the given records (compaction at start-up). */
  rewriteLines(name: string, records: unknown[]): void {
    writeFileAtomic(this.file(name), (write) => records.forEach((r) => write(`${JSON.stringify(r)}\n`)));
  }
}
