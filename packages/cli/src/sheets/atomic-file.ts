/**
 * Moved to src/files/atomic-file.ts (the sandbox writes atomically too). Kept as a re-export only
 * while csv-table.ts and answer-cache.ts still import it from here; point them at ../files and delete.
 */
export * from '../files/atomic-file';
