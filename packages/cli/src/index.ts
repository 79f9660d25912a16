/**
 * Main entry of the tool package `company-data` (library use): the client with undici and the real clock as defaults,
 * the operation table, validators, schemas, errors, bulk lookup and webhook verification.
 */
import { CoreClient, type CoreClientOptions } from '../../../src/core/client';
import type { Clock, Transport } from '../../../src/core/transport';
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
    super({ userAgent: 'company-data', ...opts, transport: opts.transport ?? owned!, clock: opts.clock ?? systemClock });
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
} from '../../../src/core/client';
export { buildRequest, validationErrorFromIssues } from '../../../src/core/client';
export * from '../../../src/core/errors';
export * from '../../../src/core/transport';
export { RateLimiter, type RateLimiterOptions } from '../../../src/core/limiter';
export { decideRetry, backoffDelay, defaultRetryOptions, type RetryOptions, type Failure, type RetryDecision } from '../../../src/core/retry';
export * from '../../../src/core/pagination';
export * from '../../../src/core/bulk-lookup';
export * from '../../../src/core/lookup';
export * from '../../../src/core/validation';
export * from '../../../src/core/params';
// Both modules define one; the params one carries the user-facing message.
export { langSchema } from '../../../src/core/params';
export * from '../../../src/core/operation';
export { operationGroups, operations, getOperation, type OperationGroups } from '../../../src/core/operations';
export * from '../../../src/core/schemas/common';
export * from '../../../src/core/schemas/company';
export * from '../../../src/core/schemas/people';
export * from '../../../src/core/schemas/financials';
export * from '../../../src/core/schemas/risk';
export * from '../../../src/core/schemas/records';
export * from '../../../src/core/schemas/monitoring';
export * from '../../../src/core/schemas/events';
export * from '../../../src/webhooks';
export { UndiciTransport, type UndiciTransportOptions, toTransportError } from './transport/undici';
export { systemClock } from './transport/clock';
