import type { AnyOperation, OperationData } from './operation';
import { operationId } from './operation';
import type { OperationGroups } from './operations';
import type { Meta, Pagination } from './schemas/common';
import { ValidationError } from './errors';

export type ItemOf<O> = OperationData<O> extends ReadonlyArray<infer T> ? T : never;

/** One call of the operation (the client's), with its answer's data and meta. */
type Caller = (input: Record<string, unknown>) => Promise<{ data: unknown; meta: Meta; requestId: string }>;

/** Page size when iterating: the largest the service allows, so the fewest requests. */
export const ITERATION_PAGE_SIZE = 100;

export interface Page<T> {
  items: T[];
  page: number;
  limit: number;
  /** meta.pagination.total: all matching rows (with q, possibly more than the service will return). */
  total?: number;
  /** Whether the iterator will read another page. */
  hasMore: boolean;
  /** The 200-result cap of q searches was reached while the service reports more matches. */
  capped: boolean;
  pagination?: Pagination;
  meta: Meta;
  requestId: string;
}

/**
 * Reads a paged list page by page. Stops at has_more=false, an empty page, the last page by total,
 * a short page when the service sends no pagination, or the result cap of q searches (200).
 */
export async function* pages(
  call: Caller,
  op: AnyOperation,
  input: Record<string, unknown>,
  defaultLimit = ITERATION_PAGE_SIZE,
): AsyncGenerator<Page<unknown>> {
  if (!op.paged) throw new TypeError(`${operationId(op)} is not a paged list; call it directly`);
  const limit = (input.limit as number | undefined) ?? defaultLimit;
  let page = (input.page as number | undefined) ?? 1;
  const q = input.q;
  const cap = op.qCap !== undefined && typeof q === 'string' && q.trim() !== '' ? op.qCap : undefined;
  for (;;) {
    const res = await call({ ...input, page, limit });
    const items: unknown[] = Array.isArray(res.data) ? res.data : [];
    const pg = res.meta.pagination;
    const total = typeof pg?.total === 'number' ? pg.total : undefined;
    const read = page * limit;
    let hasMore: boolean;
    if (items.length === 0) hasMore = false;
    else if (typeof pg?.has_more === 'boolean') hasMore = pg.has_more;
    else if (total !== undefined) hasMore = read < total;
    else hasMore = items.length >= limit;
    // At the cap the service may say has_more=false or keep saying true, and report the true total or
    // one capped at 200 (the sandbox does): reaching the cap is reported either way, since more may exist.
    const capped = cap !== undefined && items.length > 0 && read >= cap && (hasMore || total === undefined || total >= cap);
    if (capped) hasMore = false;
    yield { items, page, limit, total, hasMore, capped, pagination: pg, meta: res.meta, requestId: res.requestId };
    if (!hasMore) return;
    page++;
  }
}

/** Rows of pages (paged lists or cursor pages), stopping after maxItems. */
export async function* iterateItems<T>(source: AsyncIterable<{ items: T[] }>, opts: { maxItems?: number } = {}): AsyncGenerator<T> {
  const max = opts.maxItems ?? Infinity;
  if (max <= 0) return;
  let n = 0;
  for await (const p of source) {
    for (const item of p.items) {
      yield item;
      if (++n >= max) return;
    }
  }
}

export interface CollectAllOptions {
  /** Required: the most rows to read. Guards against reading 100 000 rows by accident. */
  max: number;
}

export interface CollectAllResult<T> {
  items: T[];
  /** true when more rows exist than `max`: items holds the first `max`. */
  truncated: boolean;
  /** true when a q search hit the service's 200-result cap: refine the search to see the rest. */
  capped: boolean;
  /** All matching rows according to the service, when it said. */
  total?: number;
}

/**
 * Decision: collectAll never throws because of size. It returns the first `max` rows and says
 * truncated=true when more exist, so a caller keeps what was paid for and decides what to do.
 */
export async function collectAll<T>(source: AsyncIterable<Page<T>>, opts: CollectAllOptions): Promise<CollectAllResult<T>> {
  const max = opts?.max;
  if (typeof max !== 'number' || !Number.isInteger(max) || max < 1) {
    throw new ValidationError({ field: 'max', rule: 'is required: a whole number of 1 or more (the most rows to read)' });
  }
  const items: T[] = [];
  let truncated = false;
  let capped = false;
  let total: number | undefined;
  for await (const p of source) {
    total = p.total ?? total;
    capped = p.capped;
    const room = max - items.length;
    if (p.items.length > room) {
      items.push(...p.items.slice(0, room));
      truncated = true;
      break;
    }
    items.push(...p.items);
    if (items.length === max) {
      truncated = p.hasMore;
      break;
    }
  }
  return { items, truncated, capped, total };
}

/* ---- Cursor reading (monitoring events, saved-search matches) ---- */

export type CursorOperation = OperationGroups['monitoring']['events'] | OperationGroups['searches']['matches'];

export interface CursorPage<T> {
  items: T[];
  /** Pass as `after` to continue from here; store it between runs. Null only when nothing was ever read. */
  cursor: string | null;
  hasMore: boolean;
  meta: Meta;
  requestId: string;
}

function lastId(items: unknown[]): string | undefined {
  const last = items[items.length - 1] as { id?: unknown } | undefined;
  return typeof last?.id === 'string' ? last.id : undefined;
}

/**
 * Follows meta.next_cursor while meta.has_more is true. Without has_more, a full page means more.
 * Stops on an empty page or a cursor that does not move (a guard against a loop).
 */
export async function* cursorPages(
  call: Caller,
  input: Record<string, unknown>,
  opts: { maxPages?: number } = {},
): AsyncGenerator<CursorPage<unknown>> {
  const limit = (input.limit as number | undefined) ?? ITERATION_PAGE_SIZE;
  let after = input.after as string | undefined;
  for (let n = 1; ; n++) {
    const res = await call({ ...input, after, limit });
    const items: unknown[] = Array.isArray(res.data) ? res.data : [];
    const next = typeof res.meta.next_cursor === 'string' && res.meta.next_cursor !== '' ? res.meta.next_cursor : undefined;
    const cursor = next ?? lastId(items) ?? after ?? null;
    const more = typeof res.meta.has_more === 'boolean' ? res.meta.has_more : items.length >= limit;
    const hasMore = more && items.length > 0 && cursor !== null && cursor !== after && (opts.maxPages === undefined || n < opts.maxPages);
    yield { items, cursor, hasMore, meta: res.meta, requestId: res.requestId };
    if (!hasMore) return;
    after = cursor!;
  }
}
