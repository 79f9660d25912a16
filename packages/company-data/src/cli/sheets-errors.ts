import { SheetsError, wordSheetsError, type SheetsFieldNames } from '@company-data/core/sheets';

/** The flag each setting of the Sheets engine is given with. */
export const CLI_FLAGS: SheetsFieldNames = {
  spreadsheet: '--spreadsheet',
  sheet: '--sheet',
  column: '--column',
  fields: '--fields',
  maxBilledQueries: '--max-billed-queries',
  eventsSheet: '--events-sheet',
};

/**
 * What the CLI prints for an error that ends a command, the CLI's one mapping of the Sheets engine's errors:
 * the flag's name, the rule, then what to do ("column: no header "x" in the first row (headers: …). Set
 * --column to …"). Other errors are worded where they are made, in the CLI's words already.
 */
export function inCliWords(err: unknown): string {
  if (!(err instanceof SheetsError)) return err instanceof Error ? err.message : String(err);
  const { rule, hint } = wordSheetsError(err, CLI_FLAGS);
  // Named as the CLI's other errors name a flag ("file: …", "max-age: …"): without its dashes.
  const head = err.field === undefined ? rule : `${CLI_FLAGS[err.field].replace(/^--/, '')}: ${rule}`;
  return hint ? `${head}. ${hint}` : head;
}
