/**
 * When detection and morning runs happen: 07:00 (morning: detection, then saved searches) and 19:00
 * (evening: detection) in Europe/Tallinn, the time zone of the data, so the run date is the Estonian date.
 */

export const RUN_TIME_ZONE = 'Europe/Tallinn';
export const RUN_HOURS = [7, 19] as const;

export interface RunSlot {
  /** Virtual ms of the run. */
  at: number;
  /** Local date YYYY-MM-DD of the run. */
  date: string;
  morning: boolean;
}

const partsFmt = new Intl.DateTimeFormat('en-CA', {
  timeZone: RUN_TIME_ZONE,
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});

function localParts(ms: number) {
  const p: Record<string, number> = {};
  for (const x of partsFmt.formatToParts(new Date(ms))) if (x.type !== 'literal') p[x.type] = Number(x.value);
  return p as { year: number; month: number; day: number; hour: number; minute: number; second: number };
}

/** Local date (YYYY-MM-DD) in Tallinn at a virtual time. */
export function localDate(ms: number): string {
  const p = localParts(ms);
  return `${p.year}-${String(p.month).padStart(2, '0')}-${String(p.day).padStart(2, '0')}`;
}

/** UTC ms of a local wall-clock time in Tallinn (offset +2 or +3 found by one correction step). */
function localToUtc(year: number, month: number, day: number, hour: number): number {
  const guess = Date.UTC(year, month - 1, day, hour);
  const p = localParts(guess);
  const offset = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - guess;
  return guess - offset;
}

/** The first run strictly after `after` (virtual ms). */
export function nextSlot(after: number): RunSlot {
  const p = localParts(after);
  for (let d = 0; d < 3; d++) {
    const day = new Date(Date.UTC(p.year, p.month - 1, p.day + d));
    for (const hour of RUN_HOURS) {
      const at = localToUtc(day.getUTCFullYear(), day.getUTCMonth() + 1, day.getUTCDate(), hour);
      if (at > after) return { at, date: localDate(at), morning: hour === RUN_HOURS[0] };
    }
  }
  /* c8 ignore next */
  throw new Error('unreachable: a run happens every 12 hours');
}
