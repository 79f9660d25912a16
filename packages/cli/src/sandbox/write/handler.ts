import type { EventService } from './service';

/** Answer of a write-side operation: the envelope's data, extra meta, and the status (200 unless set). */
export interface WriteResult {
  data: unknown;
  meta?: Record<string, unknown>;
  status?: number;
}

/** Handler of one operation, given the validated parameters and the account of the API key. */
export type WriteHandler = (svc: EventService, account: string, params: any) => WriteResult;
