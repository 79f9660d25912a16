import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { LookupResult } from '../../../../src/core/schemas/company';

/**
 * Answers of billed lookups, kept on disk until they are saved to the table, so a run killed between
 * a paid answer and the next table save can resume without paying again.
 * Format: JSON lines; the first line names the table and the options the answers are valid for,
 * every further line is {"k": key, "r": answer}. A torn last line (killed mid-write) is ignored.
 */
export class LookupJournal {
  /** Answers of an earlier, interrupted run (read at start); new answers go to the file only. */
  private readonly answers = new Map<string, LookupResult>();
  private fd: number | undefined;
  private unsynced = 0;
  /** The file on disk is valid for this scope and is appended to. */
  private reused = false;

  constructor(
    readonly path: string,
    private readonly scope: Record<string, unknown>,
  ) {
    if (!existsSync(path)) return;
    const lines = readFileSync(path, 'utf8').split('\n');
    const head = safeJson(lines[0] ?? '');
    // Answers given under other options (limit, lang) or for another table are not reused.
    if (!head || JSON.stringify(head) !== JSON.stringify(scope)) return;
    this.reused = true;
    for (const line of lines.slice(1)) {
      const e = safeJson(line) as { k?: string; r?: LookupResult } | undefined;
      if (e?.k && e.r) this.answers.set(e.k, e.r);
    }
  }

  get(key: string): LookupResult | undefined {
    return this.answers.get(key);
  }

  /** Hands an answer over (to be written to the table) and forgets it in memory; the file keeps it. */
  take(key: string): LookupResult | undefined {
    const a = this.answers.get(key);
    this.answers.delete(key);
    return a;
  }

  /**
   * Records the answers of one request in one write; `lines` holds one JSON line {"k","r",...} per
   * answer. Only the file keeps them: this run hands its answers to the table directly.
   */
  add(lines: string): void {
    if (this.fd === undefined) this.open();
    writeSync(this.fd!, lines);
    this.unsynced++;
  }

  /** Makes the answers written so far durable (called once per lookup request, not per answer). */
  sync(): void {
    if (this.fd !== undefined && this.unsynced) {
      fsyncSync(this.fd);
      this.unsynced = 0;
    }
  }

  private open(): void {
    mkdirSync(dirname(this.path), { recursive: true });
    const fresh = !this.reused;
    this.fd = openSync(this.path, fresh ? 'w' : 'a', 0o600);
    if (fresh) writeSync(this.fd, JSON.stringify(this.scope) + '\n');
    this.reused = true;
  }

  close(): void {
    this.sync();
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  /** Everything is in the table now. */
  discard(): void {
    this.close();
    try {
      unlinkSync(this.path);
    } catch {
      /* never written */
    }
  }
}

/** The parsed line, or undefined for an empty or torn one. */
export function safeJson(line: string): unknown {
  try {
    return line ? JSON.parse(line) : undefined;
  } catch {
    return undefined;
  }
}
