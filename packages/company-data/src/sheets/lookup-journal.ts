import { unlinkSync } from 'node:fs';
import type { LookupResult } from '@company-data/core/schemas/company';
import { LineFile } from '../files/line-file';

/**
 * Answers of billed lookups, kept on disk until they are saved to the table, so a run killed between
 * a paid answer and the next table save can resume without paying again.
 * Format: JSON lines; the first line names the table and the options the answers are valid for,
 * every further line is {"k": key, "r": answer}. A torn last line (killed mid-write) is ignored.
 */
export class LookupJournal {
  /** Answers of an earlier, interrupted run (read at start); new answers go to the file only. */
  private readonly answers = new Map<string, LookupResult>();
  private readonly file: LineFile;
  /** The file on disk is valid for this scope and is appended to. */
  private reused = false;

  constructor(
    readonly path: string,
    private readonly scope: Record<string, unknown>,
  ) {
    this.file = new LineFile(path, { mode: 0o600, sync: 'manual' });
    const [head, ...rest] = this.file.read<{ k?: string; r?: LookupResult }>();
    // Answers given under other options (limit, lang) or for another table are not reused.
    if (!head || JSON.stringify(head) !== JSON.stringify(scope)) return;
    this.reused = true;
    for (const e of rest) if (e?.k && e.r) this.answers.set(e.k, e.r);
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
    // A fresh start replaces a journal of another scope (or none) with the scope line, on the first answer.
    if (!this.reused) this.file.rewrite([this.scope]);
    this.reused = true;
    this.file.appendText(lines);
  }

  /** Makes the answers written so far durable (called once per lookup request, not per answer). */
  sync(): void {
    this.file.flushAppended();
  }

  close(): void {
    this.sync();
    this.file.close();
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
