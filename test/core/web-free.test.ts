/**
 * The core's own query string, UTF-8 count and stop signal (packages/core/web-free.ts) give what the Web
 * APIs give where they exist (URLSearchParams, Buffer.byteLength), so the doors with those APIs see no change.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { queryString, setQuery, utf8Bytes } from '../../packages/core/web-free';

const text = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.string({ unit: 'grapheme' }),
  fc.constantFrom("!'()~*-._ +&=%#?/", '\uD800x', 'x\uDC00'),
);

describe('web-free', () => {
  it('queryString encodes as URLSearchParams.toString()', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(text, text), { maxLength: 5 }), (pairs) => {
        expect(queryString(pairs)).toBe(new URLSearchParams(pairs).toString());
      }),
      { numRuns: 500 },
    );
  });

  it('setQuery does what URLSearchParams.set does', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c'), text), { maxLength: 6 }),
        fc.constantFrom('a', 'b', 'd'),
        text,
        (pairs, name, value) => {
          const mine = pairs.map(([k, v]) => [k, v] as [string, string]);
          setQuery(mine, name, value);
          const theirs = new URLSearchParams(pairs);
          theirs.set(name, value);
          expect(queryString(mine)).toBe(theirs.toString());
        },
      ),
    );
  });

  it('utf8Bytes counts as Buffer.byteLength', () => {
    fc.assert(
      fc.property(text, (s) => {
        expect(utf8Bytes(s)).toBe(Buffer.byteLength(s));
      }),
      { numRuns: 500 },
    );
  });
});
