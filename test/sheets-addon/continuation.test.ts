/**
 * Six minutes are not a limit on the sheet's size: 12,000 rows on a slow service (40 s of virtual time per
 * request batch) take several executions. Each stops at its time budget with status continuing, saves what
 * it paid for and schedules its continuation on the add-on's one trigger; the continuations never buy an
 * answer twice (billed = unique) and the last one leaves no trigger behind.
 */
import { describe, expect, it } from 'vitest';
import { useAddonWorld } from './world';

const t = useAddonWorld({ companies: 12_000 });

describe('enrichSheet past six minutes (add-on)', () => {
  it('continues by itself until the sheet is done, billing each distinct query once', { timeout: 300_000 }, async () => {
    const codes = await t.codes(12_000);
    const w = await t.world({ fetchLatencyMs: 40_000 });
    w.spreadsheet.addSheet('Leads', [['Registry code', 'Owner'], ...codes.map((c, i) => [c, `rep ${i % 7}`])]);
    const before = await t.billed();
    let r = await w.run('enrichSheet', [{ sheetName: 'Leads' }]);
    expect(r.ok, r.error).toBe(true);
    expect(r.value).toMatchObject({ status: 'continuing' });
    expect(w.triggers()).toEqual([expect.objectContaining({ handler: 'onAddonTrigger' })]);
    const statuses = [(r.value as { status: string }).status];
    for (let i = 0; i < 20 && (r.value as { status: string }).status === 'continuing'; i++) {
      const next = await w.runNextTrigger();
      expect(next, 'a continuation is scheduled').toBeDefined();
      r = next!;
      expect(r.ok, r.error).toBe(true);
      statuses.push((r.value as { status: string }).status);
      // One trigger at most at any time (an add-on's limit).
      expect(w.triggers().length).toBeLessThanOrEqual(1);
    }
    expect(statuses.at(-1)).toBe('done');
    expect(statuses.length).toBeGreaterThanOrEqual(2);
    expect((await t.billed()) - before).toBe(12_000);
    expect(r.value).toMatchObject({ billedQueries: 12_000 });
    expect(w.triggers()).toEqual([]);
    const v = w.spreadsheet.values('Leads');
    const code = (v[0] as string[]).indexOf('company_data_match_registry_code');
    expect(v.slice(1).every((row) => String(row[code]) === String(row[0]))).toBe(true);
    // The hidden sheet of paid answers keeps nothing of this sheet once every answer is in the rows.
    const kept = w.spreadsheet.sheetNames().includes('company_data_paid_answers')
      ? w.spreadsheet.values('company_data_paid_answers').slice(1)
      : [];
    expect(kept.filter((row) => row.some((c) => c !== '' && c !== null))).toEqual([]);
  });
});
