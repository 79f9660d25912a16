/**
 * A shared sheet while the add-on writes: a colleague inserts and sorts rows during the run, and two runs
 * start at once (two people, or a click during the scheduled run). Every row ends with its own key's
 * company, the people's columns untouched, and each distinct query billed once.
 */
import { describe, expect, it } from 'vitest';
import type { AppsScriptWorld } from '../support/apps-script';
import { useAddonWorld } from './world';

const t = useAddonWorld();

/** Each data row's key, note and the registry code our columns hold. */
function rows(w: AppsScriptWorld) {
  const v = w.spreadsheet.values('Leads').map((r) => r.map((x) => (x === null || x === undefined ? '' : String(x))));
  const code = v[0]!.indexOf('company_data_match_registry_code');
  return v.slice(1).map((r) => ({ key: r[0]!, note: r[1]!, code: code >= 0 ? (r[code] ?? '') : '' }));
}

describe('enrichSheet on a sheet others edit (add-on)', () => {
  it('follows the rows when a colleague inserts and sorts during the run', async () => {
    const codes = await t.codes(1200);
    let inserted = false;
    let sorted = false;
    let batches = 0;
    let w!: AppsScriptWorld;
    w = await t.world({
      fetchLatencyMs: 300,
      onServiceCall: (c) => {
        // Mid-run, between lookups: a row inserted near the top.
        if (c.method === 'fetchAll') batches = c.count;
        if (batches === 1 && !inserted) {
          inserted = true;
          w.spreadsheet.insertRows('Leads', 3, [[codes[1199], 'inserted by a colleague']]);
        }
        // Later, just before a write (a save's, or the paid answers'): the sheet sorted by the note, descending.
        if (c.method === 'setValues' && batches >= 2 && !sorted) {
          sorted = true;
          w.spreadsheet.sortBy('Leads', 2, false, 1);
        }
      },
    });
    w.spreadsheet.addSheet('Leads', [['Registry code', 'Note'], ...codes.slice(0, 1199).map((c, i) => [c, `note ${c}`])]);
    const before = await t.billed();
    const r = await w.run('enrichSheet', [{ sheetName: 'Leads' }]);
    expect(r.ok, r.error).toBe(true);
    expect(inserted && sorted).toBe(true);
    expect(r.value).toMatchObject({ status: 'done' });
    const billed = (await t.billed()) - before;
    expect(billed).toBe((r.value as { billedQueries: number }).billedQueries);
    const got = rows(w);
    expect(got).toHaveLength(1200);
    for (const row of got) {
      // A row's note is still its own (the people's columns are never written) ...
      if (row.note !== 'inserted by a colleague') expect(row.note).toBe(`note ${row.key}`);
      // ... and our columns hold its own key's company, or nothing yet (left for the next run).
      if (row.code) expect(row.code).toBe(row.key);
    }
    // The next run fills what was left alone and bills only those.
    const again = await w.run('enrichSheet', [{ sheetName: 'Leads' }]);
    expect(again.value).toMatchObject({ status: 'done' });
    expect(rows(w).every((row) => row.code === row.key)).toBe(true);
    expect((await t.billed()) - before).toBe(1200);
  });

  it('two runs at once never bill a query twice: the second waits or says another run is busy', async () => {
    const codes = await t.codes(300, 5);
    const w = await t.world({ fetchLatencyMs: 300 });
    w.spreadsheet.addSheet('Leads', [['Registry code', 'Note'], ...codes.map((c) => [c, `note ${c}`])]);
    const other = 'colleague@example.com';
    w.spreadsheet.share(other, 'edit');
    await w.run('saveSettings', [{ apiKey: t.sb.apiKey, baseUrl: t.sb.url }], { user: other });
    const before = await t.billed();
    const [a, b] = await Promise.all([
      w.run('enrichSheet', [{ sheetName: 'Leads' }]),
      w.run('enrichSheet', [{ sheetName: 'Leads' }], { user: other }),
    ]);
    expect(a.ok, a.error).toBe(true);
    expect(b.ok, b.error).toBe(true);
    const reports = [a.value, b.value] as { status: string; billedQueries: number; message: string }[];
    for (const rep of reports) expect(['done', 'refused']).toContain(rep.status);
    const refused = reports.filter((rep) => rep.status === 'refused');
    for (const rep of refused) expect(rep.message).toMatch(/another|busy|held|working/i);
    expect((await t.billed()) - before).toBe(300);
    expect(reports.reduce((n, rep) => n + rep.billedQueries, 0)).toBe(300);
    expect(rows(w).every((row) => row.code === row.key)).toBe(true);
  });
});
