/**
 * --spreadsheet takes the spreadsheet's ID or its address as the browser shows it
 * (https://docs.google.com/spreadsheets/d/<ID>/edit#gid=0): people copy the address bar.
 */
export function spreadsheetIdOf(value: string): string {
  const v = value.trim();
  const fromUrl = /^https?:\/\/docs\.google\.com\/spreadsheets\/(?:u\/\d+\/)?d\/([A-Za-z0-9_-]+)/i.exec(v);
  if (fromUrl) return fromUrl[1]!;
  if (/^[A-Za-z0-9_-]+$/.test(v)) return v;
  throw new Error(
    `spreadsheet: "${v.length > 80 ? `${v.slice(0, 80)}…` : v}" is neither a spreadsheet ID nor a Google Sheets address (https://docs.google.com/spreadsheets/d/ID/…)`,
  );
}
