/**
 * enrichSheet in the Apps Script stand-in, on the sandbox over real HTTP: the same company_data_ columns
 * as `company-data enrich`, each distinct query billed once, a rerun bills 0, codes kept as text.
 */
import { describe, expect, it } from 'vitest';
import { useAddonWorld } from './world';

const t = useAddonWorld();

describe('enrichSheet (add-on)', () => {
  it('enriches the sheet, bills each distinct query once, and a rerun bills nothing', async () => {
    const codes = await t.codes(30);
    const w = await t.world();
    // Numbers as a person types them: the codes are numbers in the sheet, one duplicated.
    w.spreadsheet.addSheet('Leads', [['Registry code', 'Note'], ...codes.map((c, i) => [Number(c), `n${i}`]), [Number(codes[0]), 'again']]);
    const before = await t.billed();
    const r = await w.run('enrichSheet', [{ sheetName: 'Leads' }]);
    expect(r.ok, r.error).toBe(true);
    expect(r.value).toMatchObject({ status: 'done', billedQueries: 30, uniqueQueries: 30, matched: 31 });
    expect((await t.billed()) - before).toBe(30);
    const v = w.spreadsheet.values('Leads');
    const h = v[0] as string[];
    const code = h.indexOf('company_data_match_registry_code');
    expect(code).toBeGreaterThan(1);
    expect(h.indexOf('company_data_match_name')).toBeGreaterThan(1);
    // The person's columns are as they were; the codes written stay text, not numbers.
    expect(v.slice(1).map((r) => r[1])).toEqual([...codes.map((_, i) => `n${i}`), 'again']);
    expect(v.slice(1).map((r) => r[code])).toEqual([...codes, codes[0]]);
    expect(w.spreadsheet.numberFormats('Leads')[1]![code]).toBe('@');

    const again = await w.run('enrichSheet', [{ sheetName: 'Leads' }]);
    expect(again.value).toMatchObject({ status: 'done', billedQueries: 0 });
    expect((await t.billed()) - before).toBe(30);
    // No secret in any log.
    expect([...r.logs, ...again.logs].join('\n')).not.toContain(t.sb.apiKey);
  });
});
