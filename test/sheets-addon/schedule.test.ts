/**
 * The keep-current schedule: one time-driven trigger (a second call replaces it), one handler that remembers
 * the sheet it serves (inside a trigger the active sheet is the first one and getUi() throws), and off again.
 */
import { describe, expect, it } from 'vitest';
import { useAddonWorld } from './world';

const t = useAddonWorld();

describe('scheduleKeepCurrent (add-on)', () => {
  it('keeps one trigger for the remembered sheet, replaced by a second call, removed by unscheduleKeepCurrent', async () => {
    const codes = await t.codes(5, 7);
    const w = await t.world();
    w.spreadsheet.addSheet('Portfolio', [['Registry code'], ...codes.map((c) => [c])]);
    expect((await w.run('scheduleKeepCurrent', [{ sheetName: 'Portfolio', everyHours: 4 }])).value).toMatchObject({
      status: 'done',
      everyHours: 4,
    });
    expect((await w.run('scheduleKeepCurrent', [{ sheetName: 'Portfolio', everyHours: 1 }])).value).toMatchObject({
      status: 'done',
      everyHours: 1,
    });
    expect(w.triggers()).toEqual([expect.objectContaining({ handler: 'onAddonTrigger', everyHours: 1 })]);
    expect((await w.run('scheduleKeepCurrent', [{ everyHours: 3 }])).value).toMatchObject({
      status: 'refused',
      message: expect.stringMatching(/^everyHours: /),
    });

    // The trigger runs keepCurrent on Portfolio, though the first sheet (the active one in a trigger) is Sheet1.
    const ran = await w.runNextTrigger();
    expect(ran?.ok, ran?.error).toBe(true);
    expect(ran?.value).toMatchObject({ status: 'done', sheetName: 'Portfolio', billedQueries: 5, list: { added: 5 } });
    expect(w.triggers()).toHaveLength(1);

    expect((await w.run('unscheduleKeepCurrent')).value).toMatchObject({ status: 'done' });
    expect(w.triggers()).toEqual([]);
  });
});
