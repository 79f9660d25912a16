/**
 * Quotes a sheet title for A1 notation, always: 'My Sheet'!A1, 'Q1'!A1, 'Q3 ''hot'' leads'!A1.
 * Google reads an unquoted title that looks like a cell or column (Q1, Jan2025, AB) as cells of the
 * first sheet, and quoting a plain title is always allowed.
 */
export function a1Sheet(title: string): string {
  return `'${title.replace(/'/g, "''")}'`;
}

/** A cell as Google gives it unformatted (string, number, boolean), as text. */
export function cellText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'boolean') return v ? 'TRUE' : 'FALSE';
  return String(v);
}
