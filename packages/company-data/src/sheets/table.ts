/** The table interface and its pieces live in the core (packages/core/sheets/table); the tool's tables import them from here. */
export * from '@company-data/core/sheets/table/table';
export * from '@company-data/core/sheets/table/pending-cells';
export * from '@company-data/core/sheets/table/memory-table';
