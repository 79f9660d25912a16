import type { OperationParams } from '@company-data/core/operation';
import type { OperationGroups } from '@company-data/core/operations';
import type { Lang } from '@company-data/core/schemas/common';
import type { Dataset } from '../dataset';
import type { KeyInfo } from '../http/keys';
import type { SandboxState } from '../state';

/** Ids of the operation table ("companies.search"), as operationId() spells them. */
export type OperationIdOf = { [G in keyof OperationGroups & string]: `${G}.${keyof OperationGroups[G] & string}` }[keyof OperationGroups &
  string];
type OperationById<Id> = Id extends `${infer G extends keyof OperationGroups}.${infer N}`
  ? N extends keyof OperationGroups[G]
    ? OperationGroups[G][N]
    : never
  : never;
/** The validated parameters of an operation, by id: what its input schema gives the handler. */
export type ParamsOf<Id extends OperationIdOf> = OperationParams<OperationById<Id>>;

export interface OpContext<P = unknown> {
  /** Validated parameters (the operation's input schema). */
  params: P;
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

export type OpHandler<Id extends OperationIdOf = OperationIdOf> = (ctx: OpContext<ParamsOf<Id>>) => OpResult | Promise<OpResult>;
/** Handlers keyed by operation id, each typed by its operation's parameters. */
export type OpHandlers = { [Id in OperationIdOf]?: OpHandler<Id> };

/** A handler as the server calls it: by the id it routed to, with what that operation's schema validated. */
export type RoutedHandler = (ctx: OpContext<unknown>) => OpResult | Promise<OpResult>;

/**
 * A table's handlers as the server calls them. The one place the typing is handed over: the server
 * validates a request with the schema of the very operation whose id picks the handler, so each
 * handler gets the parameters it was typed for.
 */
export function routedHandlers(table: OpHandlers): [string, RoutedHandler][] {
  return Object.entries(table) as [string, RoutedHandler][];
}

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
