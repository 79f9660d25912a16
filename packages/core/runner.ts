/**
 * The one operation runner: an operation and its input in, rows out. Every door reads an answer the same
 * way here (one call, a numbered page list, a cursor read, an embedded `{items,total}` section, how many
 * rows at most) and only words the rows for its users: the n8n nodes as output items, the MCP tools as a
 * page an assistant asks again for.
 */
import type { CallOptions, CoreClient } from './client';
import { validationErrorFromIssues } from './client';
import { isJsonObject } from './json';
import { inputSchema, type AnyOperation } from './operation';
import { ITERATION_PAGE_SIZE, iterateItems, type CursorOperation } from './pagination';
import type { Meta } from './schemas/common';

/** How an operation's list is read: numbered pages, a cursor (`after`), or not at all (one answer). */
export type Paging = 'pages' | 'cursor' | undefined;

export function pagingOf(op: AnyOperation): Paging {
  if (op.paged) return 'pages';
  if ('after' in op.params && 'limit' in op.params) return 'cursor';
  return undefined;
}

export interface RunOptions {
  /** A list's rows to read at most, across pages; unset: every row. */
  maxItems?: number;
  /**
   * Only the first page, of `limit` rows unless the input sets `limit`, with what to ask for next:
   * for a caller that pages itself (an assistant).
   */
  firstPage?: { limit: number };
  /** For an operation that is not a list: the client's call options. */
  call?: CallOptions;
}

/** Where a first page left off. */
export interface NextPage {
  hasMore: boolean;
  /** Numbered pages: the page read and its size. */
  page?: number;
  limit?: number;
  /** The q search's result cap was reached: more rows exist that no page will give. */
  capped?: boolean;
  /** Cursor reads: pass as `after` to continue. */
  after?: string | null;
}

export interface OperationRows {
  rows: unknown[];
  /** The answer was one object, not a list: `rows` holds it alone. */
  one: boolean;
  /** '' when the service gave none (or no request was needed). */
  requestId: string;
  /** All matching rows, where the service says. */
  total?: number;
  /** The meta of a single call's answer. */
  meta?: Meta;
  /** With `firstPage`: where reading stopped. */
  next?: NextPage;
}

/** Rows of one answer: a list, an embedded `{items,total}` section (operations with `select`), or one object. */
function rowsOfAnswer(op: AnyOperation, data: unknown): Pick<OperationRows, 'rows' | 'one' | 'total'> {
  if (op.select) {
    if (!isJsonObject(data) || !Array.isArray(data.items)) return { rows: [], one: false };
    return { rows: data.items, one: false, ...(typeof data.total === 'number' ? { total: data.total } : {}) };
  }
  if (Array.isArray(data)) return { rows: data, one: false };
  return { rows: [data], one: true };
}

async function firstPageOf(
  client: CoreClient,
  op: AnyOperation,
  paging: 'pages' | 'cursor',
  input: Record<string, unknown>,
  limit: number,
) {
  const withLimit = { ...input, limit: input.limit ?? limit };
  const none = { rows: [], one: false, requestId: '' };
  if (paging === 'pages') {
    const p = await firstOf(client.pages(op, withLimit as never));
    if (!p) return none;
    const next: NextPage = { hasMore: p.hasMore, page: p.page, limit: p.limit, ...(p.capped ? { capped: true } : {}) };
    return { rows: p.items, one: false, requestId: p.requestId, next, ...(p.total !== undefined ? { total: p.total } : {}) };
  }
  const p = await firstOf(client.cursorPages(op as CursorOperation, withLimit as never));
  if (!p) return none;
  return { rows: p.items, one: false, requestId: p.requestId, next: { hasMore: p.hasMore, after: p.cursor } };
}

/** The first page only: the generator is closed at once, so no second page is asked for. */
async function firstOf<T>(pages: AsyncGenerator<T>): Promise<T | undefined> {
  const first = await pages.next();
  await pages.return(undefined);
  return first.done ? undefined : first.value;
}

async function allRows(
  client: CoreClient,
  op: AnyOperation,
  paging: 'pages' | 'cursor',
  input: Record<string, unknown>,
  maxItems?: number,
) {
  // Checked here so a bad parameter names its field before the first page is asked for.
  const parsed = inputSchema(op).safeParse(input);
  if (!parsed.success) throw validationErrorFromIssues(parsed.error.issues, input);
  // Pages as large as the service allows, but no larger than what was asked for.
  const pageSize = Math.min(ITERATION_PAGE_SIZE, maxItems ?? ITERATION_PAGE_SIZE);
  const source =
    paging === 'pages'
      ? client.iterate(op, input as never, { maxItems })
      : iterateItems(client.cursorPages(op as CursorOperation, { ...input, limit: pageSize } as never), { maxItems });
  const rows: unknown[] = [];
  for await (const row of source as AsyncIterable<unknown>) rows.push(row);
  return { rows, one: false, requestId: '' };
}

/** Runs `op` with `input` into rows: one call, a first page, or every page up to `maxItems`. */
export async function runOperation(
  client: CoreClient,
  op: AnyOperation,
  input: Record<string, unknown>,
  opts: RunOptions = {},
): Promise<OperationRows> {
  const paging = pagingOf(op);
  if (paging && opts.firstPage) return firstPageOf(client, op, paging, input, opts.firstPage.limit);
  if (paging) return allRows(client, op, paging, input, opts.maxItems);
  const res = await client.call(op, input as never, opts.call);
  return { ...rowsOfAnswer(op, res.data), requestId: res.requestId, meta: res.meta };
}
