import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The folder that keeps what runs remember (journals, answers, ledgers, the signed-in account): COMPANY_DATA_STATE_DIR, else ~/.company-data/state. */
export function defaultStateDir(): string {
  return process.env.COMPANY_DATA_STATE_DIR || join(homedir(), '.company-data', 'state');
}

/**
 * One table's file in the state folder, `<kind>-<16 hex>.jsonl`: named by a hash of the table's id, which
 * holds a path or a spreadsheet id and sheet title, never safe as a file name.
 */
export function tableStateFile(stateDir: string, kind: 'enrich' | 'events' | 'watch', tableId: string): string {
  return join(stateDir, `${kind}-${createHash('sha256').update(tableId).digest('hex').slice(0, 16)}.jsonl`);
}
