/**
 * The chat digest (packages/core/digest.ts): bad news first, grouped by company, counts per kind, the line cap
 * and Slack mrkdwn escaping; fast-check for the escaping and the cap, the sandbox's own kinds for the texts.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { buildDigest, changeSeverity, slackEscape } from '@company-data/core/digest';
import { Rng } from '../../packages/company-data/src/sandbox/dataset/prng';
import { sampleFacts } from '../support/company-facts';
import { kinds } from '../../packages/company-data/src/sandbox/monitoring/kinds';

const facts = sampleFacts;

let nextId = 1;
function change(code: string, name: string, kind: string, tone: string, details: Record<string, unknown> = {}, id?: string) {
  return {
    id: id ?? `evt_${nextId++}`,
    type: 'monitoring.change',
    created_at: '2026-11-20T05:01:00.000Z',
    data: {
      company: { registry_code: code, name },
      lists: [{ id: 'lst_1', name: 'Sales', external_ref: 'sheet:abc' }],
      category: 'registry',
      kind,
      tone,
      details,
      detected_at: '2026-11-20T05:00:00Z',
    },
  };
}

/** What a reader sees: entities back to characters, the invisible joiner gone, the one-dot leader a dot. */
const visible = (s: string) =>
  s
    .replace(/\u2060/g, '')
    .replace(/\u2024/g, '.')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/** Mrkdwn that could ping, link or format by accident. */
function assertInert(text: string) {
  expect(text).not.toMatch(/[<>]/);
  expect(text).not.toMatch(/&(?!amp;|lt;|gt;)/);
  expect(text).not.toMatch(/@[^\u2060]/);
  expect(text).not.toMatch(/:\/\//);
  expect(text).not.toMatch(/[\p{L}\p{N}]\.[\p{L}\p{N}-]*\p{L}/u);
}

describe('slackEscape', () => {
  test('entities as Slack documents them, and no mention, link or formatting from a name', () => {
    expect(slackEscape('A & B <OÜ>')).toBe('A &amp; B &lt;OÜ&gt;');
    for (const name of ['<!channel> OÜ', '@here Ehitus', 'Visit https://evil.example now', 'shop.ee OÜ', '*Bold* _it_ ~s~ `c`', '<@U123>'])
      assertInert(slackEscape(name));
    expect(slackEscape('Money 25,757.60 €')).toBe('Money 25,757.60 €');
  });

  test('property: any text comes out inert and reads the same', () => {
    const nasty = fc.constantFrom(
      '<',
      '>',
      '&',
      '@',
      '*',
      '_',
      '~',
      '`',
      '.',
      ':',
      '/',
      '!',
      '|',
      'here',
      'channel',
      'ee',
      'http',
      ' ',
      'ä',
      '1',
    );
    const text = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 40 }),
      fc.array(nasty, { maxLength: 30 }).map((a) => a.join('')),
    );
    fc.assert(
      fc.property(text, (s) => {
        const out = slackEscape(s);
        assertInert(out);
        // A name may hold the joiner or the one-dot leader itself (fast-check found U+2024): read, it is the same.
        expect(visible(out)).toBe(s.replace(/\u2060/g, '').replace(/\u2024/g, '.'));
      }),
      { numRuns: 500 },
    );
  });
});

