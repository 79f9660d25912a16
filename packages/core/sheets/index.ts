/**
 * The Sheets engine, shared by the CLI and the n8n node: enrich, the Google Sheets table over the
 * core's Transport, and the events writer, behind the ports of ./ports.ts.
 */
export * from './errors';
export * from './ports';
export * from './table/table';
export * from './table/memory-table';
export * from './checks/preflight';
export * from './enrich/options';
export { enrichSheet } from './enrich/enrich';
export { findKeyColumn } from './enrich/layout';
export * from './google/options';
export { SheetsRestTable, MAX_REQUEST_BYTES } from './google/sheets-rest-table';
export { a1Sheet } from './google/a1';
export * from './events/options';
export { EventRowsWriter, EVENTS_PER_BATCH, LEDGER_COMPACT_ABOVE_BYTES, LEDGER_KEEP_DONE } from './events/events-writer';
export { EVENT_COLUMNS, eventRecords, readEvent, type EventRecord } from './events/event-records';
