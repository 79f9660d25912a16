import type { SheetsRest } from './sheets-rest';

/**
 * Adds a sheet (tab) of this title to the spreadsheet unless it has one: true when it was added. One request,
 * the add itself, whose "already exists" answer means there is nothing to do (Google compares titles without
 * case, as this needs); sent twice it answers the same, so it is retried like a read.
 */
export async function addSheetIfMissing(rest: SheetsRest, title: string): Promise<boolean> {
  try {
    await rest.send({
      kind: 'write',
      method: 'POST',
      path: ':batchUpdate',
      body: JSON.stringify({ requests: [{ addSheet: { properties: { title } } }] }),
      idempotent: true,
    });
    return true;
  } catch (err) {
    // It is there (made by an earlier run, a person, or another writer just now): what was wanted.
    if (err instanceof Error && /already exists/i.test(err.message)) return false;
    // eslint-disable-next-line @n8n/community-nodes/require-node-api-error -- shared with the CLI; the node converts errors at its entry points
    throw err;
  }
}
