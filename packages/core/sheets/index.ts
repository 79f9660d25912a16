/**
 * The Sheets engine, shared by the CLI and the n8n node: enrich, the Google Sheets table over the
 * core's Transport, and the events writer, behind the ports of ./ports.ts.
 */
export * from './ports';
export * from './table/table';
export * from './table/memory-table';
export * from './checks/preflight';
export * from './enrich/options';
export * from './google/options';
export * from './events/options';
