import { EVENTS_PER_BATCH } from './events-writer';

/**
 * Reads `source` and hands its events to `store` in batches of EVENTS_PER_BATCH (one append each): a batch
 * once that many were read, the rest when the source has no more. When `signal` aborts, the batch in hand
 * is stored and the reading stops ('stopped'); `store` moves the cursor, so the next read resumes there.
 */
export async function storeInBatches<E>(
  source: AsyncIterable<E>,
  store: (batch: E[]) => Promise<void>,
  signal?: AbortSignal,
): Promise<'stopped' | 'caught up'> {
  let batch: E[] = [];
  for await (const event of source) {
    batch.push(event);
    if (batch.length < EVENTS_PER_BATCH && !signal?.aborted) continue;
    await store(batch);
    batch = [];
    if (signal?.aborted) return 'stopped';
  }
  if (batch.length) await store(batch);
  return 'caught up';
}
