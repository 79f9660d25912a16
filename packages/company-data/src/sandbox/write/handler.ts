import type { OperationIdOf, ParamsOf } from '../handlers/types';
import type { EventService } from './service';

/** Answer of a write-side operation: the envelope's data, extra meta, and the status (200 unless set). */
export interface WriteResult {
  data: unknown;
  meta?: Record<string, unknown>;
  status?: number;
}

/** Handler of one operation, given the validated parameters and the account of the API key. */
export type WriteHandler<Id extends OperationIdOf = OperationIdOf> = (
  svc: EventService,
  account: string,
  params: ParamsOf<Id>,
) => WriteResult;
/** Write-side handlers keyed by operation id, each typed by its operation's parameters. */
export type WriteHandlers = { [Id in OperationIdOf]?: WriteHandler<Id> };
