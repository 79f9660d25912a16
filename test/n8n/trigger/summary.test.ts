import { describe, expect, test } from 'vitest';
import { Rng } from '../../../packages/company-data/src/sandbox/dataset/prng';
import { sampleFacts } from '../../support/company-facts';
import { kinds } from '../../../packages/company-data/src/sandbox/monitoring/kinds';
import { changeSummary, formatMoney, type SummaryLang } from '../../../src/n8n/trigger/summary';

const facts = sampleFacts;
const company = { registry_code: facts.registry_code, name: facts.name };
const lists = [{ id: 'lst_1', name: 'Key clients', external_ref: 'CRM-991' }];

/** Every kind the sandbox produces, with the details and tone it would send. */
const events = kinds.map((k, i) => {
  const details = k.make(facts, new Rng(i + 1), '2026-11-20')!;
  return { kind: k.kind, event: { data: { company, lists, kind: k.kind, tone: k.tone(details), details } } };
});

describe.each(['en', 'et'] as SummaryLang[])('summary sentences (%s) for every kind the sandbox produces', (lang) => {
  test.each(events.map((e) => [e.kind, e.event] as const))('%s', (_kind, event) => {
    const s = changeSummary(event, lang);
    expect(s).toContain(`${facts.name} (${facts.registry_code})`);
    expect(s).toMatch(lang === 'en' ? / — list: Key clients \(ref CRM-991\)$/ : / — nimekiri: Key clients \(viide CRM-991\)$/);
    expect(s).not.toMatch(/undefined|null|\[object|NaN|_/);
    // One verb per sentence: "ended ... changed" or "lõppes muutus" read as two.
    expect(s).not.toMatch(lang === 'en' ? /\bended\b.*\bchanged\b/ : /lõppes muutus/);
  });
});

const sentence = (kind: string, details: Record<string, unknown>, tone: string, lang: SummaryLang) =>
  changeSummary({ data: { company, kind, tone, details } }, lang);

test('a rating moves up or down as its tone says, not just "changed"', () => {
  expect(sentence('rating_changed', { old: 'BB', new: 'B' }, 'bad', 'en')).toBe(
    'Credit rating of Kullamäe Ehitus OÜ (14453248) fell from BB to B',
  );
  expect(sentence('rating_changed', { old: 'BB', new: 'BBB' }, 'good', 'et')).toBe(
    'Kullamäe Ehitus OÜ (14453248) krediidireiting tõusis: BB → BBB',
  );
});

test('an ended VAT registration, a board member leaving and plural Estonian subjects read as plain sentences', () => {
  expect(sentence('vat_deregistered', { old: 'EE102224658', new: null }, 'bad', 'en')).toBe(
    'VAT registration of Kullamäe Ehitus OÜ (14453248) ended: EE102224658',
  );
  expect(sentence('vat_deregistered', { old: 'EE102224658', new: null }, 'bad', 'et')).toBe(
    'Kullamäe Ehitus OÜ (14453248) KMKR registreering lõppes: EE102224658',
  );
  expect(sentence('board_member_removed', { old: { name: 'Mari Tamm', role: 'JUHL' }, new: null }, 'neutral', 'en')).toBe(
    'Board member left Kullamäe Ehitus OÜ (14453248): Mari Tamm',
  );
  expect(sentence('property_sold', { old: { cadastral_code: '78401:1:2', type: 'land' }, new: null }, 'neutral', 'en')).toBe(
    'Property sold by Kullamäe Ehitus OÜ (14453248): 78401:1:2, land',
  );
  expect(sentence('beneficial_owner_changed', { old: ['Mari Tamm'], new: ['Jaan Sepp'] }, 'neutral', 'et')).toBe(
    'Kullamäe Ehitus OÜ (14453248) tegelikud kasusaajad muutusid: Mari Tamm → Jaan Sepp',
  );
});

test('money: whole amounts without decimals, others with two', () => {
  expect(formatMoney(4210, 'en')).toBe('4,210 €');
  expect(formatMoney(25_757.6, 'en')).toBe('25,757.60 €');
  expect(formatMoney(25_757.6, 'et').replace(/\s/g, ' ')).toBe('25 757,60 €');
});
