import { PreflightError, writeAccessRefused } from '../checks/preflight';
import { leaseCells, readLeaseCells, type LeaseRecord, type LeaseSheets, type LeaseSlot } from '../lease/port';
import { a1Sheet } from './a1';
import { sheetByTitle } from './sheet-list';
import type { SheetsRest } from './sheets-rest';
import type { SheetsError } from '../errors';

/** Google's answer to a batch naming a sheet id no sheet has ("No grid with id: 123"). */
const NO_SUCH_SHEET = /no grid with id/i;

/**
 * The sheet lease's storage over Sheets REST v4 (lease/port.ts): a hidden sheet made, with its cells, by
 * one spreadsheets.batchUpdate (atomic, and refused when a sheet of the title exists), read by id then
 * cells, renewed by updateCells of its id and deleted by deleteSheet of its id (Google refuses both
 * once that sheet is gone, so of two contenders only one deletes it).
 */
export class SheetsRestLease implements LeaseSheets {
  constructor(
    private readonly rest: SheetsRest,
    private readonly random: () => number,
    /** The service account signing in, to name in a refusal. */
    private readonly account?: string,
  ) {}

  async create(name: string, record: LeaseRecord): Promise<string | undefined> {
    const cells = leaseCells(record);
    for (let attempt = 0; ; attempt++) {
      // Google's sheet ids are positive 31-bit integers: a random one is never that of a sheet deleted under a holder.
      const sheetId = 1 + Math.floor(this.random() * 0x7ffffffe);
      try {
        await this.batch([
          { addSheet: { properties: { sheetId, title: name, hidden: true, gridProperties: { rowCount: 1, columnCount: 1 } } } },
          updateCells(sheetId, cells),
        ]);
        return String(sheetId);
      } catch (err) {
        const message = (err as Error).message;
        // The id was taken (another sheet has it): another id. The title was taken: someone holds it, or
        // an earlier attempt of this request made it and its answer was lost; the caller reads which.
        if (/already exists/i.test(message) && /\bid\b/i.test(message) && attempt < 3) continue;
        if (/already exists/i.test(message)) return undefined;
        // Someone who can only view cannot take the lease: refused as the checks before paying refuse, before anything is read or sent.
        const { status, protectedCell } = err as SheetsError;
        // eslint-disable-next-line @n8n/community-nodes/require-node-api-error -- shared with the CLI; the node converts errors at its entry points
        if (status === 403 && !protectedCell) throw new PreflightError([writeAccessRefused(this.account)]);
        if (status === 400 && /above the limit of \d+ cells/i.test(message))
          // eslint-disable-next-line @n8n/community-nodes/require-node-api-error -- shared with the CLI; the node converts errors at its entry points
          throw new PreflightError([
            {
              check: 'cell limit',
              ok: false,
              text: "the spreadsheet holds all of Google's 10,000,000 cells, and the run's lock sheet needs one more: delete empty rows or columns in any of its sheets, or copy this sheet into a new spreadsheet",
            },
          ]);
        // eslint-disable-next-line @n8n/community-nodes/require-node-api-error -- shared with the CLI; the node converts errors at its entry points
        throw err;
      }
    }
  }

  async read(name: string): Promise<LeaseSlot | undefined> {
    // The id first, then the cells by title: cells of a sheet made since the id was read go with an id
    // that is gone, whose removal Google refuses (never the other way round).
    const sheet = await sheetByTitle(this.rest, name);
    if (!sheet) return undefined;
    try {
      const res = await this.rest.send<{ values?: unknown[][] }>({
        kind: 'read',
        method: 'GET',
        path: `/values/${encodeURIComponent(`${a1Sheet(sheet.title)}!A1`)}`,
        query: [['valueRenderOption', 'UNFORMATTED_VALUE']],
      });
      return { id: String(sheet.sheetId), record: readLeaseCells(res.values) };
    } catch (err) {
      // Deleted between the two reads: no lease now.
      if ((err as SheetsError).status === 400 && /unable to parse range/i.test((err as Error).message)) return undefined;
      // eslint-disable-next-line @n8n/community-nodes/require-node-api-error -- shared with the CLI; the node converts errors at its entry points
      throw err;
    }
  }

  async renew(id: string, record: LeaseRecord): Promise<boolean> {
    return await this.gone(() => this.batch([updateCells(Number(id), leaseCells(record))]));
  }

  async remove(id: string): Promise<boolean> {
    return await this.gone(() => this.batch([{ deleteSheet: { sheetId: Number(id) } }]));
  }

  /** True when the request went through, false when Google says the sheet of its id is not there. */
  private async gone(send: () => Promise<void>): Promise<boolean> {
    try {
      await send();
      return true;
    } catch (err) {
      if ((err as SheetsError).status === 400 && NO_SUCH_SHEET.test((err as Error).message)) return false;
      // eslint-disable-next-line @n8n/community-nodes/require-node-api-error -- shared with the CLI; the node converts errors at its entry points
      throw err;
    }
  }

  private async batch(requests: unknown[]): Promise<void> {
    // Each gives the same result sent twice (a second add is refused by its title, a second delete or
    // update by its id), so 5xx and broken connections are retried.
    await this.rest.send({ kind: 'write', method: 'POST', path: ':batchUpdate', body: JSON.stringify({ requests }), idempotent: true });
  }
}

/** The cells as text (stringValue, as RAW): no number or date is made of them. */
function updateCells(sheetId: number, cells: readonly (readonly string[])[]) {
  return {
    updateCells: {
      start: { sheetId, rowIndex: 0, columnIndex: 0 },
      rows: cells.map((r) => ({ values: r.map((v) => ({ userEnteredValue: { stringValue: v } })) })),
      fields: 'userEnteredValue',
    },
  };
}
