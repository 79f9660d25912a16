/**
 * Main entry of the tool package `company-data` (library use): the client with undici and the real clock as defaults,
 * the operation table, the error classes, pagination and bulk lookup, the validators users call, webhook signing and
 * verification, the transport and clock contracts, and the response data types.
 *
 * The export list is deliberate (pinned by test/packages/public-api.test.ts): what README.md's Library section and
 * docs/architecture.md promise, and no internals (zod schema objects, request builders, parameter rules). Adding or
 * removing a name is a change of the public API.
 */
import { CoreClient, type CoreClientOptions } from '@company-data/core/client';
import type { Clock, Transport } from '@company-data/core/transport';
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

// The client
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
} from '@company-data/core/client';
export { RateLimiter, type RateLimiterOptions } from '@company-data/core/limiter';
export type { RetryOptions } from '@company-data/core/retry';

// Errors
export {
  AuthenticationError,
  CompanyDataError,
  ConnectionError,
  NotFoundError,
  NotSentError,
  PlanRequiredError,
  RateLimitError,
  SchemaError,
  ServerError,
  TimeoutError,
  ValidationError,
  errorFromResponse,
  type CompanyDataErrorInit,
  type ErrorFromResponseOptions,
  type ValidationErrorInit,
} from '@company-data/core/errors';

// Transport and clock (for custom transports)
export {
  TransportError,
  type Clock,
  type Transport,
  type TransportErrorKind,
  type TransportRequest,
  type TransportResponse,
} from '@company-data/core/transport';
export { UndiciTransport, type UndiciTransportOptions } from './transport/undici';
export { systemClock } from './transport/clock';

// The operation table
export { operationGroups, operations, getOperation, type OperationGroups } from '@company-data/core/operations';
export type {
  AnyOperation,
  GroupKey,
  HttpMethod,
  OperationData,
  OperationInput,
  OperationParams,
  OperationSpec,
  RetryPolicy,
} from '@company-data/core/operation';
export type { IdKind, IncludeSection, ParamIn, ParamOption, ParamSpec, PickerKey } from '@company-data/core/params';

// Pagination
export {
  collectAll,
  iterateItems,
  type CollectAllOptions,
  type CollectAllResult,
  type CursorOperation,
  type CursorPage,
  type ItemOf,
  type Page,
} from '@company-data/core/pagination';

// Bulk lookup and the lookup vocabulary
export {
  bulkLookup,
  lookupInBatches,
  type BatchOptions,
  type BatchOutcome,
  type BulkLookupCounters,
  type BulkLookupItem,
  type BulkLookupOptions,
  type BulkLookupProgress,
  type BulkLookupResult,
  type LookupBatchesOptions,
  type LookupBatchesResult,
  type LookupCache,
  type LookupSender,
  type QuerySettled,
  type SendQuery,
} from '@company-data/core/bulk-lookup';
export {
  FINAL_LOOKUP_STATUSES,
  answerStatus,
  lookupKey,
  readQuery,
  sameQuery,
  statusText,
  type LookupKey,
  type LookupStatus,
  type QueryReading,
} from '@company-data/core/lookup';

// Validation (the same checks the client runs before a request)
export {
  classifyLookupQuery,
  isRegistryCode,
  lookupQueryProblem,
  normaliseVatNumber,
  personalCodeProblem,
  registryCodeProblem,
  vatChecksumOk,
  vatNumberProblem,
  type LookupQueryClass,
  type LookupQueryType,
} from '@company-data/core/validation';

// Webhooks
export {
  EVENT_ID_HEADER,
  MemoryDedupeStore,
  SIGNATURE_HEADER,
  SignatureVerificationError,
  TIMESTAMP_HEADER,
  checkWebhook,
  signWebhook,
  verifyWebhook,
  type DedupeStore,
  type MemoryDedupeStoreOptions,
  type SignatureFailure,
  type SignatureFailureReason,
  type SignWebhookInput,
  type VerifyWebhookInput,
  type WebhookCheck,
  type WebhookHeaders,
} from '@company-data/core/webhooks';

// Response data types
export type { ErrorBody, Lang, Meta, Pagination } from '@company-data/core/schemas/common';
export type { CompanyProfile, CompanySummary, LookupResult } from '@company-data/core/schemas/company';
export type { Holding, Party, PartyRole, Person, PersonSearchItem, Shareholder } from '@company-data/core/schemas/people';
export type { AnnualReport, AnnualReportListItem, Financials, QuarterlyTaxesItem } from '@company-data/core/schemas/financials';
export type { CourtCase, CreditScore, Enforcement, PaymentOrder, TaxDebt, TaxDeclarations } from '@company-data/core/schemas/risk';
export type { Announcement, ConsumerDispute, Domain, Permit, Property, Ruling, StatePayment } from '@company-data/core/schemas/records';
export type { Delivery, ListCompany, MonitoringList, SavedSearch, WebhookConfig } from '@company-data/core/schemas/monitoring';
export type {
  MonitoringCategory,
  MonitoringChangeEvent,
  SearchMatchesEvent,
  WebhookEvent,
  WebhookEventType,
  WebhookTestEvent,
} from '@company-data/core/schemas/events';
