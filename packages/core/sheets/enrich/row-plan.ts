import { alreadyLookedUp, readQuery, type QueryReading } from '../../lookup';
import type { EnrichMode } from './options';
import { priorOf, type Layout } from './layout';

/** What a row needs, by the one rule of the lookup pipeline (alreadyLookedUp). */
export type RowPlan =
  | { kind: 'none' }
  /** The key was emptied in a row enrich wrote: its data belongs to no key now. */
  | { kind: 'clear' }
  | { kind: 'keep' }
  | { kind: 'free'; status: 'invalid' | 'skipped'; reason: string }
  | { kind: 'send'; key: string }
  /** Enriched by the old version for the key it holds: moved to the company_data_ columns when its answer is free. */
  | { kind: 'migrate'; key: string; send: string };

/**
 * readQuery remembered per cell text: a large sheet repeats few keys many times, and both passes read
 * every row. Bounded (cleared at 50,000 texts), so a file of all-different keys does not grow it.
 */
export function memoisedReadQuery(): (q: string) => QueryReading {
  const memo = new Map<string, QueryReading>();
  return (q) => {
    let r = memo.get(q);
    if (r === undefined) {
      if (memo.size >= 50_000) memo.clear();
      memo.set(q, (r = readQuery(q)));
    }
    return r;
  };
}

/** `read` reads a key that is to be sent (pass 1 counts it there); `peek` one that is not. */
export function planRow(
  row: readonly string[],
  L: Layout,
  mode: EnrichMode,
  maxAgeMs: number | undefined,
  nowMs: number,
  read: (q: string) => QueryReading,
  peek: (q: string) => QueryReading,
): RowPlan {
  const q = row[L.keyCol] ?? '';
  const prior = priorOf(row, L);
  if (q.trim() === '') {
    // Old-version rows are left to the old columns; the tool's own cells of no key are emptied.
    const mine = ['atCol', 'statusCol', 'queryCol'] as const;
    return mine.some((c) => (row[L[c]] ?? '') !== '') ? { kind: 'clear' } : { kind: 'none' };
  }
  // Rows without a time were never looked up (invalid and too-short rows cost nothing to check again).
  if (mode !== 'all' && alreadyLookedUp(prior, q, maxAgeMs, nowMs)) {
    if (!prior?.legacy) return { kind: 'keep' };
    const k = peek(q);
    return k.status === 'send' ? { kind: 'migrate', key: k.key, send: k.send } : { kind: 'keep' };
  }
  const k = read(q);
  if (k.status === 'invalid' || k.status === 'skipped') return { kind: 'free', status: k.status, reason: k.reason };
  return { kind: 'send', key: k.key };
}

/** A time as Google and people read it: seconds, no milliseconds. */
export function isoSeconds(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
