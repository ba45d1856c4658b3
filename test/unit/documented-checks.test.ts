import { describe, expect, it } from 'vitest';
import {
  codePointLength,
  jsonSchemaOf,
  positiveIntegerPattern,
  withJsonSchema,
} from '../../shared/books/documented-checks';

const matcher = (max: number) => new RegExp(`^${positiveIntegerPattern(max)}$`);

describe('positiveIntegerPattern: decimal integers from 1 to max, no leading zeros', () => {
  it.each([1, 2, 9, 10, 11, 19, 20, 21, 99, 100, 101, 109, 110, 120, 999, 1000, 1001, 2026, 4321])(
    'accepts exactly 1..%i, checked from 0 to twice that and a digit more',
    (max) => {
      const pattern = matcher(max);
      for (let n = 0; n <= 2 * max + 100; n++) {
        expect(pattern.test(String(n)), `${n} against max ${max}`).toBe(n >= 1 && n <= max);
      }
    },
  );

  it('refuses leading zeros, signs, spaces and empty text', () => {
    const pattern = matcher(1000);
    for (const text of ['', '01', '001', '0999', '+1', '-1', ' 1', '1 ', '1.0', '1e3']) {
      expect(pattern.test(text), JSON.stringify(text)).toBe(false);
    }
  });

  it("states JavaScript's largest safe integer exactly", () => {
    const max = Number.MAX_SAFE_INTEGER; // 9007199254740991
    const pattern = matcher(max);
    for (const accepted of [
      '1',
      '9',
      '10',
      '999999999999999',
      '9007199254740991',
      '9007199254740990',
      '8999999999999999',
      '9006999999999999',
    ]) {
      expect(pattern.test(accepted), accepted).toBe(true);
    }
    for (const refused of [
      '0',
      '9007199254740992',
      '9007199254740999',
      '9007199254741000',
      '9100000000000000',
      '10000000000000000',
      '99999999999999999',
    ]) {
      expect(pattern.test(refused), refused).toBe(false);
    }
  });

  // The pattern is published in the OpenAPI document: its text is part of the interface, so it is
  // pinned here as derived by hand (shorter numbers, then one branch per digit that can be lowered).
  it.each([
    [1, '(?:1)'],
    [9, '(?:[1-8]|9)'],
    [20, '(?:[1-9][0-9]{0,0}|1[0-9]{1}|20)'],
    [1000, '(?:[1-9][0-9]{0,2}|1000)'],
    [2026, '(?:[1-9][0-9]{0,2}|1[0-9]{3}|20[0-1][0-9]{1}|202[0-5]|2026)'],
  ])('writes the pattern for %i as %s', (max, text) => {
    expect(positiveIntegerPattern(max)).toBe(text);
  });

  it('is a single group, safe to embed in a larger expression', () => {
    expect(positiveIntegerPattern(1000)).toMatch(/^\(\?:.*\)$/);
    expect(new RegExp(`^x${positiveIntegerPattern(20)}y$`).test('x20y')).toBe(true);
    expect(new RegExp(`^x${positiveIntegerPattern(20)}y$`).test('x21y')).toBe(false);
  });
});

describe('codePointLength: length as JSON Schema counts it', () => {
  it.each([
    ['', 0],
    ['a', 1],
    ['Émile', 5],
    ['😀', 1],
    ['😀😀a', 3],
    ['𝄞 clef', 6],
  ])('%j has %i code points', (text, length) => {
    expect(codePointLength(text)).toBe(length);
  });
});

describe('withJsonSchema: the JSON Schema counterpart of a check', () => {
  it('returns the item itself and remembers its fragment', () => {
    const check = { kind: 'validation' };
    expect(withJsonSchema(check, { minLength: 1 })).toBe(check);
    expect(jsonSchemaOf(check)).toEqual({ minLength: 1 });
  });

  it('knows nothing of an item never documented', () => {
    expect(jsonSchemaOf({ kind: 'validation' })).toBeUndefined();
  });
});
