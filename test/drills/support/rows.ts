/**
 * Key-column rows for the drills, from the sandbox dataset: the mix of the benchmarks (distinct codes and
 * VAT numbers, repeats written differently, invalid check digits) plus names and a too-short name.
 */
import { withRegistryCheckDigit } from '@company-data/core/validation';
import type { Dataset } from '../../../packages/company-data/src/sandbox';

export function drillRows(ds: Dataset, n: number): string[] {
  const companies = ds.companies;
  const rows: string[] = [];
  const distinct: string[] = [];
  for (let i = 0; rows.length < n; i++) {
    if (i % 20 === 7) {
      const c = withRegistryCheckDigit(String(1_200_000 + i));
      rows.push(c.slice(0, 7) + String((Number(c[7]) + 1) % 10));
    } else if (i % 5 === 3 && distinct.length) {
      const prev = distinct[(i * 7919) % distinct.length]!;
      rows.push(prev.startsWith('EE') ? prev.toLowerCase() : ` ${prev} `);
    } else if (i % 97 === 11) rows.push('ab');
    else {
      const c = companies[distinct.length % companies.length]!;
      const v =
        i % 31 === 0
          ? c.name
          : c.vat && i % 4 === 0
            ? c.vat
            : distinct.length % 13 === 5
              ? withRegistryCheckDigit(String(1_300_000 + i))
              : c.code;
      distinct.push(v);
      rows.push(v);
    }
  }
  return rows;
}

export function csvOf(rows: string[]): string {
  return 'registry code,owner\n' + rows.map((r, i) => `"${r}",owner ${i % 50}`).join('\n') + '\n';
}
