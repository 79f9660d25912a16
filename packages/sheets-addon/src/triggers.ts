/**
 * scheduleKeepCurrent, unscheduleKeepCurrent and the one trigger handler (schedule.ts says why one).
 */
import { pickSheet, runEnrich } from './enrich';
import { keepCurrentRun } from './keep-current';
import { errorText, remember, type AddonReport } from './reports';
import { applyTriggerState, readTriggerState } from './schedule';

/** scheduleKeepCurrent({ sheetName?, everyHours }): one trigger; a second call replaces it. */
export function scheduleEntry(input: unknown): AddonReport {
  try {
    const o = (input ?? {}) as { sheetName?: unknown; everyHours?: unknown };
    const hours = Number(o.everyHours);
    // Google's everyHours takes 1, 2, 4, 6, 8 or 12; an add-on's time-driven trigger runs at most hourly.
    if (![1, 2, 4, 6, 8, 12].includes(hours)) throw new Error('everyHours: must be 1, 2, 4, 6, 8 or 12');
    if (o.sheetName !== undefined && typeof o.sheetName !== 'string') throw new Error('sheetName: must be text');
    const sheetName = pickSheet(SpreadsheetApp.getActiveSpreadsheet(), (o.sheetName as string | undefined) || undefined).getName();
    const state = readTriggerState();
    applyTriggerState({ ...state, schedule: { sheetName, everyHours: hours } });
    return {
      status: 'done',
      message: `"${sheetName}" is kept current every ${hours === 1 ? 'hour' : `${hours} hours`}.`,
      sheetName,
      everyHours: hours,
    };
  } catch (e) {
    return { status: 'refused', message: errorText(e) };
  }
}

export function unscheduleEntry(): AddonReport {
  const state = readTriggerState();
  applyTriggerState({ ...state, schedule: undefined });
  return { status: 'done', message: state.schedule ? 'The schedule is off.' : 'There was no schedule.' };
}

/** The time-driven trigger: the continuation of a run cut short, else the schedule's keepCurrent. */
export async function onTrigger(): Promise<AddonReport> {
  const state = readTriggerState();
  const c = state.continuation;
  if (c?.kind === 'enrich') return remember((await runEnrich({ ...c, continuation: c })).report);
  if (c?.kind === 'keepCurrent') return remember(await keepCurrentRun({ sheetName: c.sheetName, continuation: c }));
  if (state.schedule) return remember(await keepCurrentRun({ sheetName: state.schedule.sheetName }));
  // A trigger left from an earlier version or a lost state: it goes.
  applyTriggerState(state);
  return { status: 'done', message: 'Nothing is scheduled.' };
}
