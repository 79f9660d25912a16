/**
 * The one time-driven trigger an editor add-on may have per user and document, and its one handler
 * (onAddonTrigger): a continuation of a run cut short by the time budget (minutes later), or the
 * keep-current schedule (every N hours; Google runs an add-on's at most hourly). What it serves is
 * remembered in the user's properties, per spreadsheet: inside a trigger the active sheet is just the
 * first one, so the sheet's name must come from here.
 */
export const HANDLER = 'onAddonTrigger';
/** A continuation starts this long after the run that scheduled it ended. */
export const CONTINUE_AFTER_MS = 60_000;

export interface Continuation {
  kind: 'enrich' | 'keepCurrent';
  sheetName: string;
  keyColumn?: string;
  maxBilledQueries?: number;
  /** Queries billed by the earlier parts of this run, counted against maxBilledQueries. */
  billedSoFar: number;
  /** Executions of this run so far. */
  parts: number;
}

export interface TriggerState {
  schedule?: { sheetName: string; everyHours: number };
  continuation?: Continuation;
}

const stateKey = () => `companyData.trigger.${SpreadsheetApp.getActiveSpreadsheet().getId()}`;

export function readTriggerState(): TriggerState {
  const v = PropertiesService.getUserProperties().getProperty(stateKey());
  return v ? (JSON.parse(v) as TriggerState) : {};
}

function writeTriggerState(s: TriggerState): void {
  const p = PropertiesService.getUserProperties();
  if (!s.schedule && !s.continuation) p.deleteProperty(stateKey());
  else p.setProperty(stateKey(), JSON.stringify(s));
}

/** Deletes this user's triggers of the handler (the project's triggers of a bound script are this document's). */
function dropTriggers(): void {
  for (const t of ScriptApp.getProjectTriggers()) if (t.getHandlerFunction() === HANDLER) ScriptApp.deleteTrigger(t);
}

/** Puts the one trigger in place for the state: a continuation first, else the schedule, else none. */
export function applyTriggerState(s: TriggerState): void {
  writeTriggerState(s);
  dropTriggers();
  if (s.continuation) ScriptApp.newTrigger(HANDLER).timeBased().after(CONTINUE_AFTER_MS).create();
  else if (s.schedule) ScriptApp.newTrigger(HANDLER).timeBased().everyHours(s.schedule.everyHours).create();
}