describe('buildDigest', () => {
  test('bad news first, grouped by company, counts per kind', () => {
    const events = [
      change('10000001', 'Hea Uudis OÜ', 'annual_report_filed', 'good', { old: null, new: { year: 2025 } }),
      change('10000002', 'Nimevahetus AS', 'name_changed', 'neutral', { old: 'Vana AS', new: 'Nimevahetus AS' }),
      change('10000003', 'Võlg OÜ', 'tax_debt', 'bad', { old: 0, new: 4210 }),
      change('10000001', 'Hea Uudis OÜ', 'status_changed', 'bad', { old: 'R', new: 'L' }),
      change('10000003', 'Võlg OÜ', 'tax_debt_cleared', 'good', { old: 4210, new: 0 }),
    ];
    const d = buildDigest(events, { lang: 'en' });
    expect(d).toMatchObject({ total: 5, companies: 3, shown: 5, more: 0, tones: { bad: 2, neutral: 1, good: 2 } });
    expect(d.kinds.map((k) => [k.label, k.count])).toEqual([
      ['Status', 1],
      ['Tax debt', 1],
      ['Name', 1],
      ['Tax debt cleared', 1],
      ['Annual report filed', 1],
    ]);
    const lines = d.text.split('\n');
    expect(lines[0]).toBe('*Company Data: 5 changes at 3 companies*');
    expect(lines[1]).toBe('🔴 Bad news 2 · ⚪ Neutral 1 · 🟢 Good news 2');
    // The company with the worst news (a status leaving "registered") heads the list, its bad news first.
    const body = lines.slice(4);
    expect(body[0]).toBe('*Hea Uudis OÜ* (10000001)');
    expect(body[1]).toMatch(/^🔴 Status changed from .+ to .+/);
    expect(body[2]).toMatch(/^🟢 Annual report filed/);
    expect(body[3]).toBe('*Võlg OÜ* (10000003)');
    expect(body[4]).toBe('🔴 Tax debt rose from 0 € to 4,210 €');
    expect(body[6]).toBe('*Nimevahetus AS* (10000002)');
    expect(d.text).not.toContain('Sales'); // list names are the sheet's own; the digest names companies only
  });

  test('Estonian, with "ja veel N" after the cap; repeated event ids count once', () => {
    const events = Array.from({ length: 40 }, (_, i) =>
      change(String(11000000 + (i % 8)), `Firma ${i % 8} OÜ`, 'tax_debt', 'bad', { old: i, new: i + 100 }),
    );
    const d = buildDigest([...events, ...events.slice(0, 10)], { lang: 'et', maxLines: 10 });
    expect(d.total).toBe(40);
    expect(d.text.split('\n')[0]).toBe('*Company Data: 40 muudatust 8 ettevõttes*');
    expect(d.text).toContain('Maksuvõlg 40');
    expect(d.text.split('\n').at(-1)).toBe(`_…ja veel ${d.more}_`);
    expect(d.shown + d.more).toBe(40);
  });

  test('every kind the sandbox produces reads in both languages, without the company repeated on its line', () => {
    const events = kinds.map((k, i) => {
      const details = k.make(facts, new Rng(i + 1), '2026-11-20')!;
      return change(facts.registry_code, facts.name, k.kind, k.tone(details), details);
    });
    for (const lang of ['en', 'et'] as const) {
      const d = buildDigest(events, { lang, maxLines: 100 });
      expect(d.shown).toBe(kinds.length);
      const lines = d.text.split('\n').slice(4);
      expect(lines[0]).toBe(`*${facts.name}* (${facts.registry_code})`);
      for (const line of lines.slice(1)) {
        expect(line).not.toContain(facts.registry_code);
        expect(line).not.toMatch(/undefined|null|\[object|NaN/);
      }
      // Bad before neutral before good.
      const marks = lines.slice(1).map((l) => Array.from(l)[0]);
      expect(marks.join('')).toMatch(/^(🔴)*(⚪)*(🟢)*$/u);
    }
  });

  test('no changes: no text; other events and malformed ones are left out', () => {
    expect(buildDigest([]).text).toBe('');
    const d = buildDigest([{ type: 'search.matches', id: 'evt_x', data: {} }, null, 'x', { data: { kind: 'tax_debt' } }]);
    expect(d).toMatchObject({ total: 0, text: '' });
  });

  test('severity: bad before neutral before good; an unknown kind after the known ones of its tone', () => {
    expect(changeSeverity('status_changed', 'bad')).toBeLessThan(changeSeverity('tax_debt', 'bad'));
    expect(changeSeverity('declaration_missing', 'bad')).toBeLessThan(changeSeverity('name_changed', 'neutral'));
    expect(changeSeverity('something_new', 'bad')).toBeLessThan(changeSeverity('name_changed', 'neutral'));
    expect(changeSeverity('something_new', 'bad')).toBeGreaterThan(changeSeverity('declaration_missing', 'bad'));
    expect(changeSeverity('tax_debt', undefined)).toBe(changeSeverity('tax_debt', 'bad'));
  });

  test('property: at most N lines of companies and changes, the rest counted, names inert', () => {
    const name = fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom('<!here>', '@channel OÜ', 'evil.ee', 'A & B', '*x*'));
    const ev = fc.record({
      company: fc.integer({ min: 0, max: 15 }),
      name,
      kind: fc.constantFrom(...kinds.map((k) => k.kind), 'brand_new_kind'),
      tone: fc.constantFrom('bad', 'good', 'neutral', 'weird'),
    });
    fc.assert(
      fc.property(
        fc.array(ev, { maxLength: 60 }),
        fc.integer({ min: 0, max: 30 }),
        fc.constantFrom('en' as const, 'et' as const),
        (list, n, lang) => {
          // One name per company code, as the service sends it.
          const events = list.map((e, i) =>
            change(String(12000000 + e.company), `${list.find((x) => x.company === e.company)!.name}`, e.kind, e.tone, {}, `evt_p${i}`),
          );
          const d = buildDigest(events, { maxLines: n, lang });
          expect(d.total).toBe(list.length);
          expect(d.shown + d.more).toBe(list.length);
          if (list.length === 0) {
            expect(d.text).toBe('');
            return;
          }
          const body = d.text.split('\n').slice(4);
          const moreLine = d.more > 0 ? body.pop() : undefined;
          expect(body.length).toBeLessThanOrEqual(n);
          if (d.more > 0) expect(moreLine).toBe(lang === 'et' ? `_…ja veel ${d.more}_` : `_…and ${d.more} more_`);
          else expect(d.text).not.toMatch(/…/u);
          // Companies' own text is inert: strip our own bold/italic marks, then nothing else may form.
          for (const line of body) assertInert(line.replace(/^\*(.*)\* \(/u, '$1 ('));
        },
      ),
      { numRuns: 300 },
    );
  });
});
