import type { SheetsRest } from './sheets-rest';

export interface SheetTab {
  sheetId: number;
  title: string;
}

/** The tabs of a spreadsheet (spreadsheets.get, properties only). */
export async function listSheets(rest: SheetsRest): Promise<SheetTab[]> {
  const res = await rest.send<{ sheets?: { properties?: { sheetId?: number; title?: string } }[] }>({
    kind: 'read',
    method: 'GET',
    path: '',
    query: [['fields', 'sheets.properties(sheetId,title)']],
  });
  return (res.sheets ?? []).flatMap(({ properties: p }) =>
    typeof p?.sheetId === 'number' && typeof p.title === 'string' ? [{ sheetId: p.sheetId, title: p.title }] : [],
  );
}

/** The tab of that title, as Google matches titles: without regard to case (it refuses a second "Leads" beside "leads"). */
export async function sheetByTitle(rest: SheetsRest, title: string): Promise<SheetTab | undefined> {
  const lower = title.toLowerCase();
  return (await listSheets(rest)).find((s) => s.title.toLowerCase() === lower);
}
