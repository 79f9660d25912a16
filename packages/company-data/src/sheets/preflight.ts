/** The checks before paying live in the core (packages/core/sheets/checks/preflight.ts). */
export * from '@company-data/core/sheets/checks/preflight';
