/** What a change writes into its company's row (packages/core/watch/row-change.ts): pure. */
import { describe, expect, test } from 'vitest';
import { isNewer, mergeChanges, rowChange, staleFields } from '@company-data/core/watch/row-change';

const event = (id: string, kind: string, details: Record<string, unknown>, detected_at = '2026-11-20T05:00:00Z') => ({
  id,
  type: 'monitoring.change',
  created_at: '2026-11-20T05:01:00.000Z',
  data: {
    company: { registry_code: '10000001', name: 'Näidis OÜ' },
    lists: [],
    category: 'registry',
    kind,
    tone: 'neutral',
    details,
    detected_at,
  },
});

describe('rowChange', () => {
  test('the sentence, the time, the id and the stale enriched fields', () => {
    expect(rowChange(event('evt_7', 'name_changed', { old: 'Vana OÜ', new: 'Uus OÜ' }), 'en')).toEqual({
      id: 'evt_7',
      registryCode: '10000001',
      detectedAt: '2026-11-20T05:00:00Z',
      cells: {
        company_data_last_change: 'Name of Näidis OÜ (10000001) changed from Vana OÜ to Uus OÜ',
        company_data_changed_at: '2026-11-20T05:00:00Z',
        company_data_last_event_id: 'evt_7',
        company_data_match_name: 'Uus OÜ',
      },
    });
    expect(rowChange(event('evt_8', 'status_changed', { old: 'R', new: 'N' }), 'et')!.cells).toMatchObject({
      company_data_match_status: 'N',
      company_data_match_status_label: 'Pankrotis',
    });
    expect(rowChange(event('evt_9', 'tax_debt', { old: 0, new: 10 }), 'en')!.cells).not.toHaveProperty('company_data_match_name');
  });

  test('anything but a change with an id and a company is not for a row', () => {
    expect(rowChange({ id: 'evt_1', type: 'search.matches', data: {} }, 'en')).toBeUndefined();
    expect(rowChange({ type: 'monitoring.change', data: { company: { registry_code: '1' } } }, 'en')).toBeUndefined();
    expect(rowChange(null, 'en')).toBeUndefined();
  });

  test('stale fields per kind', () => {
    expect(staleFields('address_changed', { new: 'Harju maakond, Tallinn, Pärnu mnt 1, 10141' }, 'en')).toEqual({
      address: 'Harju maakond, Tallinn, Pärnu mnt 1, 10141',
      postal_code: '10141',
    });
    expect(staleFields('vat_deregistered', { old: 'EE100', new: null }, 'en')).toEqual({ vat_number: '' });
    expect(staleFields('court_case', { new: {} }, 'en')).toEqual({});
  });
});

describe('order', () => {
  test('detected_at first, then the id number (evt_10 after evt_9)', () => {
    expect(isNewer({ detectedAt: '2026-11-21T05:00:00Z', id: 'evt_1' }, { detectedAt: '2026-11-20T05:00:00Z', id: 'evt_9' })).toBe(true);
    expect(isNewer({ detectedAt: 'x', id: 'evt_10' }, { detectedAt: 'x', id: 'evt_9' })).toBe(true);
    expect(isNewer({ detectedAt: 'x', id: 'evt_9' }, { detectedAt: 'x', id: 'evt_9' })).toBe(false);
  });

  test('a batch of one company: every stale field in order, the newest sentence and id', () => {
    const a = rowChange(event('evt_10', 'name_changed', { old: 'A', new: 'B' }), 'en')!;
    const b = rowChange(event('evt_9', 'status_changed', { old: 'R', new: 'L' }), 'en')!;
    const c = rowChange(event('evt_11', 'name_changed', { old: 'B', new: 'C' }), 'en')!;
    const m = mergeChanges([c, a, b]);
    expect(m.id).toBe('evt_11');
    expect(m.cells).toMatchObject({ company_data_match_name: 'C', company_data_match_status: 'L', company_data_last_event_id: 'evt_11' });
  });
});
