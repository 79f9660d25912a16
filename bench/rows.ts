import { withRegistryCheckDigit } from '@company-data/core/validation';

/**
 * The row mix every lookup benchmark uses: 75% distinct identifiers (codes of real sandbox companies,
 * every fourth one as its VAT number, then made-up valid codes), 20% repeats written differently
 * (spaces, lower-case "ee"), 5% invalid (wrong check digit). The .mjs benchmarks get it through load().
 */
export function makeRows(n: number, real: { code: string; vat: string | null }[]): string[] {
  const unique = Math.round(n * 0.75);
  const ids: string[] = [];
  for (let i = 0; ids.length < unique; i++) {
    const r = real[i];
    if (r) ids.push(r.vat && i % 4 === 0 ? r.vat : r.code);
    else ids.push(withRegistryCheckDigit(String(1_100_000 + i)));
  }
  const rows: string[] = [];
  let dup = 0;
  let bad = 0;
  let next = 0;
  for (let i = 0; i < n; i++) {
    if (i % 20 === 7 && bad < n * 0.05) {
      const c = withRegistryCheckDigit(String(1_200_000 + i));
      rows.push(c.slice(0, 7) + String((Number(c[7]) + 1) % 10));
      bad++;
    } else if (i % 5 === 3 && dup < n * 0.2 && next > 0) {
      const prev = ids[(i * 7919) % next]!;
      rows.push(prev.startsWith('EE') ? prev.toLowerCase() : ` ${prev} `);
      dup++;
    } else rows.push(ids[next++ % ids.length]!);
  }
  return rows;
}
