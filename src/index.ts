/**
 * Main entry of the package (library use): the client with undici and the real clock as defaults,
 * the operation table, validators, schemas, errors, bulk lookup and webhook verification.
 */
import { CoreClient, type CoreClientOptions } from './core/client';
import type { Clock, Transport } from './core/transport';
import { systemClock } from './transport/clock';
import { UndiciTransport, type UndiciTransportOptions } from './transport/undici';

export interface CompanyDataClientOptions extends Omit<CoreClientOptions, 'transport' | 'clock'> {
  /** Default: an UndiciTransport owned by the client (closed by client.close()). */
  transport?: Transport;
  /** Default: systemClock. */
  clock?: Clock;
  /** Options of the default transport. */
  http?: UndiciTransportOptions;
}

/** The client for Node programs: new CompanyDataClient({ apiKey, baseUrl }). Call close() when done. */
export class CompanyDataClient extends CoreClient {
  private readonly ownedTransport?: UndiciTransport;

  constructor(opts: CompanyDataClientOptions) {
    const owned = opts.transport ? undefined : new UndiciTransport(opts.http);
    super({ ...opts, transport: opts.transport ?? owned!, clock: opts.clock ?? systemClock });
    this.ownedTransport = owned;
  }

  /** Closes the kept-alive connections of the default transport. */
  async close(): Promise<void> {
    await this.ownedTransport?.close();
  }
}

export { CoreClient };
export type {
  ApiResult,
  CallOptions,
  ClientNamespaces,
  CoreClientOptions,
  OperationMeta,
  OperationResult,
  RequestInfo,
  RetryInfo,
  SchemaMismatch,
} from './core/client';
export { buildRequest, validationErrorFromIssues } from './core/client';
export * from './core/errors';
export * from './core/transport';
export { RateLimiter, type RateLimiterOptions } from './core/limiter';
export { decideRetry, backoffDelay, defaultRetryOptions, type RetryOptions, type Failure, type RetryDecision } from './core/retry';
export * from './core/pagination';
export * from './core/bulk-lookup';
export * from './core/validation';
export * from './core/params';
// Both modules define one; the params one carries the user-facing message.
export { langSchema } from './core/params';
export * from './core/operation';
export { operationGroups, operations, getOperation, type OperationGroups } from './core/operations';
export * from './core/schemas/common';
export * from './core/schemas/company';
export * from './core/schemas/people';
export * from './core/schemas/financials';
export * from './core/schemas/risk';
export * from './core/schemas/records';
export * from './core/schemas/monitoring';
export * from './core/schemas/events';
export * from './webhooks';
export { UndiciTransport, type UndiciTransportOptions, toTransportError } from './transport/undici';
export { systemClock } from './transport/clock';
