import type { Lang } from '../../../../../src/core/schemas/common';
import type { Dataset } from '../dataset';
import type { KeyInfo } from '../http/keys';
import type { SandboxState } from '../state';

export interface OpContext {
  /** Validated parameters (the operation's input schema). */
  params: any;
  lang: Lang;
  key: KeyInfo | null;
  ds: Dataset;
  state: SandboxState;
  /** Sandbox time in ms (the sandbox clock). */
  now: () => number;
}

export interface OpResult {
  data: unknown;
  meta?: Record<string, unknown>;
  status?: number;
  /** Send data as the whole body, without the envelope (GET /openapi.json). */
  raw?: boolean;
}

export type OpHandler = (ctx: OpContext) => OpResult | Promise<OpResult>;

export function paged(rows: readonly unknown[], params: { page?: number; limit?: number }, total = rows.length, sliced = false): OpResult {
  const page = params.page ?? 1;
  const limit = params.limit ?? 25;
  const data = sliced ? rows : rows.slice((page - 1) * limit, page * limit);
  return { data, meta: { pagination: { page, limit, total, has_more: page * limit < total } } };
}

/** A page of ids (search hits) rendered after slicing, so only the rows sent are built. */
export function pagedView<T>(ids: readonly T[], params: { page?: number; limit?: number }, view: (id: T) => unknown): OpResult {
  const page = params.page ?? 1;
  const limit = params.limit ?? 25;
  return paged(ids.slice((page - 1) * limit, page * limit).map(view), params, ids.length, true);
}
