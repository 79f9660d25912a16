/**
 * The CLI's and library's enrich: the core's engine (packages/core/sheets/enrich) with the tool's
 * adapters for its ports: the system clock, the resume journal and answer cache files of the state
 * folder, and lock files.
 */
import { enrichSheet } from '@company-data/core/sheets/enrich/enrich';
import type { EnrichReport, SheetsEnrichOptions } from '@company-data/core/sheets/enrich/options';
import { sheetLocks } from './writer-lock';
import { systemClock } from '../transport/clock';
import { PaidAnswers } from './paid-answers';
import { defaultStateDir } from './state-dir';

export { defaultFields, reportOfFailedRun, summaryFields } from '@company-data/core/sheets/enrich/options';
export type { EnrichClient, EnrichMode, EnrichProgress, EnrichReport, SummaryField } from '@company-data/core/sheets/enrich/options';
export { findKeyColumn } from '@company-data/core/sheets/enrich/layout';
export { enrichSheet };

/** The CLI's and library's options: the core's, with the state folder instead of the ports. */
export interface EnrichOptions extends Omit<SheetsEnrichOptions, 'ports'> {
  /** Folder for the resume journal and the answer cache (default ~/.company-data/state). */
  stateDir?: string;
}

/** Enriches a table (see enrichSheet), keeping what is paid for in the state folder. */
export async function enrichTable(opts: EnrichOptions): Promise<EnrichReport> {
  const { stateDir = defaultStateDir(), ...rest } = opts;
  return enrichSheet({
    ...rest,
    ports: { clock: systemClock, answers: (scope) => new PaidAnswers({ ...scope, stateDir }), locks: sheetLocks },
  });
}
