/**
 * The event log answers polls by binary search over its per-kind lists; checked against the plain
 * definition (filter the whole log, then page) on a log of every kind of event.
 */
import { describe, expect, it } from 'vitest';
import { EventLog, eventNumber, type SandboxEvent } from '../../../../packages/company-data/src/sandbox/write/store';

function buildLog(): EventLog {
  const log = new EventLog();
  let n = 0;
  let day = 20261101;
  const part = new Map<string, number>();
  for (let k = 0; k < 3000; k++) {
    const r = (k * 7919) % 100;
    if (r < 70) {
      log.append({
        id: `evt_${++n}`,
        type: 'monitoring.change',
        created_at: '',
        data: { category: ['registry', 'tax', 'court'][k % 3], lists: [{ id: `lst_${k % 4}` }, ...(k % 5 === 0 ? [{ id: 'lst_x' }] : [])] },
      });
    } else if (r < 90) {
      const s = k % 2 ? 'srch_a' : 'srch_b';
      if (k % 7 === 0) day++;
      const p = part.get(`${s}${day}`) ?? 0;
      part.set(`${s}${day}`, p + 1);
      log.append({ id: `evt_${s}_${day}_${p + 1}`, type: 'search.matches', created_at: '', data: { search: { id: s } } });
    } else log.append({ id: `evt_${++n}`, type: 'webhook.test', created_at: '', data: {} });
  }
  return log;
}

function naivePage(rows: SandboxEvent[], limit: number, cursor: string | null) {
  const data = rows.slice(0, limit);
  return { data, meta: { next_cursor: data.length ? data[data.length - 1]!.id : cursor, has_more: rows.length > data.length } };
}

describe('event log polling', () => {
  const log = buildLog();
  const all = log.all() as SandboxEvent[];
  const monitoring = all.filter((e) => e.type === 'monitoring.change');

  it('GET /monitoring/events pages as filtering the whole log would, for any cursor, limit and filter', () => {
    const cursors = [
      undefined,
      'evt_1',
      monitoring[500]!.id,
      monitoring[monitoring.length - 2]!.id,
      monitoring[monitoring.length - 1]!.id,
      'evt_999999',
    ];
    for (const after of cursors) {
      for (const limit of [1, 25, 200]) {
        for (const filter of [{}, { list_id: 'lst_x' }, { category: ['tax', 'court'] }, { list_id: 'lst_2', category: ['registry'] }]) {
          const q = { after, limit, ...filter };
          const from = after === undefined ? -1 : eventNumber(after)!;
          const expected = monitoring.filter(
            (e) =>
              eventNumber(e.id)! > from &&
              (!q.list_id || e.data.lists.some((l: { id: string }) => l.id === q.list_id)) &&
              (!q.category || q.category.includes(e.data.category)),
          );
          expect(log.monitoringPage(q), JSON.stringify(q)).toEqual(naivePage(expected, limit, after ?? null));
        }
      }
    }
  });

  it('GET /searches/{id}/matches pages as filtering the whole log would', () => {
    const ofA = all.filter((e) => e.type === 'search.matches' && e.data.search.id === 'srch_a');
    expect(ofA.length).toBeGreaterThan(100);
    for (const after of [undefined, ofA[0]!.id, ofA[50]!.id, ofA[ofA.length - 1]!.id]) {
      const k = after === undefined ? -1 : ofA.findIndex((e) => e.id === after);
      for (const limit of [1, 25, 200])
        expect(log.matchesPage('srch_a', { after, limit })).toEqual(naivePage(ofA.slice(k + 1), limit, after ?? null));
    }
    expect(log.matchesPage('srch_none', {})).toEqual(naivePage([], 25, null));
  });
});
