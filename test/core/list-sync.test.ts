/** The list-sync planning of `company-data watch` (packages/core/watch/list-sync.ts): pure. */
import { describe, expect, test } from 'vitest';
import { defaultListName, matchedCodes, planListSync, sheetExternalRef } from '@company-data/core/watch/list-sync';

const codes = (n: number, from = 10_000_000) => Array.from({ length: n }, (_, i) => String(from + i));
const ref = 'gsheet:abc#Leads';

describe('planListSync', () => {
  test('a new (empty) list of 10,000: five adds of 2,000, no replace', () => {
    const p = planListSync({ desired: codes(10_000), current: [], externalRef: ref });
    expect(p.requests.map((r) => [r.add.length, r.replace])).toEqual([
      [2000, false],
      [2000, false],
      [2000, false],
      [2000, false],
      [2000, false],
    ]);
    expect(p.requests[0]!.add[0]).toEqual({ registry_code: '10000000', external_ref: ref });
    expect([p.added.length, p.removed.length, p.kept.length, p.churned]).toEqual([10_000, 0, 0, 0]);
  });

  test('members unknown: the first part replaces, the rest are added', () => {
    const p = planListSync({ desired: codes(4500), externalRef: ref });
    expect(p.requests.map((r) => [r.add.length, r.replace])).toEqual([
      [2000, true],
      [2000, false],
      [500, false],
    ]);
    expect(p.churned).toBe(2500);
  });

  test('nothing changed: no request; only new rows: only they are sent', () => {
    expect(planListSync({ desired: codes(5), current: codes(5), externalRef: ref }).requests).toEqual([]);
    const p = planListSync({ desired: codes(6), current: codes(5), externalRef: ref });
    expect(p.requests).toEqual([{ add: [{ registry_code: '10000005', external_ref: ref }], replace: false }]);
    expect([p.added, p.removed, p.kept.length]).toEqual([['10000005'], [], 5]);
  });

  test('a removal: one replace when the set fits one request; kept companies first when it does not', () => {
    const one = planListSync({ desired: codes(4, 10_000_001), current: codes(5), externalRef: ref });
    expect(one.requests).toHaveLength(1);
    expect(one.requests[0]!.replace).toBe(true);
    expect(one.removed).toEqual(['10000000']);
    const desired = [...codes(3, 20_000_000), ...codes(5, 10_000_001)];
    const many = planListSync({ desired, current: codes(6), externalRef: ref, partSize: 3 });
    expect(many.requests.map((r) => [r.add.map((a) => a.registry_code), r.replace])).toEqual([
      [['10000001', '10000002', '10000003'], true],
      [['10000004', '10000005', '20000000'], false],
      [['20000001', '20000002'], false],
    ]);
    expect([many.added.length, many.removed, many.kept.length, many.churned]).toEqual([3, ['10000000'], 5, 2]);
  });

  test('an empty sheet empties the list with one replace', () => {
    const p = planListSync({ desired: [], current: codes(3), externalRef: ref });
    expect(p.requests).toEqual([{ add: [], replace: true }]);
    expect(p.removed).toHaveLength(3);
  });

  test('the part size never exceeds the spec cap', () => {
    const p = planListSync({ desired: codes(2500), current: [], externalRef: ref, partSize: 5000 });
    expect(p.requests.map((r) => r.add.length)).toEqual([2000, 500]);
  });
});

describe('names and codes', () => {
  test('the default list name and external_ref name the sheet, never a row', () => {
    expect(defaultListName({ kind: 'google', spreadsheetId: 'abc', sheet: 'Leads' })).toBe('Sheet abc / Leads');
    expect(defaultListName({ kind: 'file', name: 'leads.csv' })).toBe('File leads.csv');
    expect(sheetExternalRef({ kind: 'google', spreadsheetId: 'abc', sheet: 'Leads' })).toBe('gsheet:abc#Leads');
    expect(sheetExternalRef({ kind: 'file', name: 'x'.repeat(300) })).toHaveLength(200);
  });

  test('matched rows only, each code once, the key when the registry code column is missing', () => {
    const header = ['Kood', 'company_data_status', 'company_data_match_registry_code'];
    const rows = [
      ['10000001', 'matched', '10000001'],
      ['Bolt', 'matched', '14532901'],
      ['10000001', 'matched', '10000001'],
      ['EE100', 'vat_group: 3 holders', ''],
      ['zz', 'no_match', ''],
      ['10000018', 'matched', ''],
    ];
    expect(matchedCodes(header, rows, 0)).toEqual(['10000001', '14532901', '10000018']);
    expect(matchedCodes(['Kood'], [['10000001']], 0)).toEqual([]);
  });
});
