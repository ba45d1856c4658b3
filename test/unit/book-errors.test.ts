import { describe, expect, it } from 'vitest';
import {
  BookNotFoundError,
  DuplicateIsbnError,
  IdempotencyKeyReusedError,
  ValidationError,
} from '../../shared/books/errors';

/** Logs show an error's name and message; each names the rule broken and what broke it. */
describe('book errors', () => {
  it('a validation error names itself and the fields at fault, and keeps their messages', () => {
    const error = new ValidationError({ title: 'Title is required', year: 'Year must be an integer' });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('ValidationError');
    expect(error.message).toBe('Invalid request: title, year');
    expect(error.errors).toStrictEqual({ title: 'Title is required', year: 'Year must be an integer' });
  });

  it('a missing book names itself and the id', () => {
    const error = new BookNotFoundError(7);
    expect(error).toBeInstanceOf(Error);
    expect([error.name, error.message, error.id]).toStrictEqual(['BookNotFoundError', 'Book 7 does not exist', 7]);
  });

  it('a taken ISBN names itself and the ISBN as the client sent it', () => {
    const error = new DuplicateIsbnError('978-0441013593');
    expect(error).toBeInstanceOf(Error);
    expect([error.name, error.message, error.isbn]).toStrictEqual([
      'DuplicateIsbnError',
      'ISBN 978-0441013593 is already in use',
      '978-0441013593',
    ]);
  });

  it('a reused Idempotency-Key names itself and says the first request stands', () => {
    const error = new IdempotencyKeyReusedError();
    expect(error).toBeInstanceOf(Error);
    expect([error.name, error.message]).toStrictEqual([
      'IdempotencyKeyReusedError',
      'This Idempotency-Key was already used with a different request body',
    ]);
  });
});
