/**
 * One cell of text per profile section, for spreadsheets: the figure a sales person looks at first.
 * Lists ({ items, total } or a bare array) become their total; unknown shapes become compact JSON.
 */
export function sectionText(section: string, value: unknown): string {
  if (value === null || value === undefined) return '';
  const v = value as Record<string, unknown>;
  if (section === 'credit_score') {
    if (v.rated === false) return `not rated (${String(v.reason ?? 'unknown')})`;
    return [v.rating, v.score !== undefined ? `(${String(v.score)})` : ''].filter(Boolean).join(' ');
  }
  if (section === 'tax_debt') return String(v.total ?? '');
  if (section === 'tax_declarations') {
    const missing = Array.isArray(v.missing) ? v.missing.length : 0;
    const late = Array.isArray(v.late) ? v.late.length : 0;
    return `${missing} missing, ${late} late`;
  }
  if (section === 'financials' && Array.isArray(v.years)) {
    const y = v.years[0] as { year?: number; figures?: { revenue?: number | null } } | undefined;
    return y ? `${y.year}: revenue ${y.figures?.revenue ?? 'n/a'}` : '';
  }
  if (Array.isArray(value)) return String(value.length);
  if (typeof v.total === 'number' && 'items' in v) return String(v.total);
  return JSON.stringify(value).slice(0, 500);
}
