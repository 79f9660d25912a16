/**
 * Moved to src/files/atomic-file.ts (the sandbox writes atomically too). Kept as a re-export only
 * while csv-table.ts still imports it from here; point it at ../files and delete.
 */
export * from '../files/atomic-file';
