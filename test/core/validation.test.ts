import { describe, expect, it } from 'vitest';
import {
  classifyLookupQuery,
  isValidDate,
  normaliseVatNumber,
  personalCodeProblem,
  registryCodeProblem,
  vatNumberProblem,
  withRegistryCheckDigit,
} from '@company-data/core/validation';

describe('calendar date (format: date)', () => {
  it.each(['0000-01-01', '0000-02-29', '0004-02-29', '0099-12-31', '1900-01-01', '2024-02-29', '9999-12-31'])('accepts %s', (d) =>
    expect(isValidDate(d)).toBe(true),
  );
  // 0000 and 0004 are leap years of the proleptic Gregorian calendar; 0001, 0100 and 1900 are not.
  it.each(['0001-02-29', '0100-02-29', '1900-02-29', '0050-13-01', '0050-00-10', '0050-04-31', '50-01-01', '10000-01-01'])(
    'refuses %s',
    (d) => expect(isValidDate(d)).toBe(false),
  );
});

// Vectors are the real codes listed in ../shared/reference/estonian-registry.md, not computed by our code.
describe('registry code', () => {
  it.each(['12417834', '14532901', '10421629', '10451175', '10000024', '70000310', '10000062', '10000640'])('accepts %s', (c) => {
    expect(registryCodeProblem(c)).toBeNull();
  });
  it.each([
    ['1241783', 'must be exactly 8 digits'],
    ['124178345', 'must be exactly 8 digits'],
    ['1241783a', 'must be exactly 8 digits'],
    ['22417834', 'must start with 1, 7, 8 or 9'],
    ['12417835', 'has a wrong check digit (last digit)'],
  ])('rejects %s: %s', (c, rule) => {
    expect(registryCodeProblem(c)).toBe(rule);
  });
  it('completes a stem with its check digit', () => {
    expect(withRegistryCheckDigit('1241783')).toBe('12417834');
    expect(withRegistryCheckDigit('1000064')).toBe('10000640');
  });
});

describe('VAT number', () => {
  it.each(['EE102090374', 'EE101074485', 'EE102269053', 'EE100594102'])('accepts %s', (v) => {
    expect(vatNumberProblem(v)).toBeNull();
  });
  it('rejects a wrong check digit', () => expect(vatNumberProblem('EE101256754')).toMatch(/check digit/));
  it.each([
    ['EE102090374', 'EE102090374'],
    ['ee102090374', 'EE102090374'],
    ['EE 102090374', 'EE102090374'],
    ['ee 102090374', 'EE102090374'],
    ['102090374', 'EE102090374'],
  ])('normalises %s', (input, out) => expect(normaliseVatNumber(input)).toBe(out));
  it.each(['EE10209037', 'FI102090374', 'EE1020903745', 'EE-102090374'])('rejects the form %s', (v) => {
    expect(normaliseVatNumber(v)).toBeNull();
  });
});

describe('personal code', () => {
  it.each(['36805280109', '47502124911', '38501010002'])('accepts %s', (c) => expect(personalCodeProblem(c)).toBeNull());
  it('rejects a wrong check digit', () => expect(personalCodeProblem('36805280108')).toMatch(/check digit/));
  it('rejects an impossible date', () => expect(personalCodeProblem('38102290106')).toMatch(/birth date/));
  it('rejects a wrong century digit', () => expect(personalCodeProblem('76805280109')).toMatch(/1 to 6/));
});

describe('lookup query classifier', () => {
  it.each([
    ['12417834', 'registry_code', '12417834', undefined],
    ['EE102090374', 'vat_number', 'EE102090374', undefined],
    ['102090374', 'vat_number', 'EE102090374', undefined],
    ['EE 102090374', 'vat_number', 'EE102090374', undefined],
    [' ee 102090374 ', 'vat_number', 'EE102090374', undefined],
    ['EE  102090374', 'name', 'EE  102090374', undefined],
    ['Bolt', 'name', 'Bolt', undefined],
    ['AS OÜ', 'name', 'AS OÜ', 'query_too_short'],
    ['ab cd', 'name', 'ab cd', 'query_too_short'],
    ['1234567', 'name', '1234567', undefined],
    ['Öko', 'name', 'Öko', undefined],
  ])('%s -> %s', (q, type, normalised, skipped) => {
    const c = classifyLookupQuery(q);
    expect(c.type).toBe(type);
    expect(c.normalised).toBe(normalised);
    expect(c.skipped).toBe(skipped);
  });
});
