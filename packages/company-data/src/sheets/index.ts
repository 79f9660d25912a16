/**
 * The Sheets sync module for library users: `require('company-data/sheets')`.
 * A separate entry, so the main entry does not carry the Google and Excel libraries.
 * The export list is deliberate (pinned by test/packages/public-api.test.ts): the table adapters, the enrich
 * engine, events to rows and their option types, the engine's typed errors; the client and data types come from the main entry.
 */
export { CsvTable, type CsvFormulas, type CsvTableOptions } from './csv-table';
export { XlsxTable, type XlsxTableOptions } from './xlsx-table';
export { GoogleSheetTable, type GoogleSheetTableOptions } from './google-table';
export { googleAuthClient, type GoogleAuthClient, type GoogleCredentials } from './google-auth';
export { MemoryTable, type CellWrite, type Table, type TableSnapshot } from './table';
export {
  enrichTable,
  reportOfFailedRun,
  defaultFields,
  summaryFields,
  type EnrichClient,
  type EnrichMode,
  type EnrichOptions,
  type EnrichProgress,
  type EnrichReport,
  type SummaryField,
} from './enrich';
export { PreflightError, type WriteCheck } from './preflight';
export {
  SheetsError,
  sheetsFields,
  wordSheetsError,
  type SheetsField,
  type SheetsFieldNames,
  type WordedSheetsError,
} from '@company-data/core/sheets/errors';
export { EventSheetWriter, EVENT_COLUMNS, type EventSheetOptions } from './events-to-rows';
export { pollEventsToSheet, startWebhookReceiver, type EventsClient, type PollOptions, type WebhookReceiverOptions } from './event-sources';
