import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../shared/books/errors';
import { parseIdempotencyKey } from '../../shared/http/idempotency-key';

describe('Idempotency-Key values', () => {
  it('reads the quoted form and the bare form as the same key', () => {
    expect(parseIdempotencyKey(undefined)).toBeUndefined();
    expect(parseIdempotencyKey('"8e03978e-40d5"')).toBe('8e03978e-40d5');
    expect(parseIdempotencyKey(' 8e03978e-40d5 ')).toBe('8e03978e-40d5');
    expect(parseIdempotencyKey('"a b"')).toBe('a b');
  });

  it.each(['', '""', '"', 'a b', '"a"b"', '"a\\\\b"', `"${'k'.repeat(256)}"`, 'k'.repeat(256), '"ключ"'])(
    'refuses %j with a 400 naming the header',
    (value) => {
      expect(() => parseIdempotencyKey(value)).toThrow(
        new ValidationError({
          'Idempotency-Key': 'Idempotency-Key must be a quoted string of 1 to 255 printable ASCII characters',
        }),
      );
    },
  );
});
