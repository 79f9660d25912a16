/**
 * Checks before paying, in the add-on: a wrong API key, an unknown sheet name, a protected range, a user who
 * can only view, bad input. Each gets a clear answer (status refused, the field or what to do named) and
 * nothing is billed; the key never appears in an answer or a log.
 */
import { describe, expect, it } from 'vitest';
import { useAddonWorld } from './world';

const t = useAddonWorld();

async function leads(count = 12) {
  const codes = await t.codes(count);
  const w = await t.world();
  w.spreadsheet.addSheet('Leads', [['Registry code', 'Note'], ...codes.map((c, i) => [c, `n${i}`])]);
  return { w, codes };
}

describe('enrichSheet refuses before paying', () => {
  it('a wrong API key: refused, nothing billed, the key not echoed', async () => {
    const { w } = await leads();
    const wrong = 'cd_live_not-a-real-key-123456';
    const saved = (await w.run('saveSettings', [{ apiKey: wrong }])).value as { message: string };
    // Saved (the user may fix the service address next), with the service's verdict on the key said at once.
    expect(saved).toMatchObject({ status: 'done', apiKeySaved: true, apiKeyWorks: false });
    expect(saved.message).toMatch(/refused this key/);
    expect(saved.message).not.toContain(wrong);
    const before = await t.billed();
    const r = await w.run('enrichSheet', [{ sheetName: 'Leads' }]);
    expect(r.ok, r.error).toBe(true);
    const report = r.value as { status: string; message: string; billedQueries: number };
    expect(report).toMatchObject({ status: 'refused', billedQueries: 0 });
    expect(report.message).toMatch(/key/i);
    expect(JSON.stringify(report)).not.toContain(wrong);
    expect(r.logs.join('\n')).not.toContain(wrong);
    expect(await t.billed()).toBe(before);
    // Nothing was written into the sheet's rows.
    expect((w.spreadsheet.values('Leads')[0] as string[]).filter((h) => String(h).startsWith('company_data_'))).toEqual([]);
  });

  it('an unknown sheet name: refused, naming the sheets there are', async () => {
    const { w } = await leads();
    const before = await t.billed();
    const r = await w.run('enrichSheet', [{ sheetName: 'Leeds' }]);
    expect(r.value).toMatchObject({ status: 'refused', billedQueries: 0 });
    expect((r.value as { message: string }).message).toMatch(/sheetName: no sheet named "Leeds".*"Leads"/);
    expect(await t.billed()).toBe(before);
  });

  it('bad input names the field and the rule', async () => {
    const { w } = await leads();
    const r = await w.run('enrichSheet', [{ sheetName: 'Leads', maxBilledQueries: -1 }]);
    expect(r.value).toMatchObject({ status: 'refused', message: expect.stringMatching(/^maxBilledQueries: /) });
    const s = await w.run('saveSettings', [{ apiKey: 'two words' }]);
    expect(s.value).toMatchObject({ status: 'refused', message: expect.stringMatching(/^apiKey: /) });
    expect(JSON.stringify(s.value)).not.toContain('two words');
  });

  it('a protected range over the cells it writes: refused, nothing billed', async () => {
    const { w } = await leads();
    const editor = 'colleague@example.com';
    w.spreadsheet.share(editor, 'edit');
    w.spreadsheet.protectRange('Leads', 'A1:Z1000', ['owner@example.com']);
    await w.run('saveSettings', [{ apiKey: t.sb.apiKey, baseUrl: t.sb.url }], { user: editor });
    const before = await t.billed();
    const r = await w.run('enrichSheet', [{ sheetName: 'Leads' }], { user: editor });
    expect(r.ok, r.error).toBe(true);
    expect(r.value).toMatchObject({ status: 'refused', billedQueries: 0 });
    expect((r.value as { message: string }).message).toMatch(/protected/);
    expect(await t.billed()).toBe(before);
  });

  it('a user who can only view: refused, nothing billed', async () => {
    const { w } = await leads();
    const viewer = 'viewer@example.com';
    w.spreadsheet.share(viewer, 'view');
    await w.run('saveSettings', [{ apiKey: t.sb.apiKey, baseUrl: t.sb.url }], { user: viewer });
    const before = await t.billed();
    const r = await w.run('enrichSheet', [{ sheetName: 'Leads' }], { user: viewer });
    expect(r.ok, r.error).toBe(true);
    expect(r.value).toMatchObject({ status: 'refused', billedQueries: 0 });
    expect((r.value as { message: string }).message).toMatch(/view/);
    expect(await t.billed()).toBe(before);
  });

  it('a cap below what the run would bill: refused before sending', async () => {
    const { w } = await leads(12);
    const before = await t.billed();
    const r = await w.run('enrichSheet', [{ sheetName: 'Leads', maxBilledQueries: 5 }]);
    expect(r.value).toMatchObject({ status: 'refused', billedQueries: 0 });
    expect(await t.billed()).toBe(before);
  });
});
